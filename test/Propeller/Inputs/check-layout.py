"""Checks a binary rebuilt from a Propeller cluster list and symbol order
against both, reading only the rebuilt binary (llvm-readobj-19's dump of its
.llvm_bb_addr_map and llvm-nm-19's symbols):
  - every listed function's cluster blocks are at increasing addresses in
    the listed order, each right after the one before (one hot section);
  - the hot functions' entries are at increasing addresses in the order of
    the symbol order.
Usage: check-layout.py BINARY CLUSTERS SYMORDER"""
import re
import subprocess
import sys

binary, clusters, symorder = sys.argv[1:4]

listed = {}
name = None
for line in open(clusters):
    kind, _, rest = line.strip().partition(" ")
    if kind == "f":
        name = rest.split()[0]
    elif kind == "c":
        listed[name] = [int(x) for x in rest.split()]

dump = subprocess.run(["llvm-readobj-19", "--bb-addr-map", binary],
                      capture_output=True, text=True, check=True).stdout
# Per function: {id: (address, size)} from the ranges' base addresses and
# offsets.
blocks, func, base = {}, None, None
for line in dump.splitlines():
    line = line.strip()
    m = re.match(r"Name: (\S+)", line)
    if m:
        func = m.group(1)
        blocks[func] = {}
        continue
    m = re.match(r"Base Address: (0x[0-9A-Fa-f]+)", line)
    if m:
        base = int(m.group(1), 16)
        continue
    m = re.match(r"ID: (\d+)", line)
    if m:
        bid = int(m.group(1))
        continue
    m = re.match(r"Offset: (0x[0-9A-Fa-f]+)", line)
    if m:
        off = int(m.group(1), 16)
        continue
    m = re.match(r"Size: (0x[0-9A-Fa-f]+)", line)
    if m and func is not None:
        blocks[func][bid] = (base + off, int(m.group(1), 16))

bad = 0
for f, ids in listed.items():
    if f not in blocks:
        print(f"{f}: not in the rebuilt binary's map")
        bad += 1
        continue
    at = [blocks[f][i] for i in ids]
    for k in range(1, len(at)):
        prev_end = at[k - 1][0] + at[k - 1][1]
        # Empty blocks and alignment padding may sit between.
        if not (prev_end <= at[k][0] <= prev_end + 16):
            print(f"{f}: block {ids[k]} at {at[k][0]:#x}, not right after "
                  f"block {ids[k - 1]} (ends {prev_end:#x})")
            bad += 1

nm = subprocess.run(["llvm-nm-19", binary], capture_output=True, text=True,
                    check=True).stdout
addr = {}
for line in nm.splitlines():
    parts = line.split()
    if len(parts) == 3:
        addr[parts[2]] = int(parts[0], 16)
order = [l.strip() for l in open(symorder) if l.strip()]
for a, b in zip(order, order[1:]):
    if not addr[a] < addr[b]:
        print(f"symbol order: {a} at {addr[a]:#x} is not before {b} at "
              f"{addr[b]:#x}")
        bad += 1
print(f"{len(listed)} clusters, {len(order)} symbols checked; {bad} wrong")
sys.exit(1 if bad else 0)
