#!/usr/bin/env python3
"""Grades BOLT profiles against the exact counts of an emulated run
(utils/lbr-record --truth). Prints, for each profile, the weighted overlap of
taken-branch counts with the truth: sum over (from, to) of min(p, q) after
normalizing both to 1 (1.0 = same distribution). Returns and fall-throughs
are left out on both sides (fdata carries no returns); an fdata line counts
as a fall-through when its source is not a branch, or is a conditional
branch whose target is the next instruction.

With --cfg (the output of `lbr2prof --dump=cfg`), also prints the weighted
overlap of block counts: every block of the dumped CFGs, plus one item per
executed instruction outside them (which the profile missed).

usage: profile-overlap.py --binary BIN --truth TRUTH [--cfg CFG]
                          NAME=FILE.fdata ...
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

from llvmtools import tool

def symbols(binary):
    """name -> sorted list of addresses (functions only)."""
    out = subprocess.run([tool("llvm-nm"), "--defined-only", binary],
                         capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.setdefault(parts[2], []).append(int(parts[0], 16))
    for v in syms.values():
        v.sort()
    return syms

INSN = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S*)")

def instructions(binary):
    """address -> (length, mnemonic)."""
    out = subprocess.run([tool("llvm-objdump"), "-d", binary],
                         capture_output=True, text=True, check=True).stdout
    insns, last = {}, None
    for line in out.splitlines():
        m = INSN.match(line)
        if not m:
            continue
        addr, nbytes, mnem = int(m.group(1), 16), len(m.group(2).split()), m.group(3)
        if not mnem and last is not None and addr == last[0] + last[1]:
            insns[last[0]] = (last[1] + nbytes, insns[last[0]][1])
            last = (last[0], last[1] + nbytes)
            continue
        insns[addr] = (nbytes, mnem)
        last = (addr, nbytes)
    return insns

def is_jump(m):
    return m.startswith("j") or m.startswith("b") and m not in ("bswap", "bt", "bts", "btr", "btc", "bsf", "bsr")

def is_call(m):
    return m.startswith("call") or m in ("bl", "blr")

def is_ret(m):
    return m.startswith("ret")

def read_truth(path, binary):
    """Branches and ranges of the binary's mapping, in link-time addresses."""
    base = os.path.basename(binary)
    branches, ranges = {}, []
    maps = {}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "process":
            maps = {}
        elif f[0] == "mapping":
            if os.path.basename(f[f.index("path") + 1]) == base:
                maps[f[1]] = int(f[f.index("bias") + 1], 16)
        elif f[0] == "branch" and f[4] in maps and f[5] in maps:
            b = maps[f[4]]
            k = (int(f[1], 16) - b, int(f[2], 16) - b)
            branches[k] = branches.get(k, 0) + int(f[3])
        elif f[0] == "range" and f[5] in maps:
            b = maps[f[5]]
            ranges.append((int(f[1], 16) - b, int(f[2], 16) - b, int(f[4])))
    return branches, ranges

def resolve(name, off, syms):
    m = re.match(r"^(.*)/(\d+)$", name)
    rank = 1
    if m and m.group(1) in syms:
        name, rank = m.group(1), int(m.group(2))
    addrs = syms.get(name)
    if not addrs:
        return None
    return addrs[min(rank, len(addrs)) - 1] + off

def read_fdata(path, syms, insns):
    taken = {}
    for line in open(path):
        f = line.split()
        if len(f) != 8 or f[0] != "1" or f[3] != "1":
            continue
        a = resolve(f[1], int(f[2], 16), syms)
        b = resolve(f[4], int(f[5], 16), syms)
        if a is None or b is None or a not in insns:
            continue
        n, m = insns[a]
        if is_ret(m):
            continue
        if not (is_jump(m) or is_call(m)):
            continue  # fall-through from a non-branch
        if m.startswith("j") and not m.startswith("jmp") and b == a + n:
            continue  # not-taken conditional: a fall-through
        taken[(a, b)] = taken.get((a, b), 0) + int(f[7])
    return taken

def overlap(p, q):
    sp, sq = sum(p.values()), sum(q.values())
    if not sp or not sq:
        return 0.0
    return sum(min(p.get(k, 0) / sp, q.get(k, 0) / sq) for k in set(p) | set(q))

def inst_counts(ranges, insns):
    """Exact execution count of every instruction from the truth ranges."""
    addrs = sorted(insns)
    counts = {}
    for s, e, c in ranges:
        i = bisect.bisect_left(addrs, s)
        while i < len(addrs) and addrs[i] <= e:
            counts[addrs[i]] = counts.get(addrs[i], 0) + c
            i += 1
    return counts

def block_overlap(cfg_path, syms, insns, counts):
    ours, truth, covered = {}, {}, set()
    func = None
    addrs = sorted(insns)
    for line in open(cfg_path):
        f = line.split()
        if f and f[0] == "function":
            func = resolve(f[1], 0, syms)
        elif f and f[0] == "block" and func is not None:
            lo, hi = (int(x, 16) for x in f[1].split("-"))
            start = func + lo
            ours[start] = int(f[3])
            truth[start] = counts.get(start, 0)
            i = bisect.bisect_left(addrs, start)
            while i < len(addrs) and addrs[i] < func + hi:
                covered.add(addrs[i])
                i += 1
    for a, c in counts.items():
        if a not in covered and a in insns:
            truth[("missed", a)] = c
    return overlap(ours, truth)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--cfg")
    ap.add_argument("--min", type=float, default=0.0,
                    help="exit 1 if the first profile's overlaps are below this")
    ap.add_argument("profiles", nargs="+")
    a = ap.parse_args()
    syms, insns = symbols(a.binary), instructions(a.binary)
    tb, tr = read_truth(a.truth, a.binary)
    truth_taken = {}
    for (x, y), c in tb.items():
        if x in insns and not is_ret(insns[x][1]) and y in insns:
            truth_taken[(x, y)] = c
    if not truth_taken:
        print("error: no truth branches in %s" % a.binary)
        return 1
    low = False
    for i, p in enumerate(a.profiles):
        name, path = p.split("=", 1)
        o = overlap(read_fdata(path, syms, insns), truth_taken)
        print("%s branch overlap: %.4f" % (name, o))
        low |= i == 0 and o < a.min
    if a.cfg:
        o = block_overlap(a.cfg, syms, insns, inst_counts(tr, insns))
        print("block overlap: %.4f" % o)
        low |= o < a.min
    if low:
        print("error: below --min %.2f" % a.min)
    return 1 if low else 0

if __name__ == "__main__":
    sys.exit(main())
