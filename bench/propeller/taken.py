"""Sums an lbr-record truth file's taken branches: all of the main
process's (its taken_branches line), those whose source lies in a mapping of
BINARY (the program's own code, not libc's or ld.so's), and of those the
unconditional jumps (`jmp`, by llvm-objdump-19's disassembly of BINARY).
Usage: taken.py TRUTH BINARY NAME -> "NAME ALL OWN OWN-JMP" on one line."""
import os
import re
import subprocess
import sys

truth, binary, name = sys.argv[1:4]
real = os.path.realpath(binary)
dis = subprocess.run(["llvm-objdump-19", "-d", "--no-show-raw-insn", binary],
                     capture_output=True, text=True, check=True).stdout
jmps = set()
for line in dis.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\s+jmp\b", line)
    if m:
        jmps.add(int(m.group(1), 16))
mappings, total, own, own_jmp = [], None, 0, 0
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
                             int(f[f.index("end") + 1], 16),
                             int(f[f.index("bias") + 1], 16)))
    elif f[0] == "taken_branches":
        total = int(f[1])
    elif f[0] == "branch":
        src = int(f[1], 16)
        for lo, hi, bias in mappings:
            if lo <= src < hi:
                own += int(f[3])
                if src - bias in jmps:
                    own_jmp += int(f[3])
                break
if total is None or not mappings:
    sys.exit(f"{truth}: no taken_branches line or no mapping of {binary}")
print(name, total, own, own_jmp)
