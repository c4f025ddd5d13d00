"""Sums an lbr-record truth file's taken branches: all of them (the first
process's taken_branches line) and those whose source lies in a mapping of
BINARY (the program's own code, not libc's or ld.so's).
Usage: taken.py TRUTH BINARY NAME -> "NAME ALL OWN" on one line."""
import os
import sys

truth, binary, name = sys.argv[1:4]
real = os.path.realpath(binary)
mappings, total, own, done = [], None, 0, False
for line in open(truth):
    f = line.split()
    if not f or f[0].startswith("#"):
        continue
    if f[0] == "end":
        # The main program is the first process.
        break
    if f[0] == "mapping":
        path = f[f.index("path") + 1]
        if os.path.realpath(path) == real:
            mappings.append((int(f[f.index("start") + 1], 16),
                             int(f[f.index("end") + 1], 16)))
    elif f[0] == "taken_branches":
        total = int(f[1])
    elif f[0] == "branch":
        src = int(f[1], 16)
        if any(lo <= src < hi for lo, hi in mappings):
            own += int(f[3])
if total is None or not mappings:
    sys.exit(f"{truth}: no taken_branches line or no mapping of {binary}")
print(name, total, own)
