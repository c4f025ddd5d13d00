#!/usr/bin/env python3
"""Every output kind of each binary from a raw profile and from recordings.

usage: outputs-agree.py RAW "RECORDING..." BINARY...

For each BINARY and each kind (fdata, preagg, text, extbinary,
unsymbolized), runs `lbr2prof RAW --binary B --format K` and the same
on the recordings, and prints "NAME KIND: same" or exits non-zero on the
first difference.
"""
import os
import subprocess
import sys
import tempfile

raw, recordings = sys.argv[1], sys.argv[2].split()
with tempfile.TemporaryDirectory() as tmp:
    for binary in sys.argv[3:]:
        name = os.path.basename(binary)
        for kind in ("fdata", "preagg", "text", "extbinary", "unsymbolized"):
            outs = []
            for i, inputs in enumerate(([raw], recordings)):
                out = os.path.join(tmp, f"{name}.{i}.{kind}")
                r = subprocess.run(["lbr2prof", *inputs, "--binary", binary,
                                    "--format", kind, "-o", out],
                                   stderr=subprocess.PIPE, text=True)
                if r.returncode:
                    sys.exit(f"{name} {kind} from {inputs}: {r.stderr}")
                with open(out, "rb") as f:
                    outs.append(f.read())
            if outs[0] != outs[1]:
                sys.exit(f"{name} {kind}: the raw profile's differs")
            print(f"{name} {kind}: same")
