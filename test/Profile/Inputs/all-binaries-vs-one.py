#!/usr/bin/env python3
"""Checks an --all-binaries directory against one --binary run per file.

usage: all-binaries-vs-one.py DATA DIR FORMAT EXPECTED-NAME... -- BINARY...

Every file in DIR must be byte-identical to `lbr2prof DATA --binary B
--format FORMAT -o ONE`, where B is the BINARY whose file name starts the
output's name (FILE-BUILDID.EXT); each EXPECTED-NAME (a file name) must
have a profile. Prints one line per compared file, then "N identical".
"""
import os
import subprocess
import sys
import tempfile


def main():
    data, out_dir, fmt = sys.argv[1:4]
    rest = sys.argv[4:]
    sep = rest.index("--")
    expected, binaries = rest[:sep], rest[sep + 1:]
    by_name = {os.path.basename(b): b for b in binaries}
    files = sorted(os.listdir(out_dir))
    for name in expected:
        if not any(f.startswith(name + "-") for f in files):
            sys.exit(f"no profile of {name} in {out_dir}: {files}")
    same = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            # FILE-BUILDID.EXT: the build-id is 40 hex digits.
            stem = f.rsplit(".", 1)[0]
            name = stem[:-41] if len(stem) > 41 and stem[-41] == "-" else stem
            if name not in by_name:
                print(f"{f}: not among the given binaries, not compared")
                continue
            one = os.path.join(tmp, "one")
            subprocess.run(["lbr2prof", data, "--binary", by_name[name],
                            "--format", fmt, "-o", one], check=True,
                           stderr=subprocess.DEVNULL)
            with open(one, "rb") as a, open(os.path.join(out_dir, f),
                                            "rb") as b:
                if a.read() != b.read():
                    sys.exit(f"{f} differs from the --binary run of "
                             f"{by_name[name]}")
            print(f"{name}: identical")
            same += 1
    print(f"{same} identical")


if __name__ == "__main__":
    main()
