#!/usr/bin/env python3
"""Damages a raw profile every way a disk or a network can, and checks that
lbr2prof refuses each damaged copy with one line and exit 1 (or, for a
header byte it does not check the value of, reads it whole; for a zstd
frame header bit that does not change the content, reads the same counts).

usage: damage-raw.py GOOD.lbrraw WORKDIR [--stride N]

--stride N: every Nth cut and body byte only.
"""
import os
import subprocess
import sys

good, work = sys.argv[1:3]
stride = int(sys.argv[4]) if sys.argv[3:4] == ["--stride"] else 1
os.makedirs(work, exist_ok=True)
data = open(good, "rb").read()


def run(blob):
    path = os.path.join(work, "d.lbrraw")
    out = os.path.join(work, "out.lbrraw")
    with open(path, "wb") as f:
        f.write(blob)
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run(["lbr2prof", "merge", path, "-o", out],
                       capture_output=True, text=True, errors="replace",
                       timeout=60)
    return r, out


def refused(r, out):
    lines = r.stderr.rstrip("\n").split("\n")
    return (r.returncode == 1 and len(lines) == 1 and
            lines[0].startswith("lbr2prof: error: ") and
            not os.path.exists(out))


cuts = 0
for n in range(0, len(data), stride):
    r, out = run(data[:n])
    if not refused(r, out):
        sys.exit(f"cut at {n}: exit {r.returncode}, stderr {r.stderr!r}")
    cuts += 1
print(f"cuts: {cuts}, all refused in one line")
for i in range(24):
    blob = bytearray(data)
    blob[i] ^= 0x5a
    r, out = run(bytes(blob))
    if r.returncode == 0:
        continue  # read whole (a field whose value is not checked)
    if not refused(r, out):
        sys.exit(f"header byte {i}: exit {r.returncode}, stderr {r.stderr!r}")
print("header bytes changed: 24, all refused or read whole")
# The body is a zstd frame with its content checksum: a byte changed there
# is found, or (a frame header bit that does not change the content) the
# counts read are the original ones.
r, out = run(data)
expected = open(out, "rb").read()
same = 0
for i in range(24, len(data), stride):
    blob = bytearray(data)
    blob[i] ^= 0x01
    r, out = run(bytes(blob))
    if r.returncode == 0 and open(out, "rb").read() == expected:
        same += 1
        continue
    if not refused(r, out):
        sys.exit(f"body byte {i}: exit {r.returncode}, stderr {r.stderr!r}")
print(f"body bytes changed: {len(range(24, len(data), stride))}, all refused or read as they "
      f"were ({same})")
r, out = run(data + b"\0")
if not refused(r, out):
    sys.exit(f"appended byte: exit {r.returncode}, stderr {r.stderr!r}")
print("appended: refused")
