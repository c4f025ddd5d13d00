#!/usr/bin/env python3
"""Compares lbr2prof's raw counts with llvm-profgen's, entry by entry.

  profgen-raw.py --binary BIN --lbr2prof DUMP --profgen RAW [--input TEXT]
                 [--verbose]

DUMP is `lbr2prof ... --dump=raw` ("B from to count mispred estimate" and
"R begin end count estimate" lines, locations as FILE:0xFILE_OFFSET or
[external]; context blocks, if any, are skipped). RAW is `llvm-profgen
--skip-symbolization` without contexts (an LBR-only input, or a hybrid one
with --ignore-stack-samples): a range count line, "begin-end:count" lines, a
branch count line, "from->to:count" lines, addresses as offsets from the
first executable segment (llvm-profgen's --use-offset), its external
sentinel 1 showing as 1 minus that base.

Both sides are put in one form: link-time addresses of BIN, anything outside
BIN's executable segments "ext". Branches to ext are left out of lbr2prof's
side (llvm-profgen records a branch only when its target is code of the
binary). Then every key whose counts differ is named by the convention that
explains it (docs/formats.md, "perf script dialects and how lbr2prof's counts
relate to llvm-profgen's"):

  reversed   a range that ends before it begins: llvm-profgen drops it while
             reading; lbr2prof's raw profile keeps it (range validation drops
             it when the profile is built).
  crosses    a range with a call, a return or a direct unconditional jump
             before its end: llvm-profgen drops it while reading (what a
             duplicated LBR entry makes); lbr2prof keeps it in the raw profile
             (validation drops it).
  plt        an end in a .plt section: llvm-profgen does not disassemble
             .plt, so its addresses are external to it; lbr2prof counts them
             as the binary's.
  no-0x      (with --input) a branch entry written without 0x ("40065d/0x..."):
             llvm-profgen drops the first two characters of each address as
             "0x", so reads another address; lbr2prof reads the hex as it is.
  prolog-leaf  (with --input) the counts of hybrid samples whose innermost
             frame is a function's first two instructions or a return and
             the one before it: llvm-profgen drops these samples whole (a
             stack walked from a prolog or epilog misses a frame); lbr2prof
             keeps their branch stack (its context unwinder stops where the
             stack does not match).
  unexplained  anything else.

Prints a summary ("branches: N keys, S same, D differ" and the same for
ranges, then "differences:" and a count per convention); with
--verbose every differing key. Exits 1 if any difference is unexplained.
"""
import argparse
import bisect
import collections
import os
import re
import struct
import subprocess
import sys


from llvmtools import tool


def load_segments(path):
    """[(vaddr, memsz, offset, filesz, exec)] of the PT_LOADs of an ELF64 LE."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segs = []
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = \
            struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1:  # PT_LOAD
            segs.append((p_vaddr, p_memsz, p_offset, p_filesz, bool(p_flags & 1)))
    return segs


class Binary:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.segs = [s for s in load_segments(path) if s[4]]
        if not self.segs:
            sys.exit(f"{path}: no executable segment")
        # llvm-profgen's base for offsets: the first executable segment,
        # page-aligned.
        self.base = self.segs[0][0] & ~0xfff
        self.transfers = transfers(path)
        self.plt = plt_ranges(path)

    def addr_of_offset(self, off):
        for vaddr, memsz, offset, filesz, _ in self.segs:
            if offset <= off < offset + filesz:
                return vaddr + off - offset
        return None

    def is_code(self, a):
        return any(v <= a < v + m for v, m, _, _, _ in self.segs)


def transfers(path):
    """Sorted addresses of calls, returns and direct unconditional jumps: the
    instructions llvm-profgen's rangeCrossUncondBranch looks for."""
    out = subprocess.run([tool("llvm-objdump"), "-d", "--no-show-raw-insn",
                          path], capture_output=True, text=True).stdout
    res = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(\S*)", line)
        if not m:
            continue
        op = m.group(2)
        if op.startswith("call") or op.startswith("ret") or \
                (op.startswith("jmp") and not m.group(3).startswith("*")):
            res.append(int(m.group(1), 16))
    return sorted(res)


def prologs_epilogs(path):
    """Addresses llvm-profgen takes for prologs and epilogs: each function's
    first two instructions, each return and the instruction before it."""
    out = subprocess.run([tool("llvm-objdump"), "-d", "--no-show-raw-insn",
                          path], capture_output=True, text=True).stdout
    res, prev, entry_left = set(), None, 0
    for line in out.splitlines():
        if re.match(r"[0-9a-f]+ <.*>:", line):
            entry_left = 2
            continue
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        a = int(m.group(1), 16)
        if entry_left:
            res.add(a)
            entry_left -= 1
        if m.group(2).startswith("ret"):
            res.add(a)
            if prev is not None:
                res.add(prev)
        prev = a
    return res


def prolog_leaf_counts(path, b):
    """Branch and range counts of the hybrid samples of TEXT whose innermost
    frame is in a prolog or epilog (llvm-profgen drops those samples)."""
    pe = prologs_epilogs(b.path)
    counts = collections.Counter()
    frames, count = [], 1

    def code(a):
        return a if b.is_code(a) else "ext"

    for line in open(path):
        t = line.strip()
        if line[:1].isdigit() and t.isdigit():
            count = int(t)
            continue
        f = t.split()
        if len(f) == 1 and "/" not in f[0]:
            try:
                frames.append(int(f[0], 16))
            except ValueError:
                frames = []
            continue
        if not f or "/" not in f[0]:
            frames = [] if not f else frames
            continue
        if frames and frames[0] in pe:
            entries = [tuple(int(x, 16) for x in tok.split("/")[:2])
                       for tok in f]
            for i, (fr, to) in enumerate(entries):
                if b.is_code(to):
                    counts[("B", code(fr), to)] += count
                if i and b.is_code(to) and b.is_code(entries[i - 1][0]):
                    counts[("R", to, entries[i - 1][0])] += count
        frames, count = [], 1
    return counts


def plt_ranges(path):
    """[(start, end)] of the sections named .plt*."""
    out = subprocess.run([tool("llvm-objdump"), "-h", path],
                         capture_output=True, text=True).stdout
    res = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[1].startswith(".plt"):
            a = int(f[3], 16)
            res.append((a, a + int(f[2], 16)))
    return res


def no_prefix_keys(path, b):
    """Branch keys, as each side reads them, of entries written without 0x."""
    keys = set()
    for line in open(path):
        for tok in line.split():
            p = tok.split("/")
            if len(p) < 2 or (p[0].startswith("0x") and p[1].startswith("0x")):
                continue
            try:
                ours = [int(x, 16) for x in p[:2]]
                theirs = [int(x[2:], 16) for x in p[:2]]
            except ValueError:
                continue
            keys.add(("B", ours[0], ours[1]))
            keys.add(tuple(["B"] + [a if b.is_code(a) else "ext"
                                    for a in theirs]))
    return keys


def read_lbr2prof(path, b):
    counts = collections.Counter()

    def loc(tok):
        if tok == "[external]":
            return "ext"
        file, _, off = tok.rpartition(":")
        if os.path.basename(file) != b.name:
            return "ext"
        a = b.addr_of_offset(int(off, 16))
        return "ext" if a is None else a

    for line in open(path):
        f = line.split()
        if len(f) < 4 or f[0] not in ("B", "R") or line.startswith(" "):
            continue
        x, y = loc(f[1]), loc(f[2])
        if f[0] == "B" and y == "ext":
            continue
        if f[0] == "R" and (x == "ext" or y == "ext"):
            continue
        counts[(f[0], x, y)] += int(f[3])
    return counts


def read_profgen(path, b):
    counts = collections.Counter()
    lines = [l.strip() for l in open(path)]
    if any(l.startswith("[") for l in lines):
        sys.exit(f"{path}: a context-sensitive raw profile; run llvm-profgen "
                 "with --ignore-stack-samples")

    def addr(text):
        a = (int(text, 16) + b.base) & (2**64 - 1)
        return "ext" if a == 1 else a

    i = 0
    for kind, sep in (("R", "-"), ("B", "->")):
        n = int(lines[i])
        i += 1
        for l in lines[i:i + n]:
            key, _, c = l.rpartition(":")
            x, _, y = key.partition(sep)
            counts[(kind, addr(x), addr(y))] += int(c)
        i += n
    return counts


def classify(key, diff, b, no_prefix, prolog_leaf):
    kind, x, y = key
    if diff > 0 and prolog_leaf[key] == diff:
        return "prolog-leaf"
    if key in no_prefix:
        return "no-0x"
    if any(a != "ext" and any(s <= a < e for s, e in b.plt) for a in (x, y)):
        return "plt"
    if kind == "R" and x != "ext" and y != "ext":
        if x > y:
            return "reversed"
        k = bisect.bisect_left(b.transfers, x)
        if k < len(b.transfers) and b.transfers[k] < y:
            return "crosses"
    return "unexplained"


def fmt(a):
    return a if a == "ext" else hex(a)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--lbr2prof", required=True)
    ap.add_argument("--profgen", required=True)
    ap.add_argument("--input", help="the perf script text both read")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    b = Binary(args.binary)
    ours = read_lbr2prof(args.lbr2prof, b)
    theirs = read_profgen(args.profgen, b)
    no_prefix = no_prefix_keys(args.input, b) if args.input else set()
    prolog_leaf = prolog_leaf_counts(args.input, b) if args.input \
        else collections.Counter()
    why = collections.Counter()
    for kind, name in (("B", "branches"), ("R", "ranges")):
        keys = sorted({k for k in list(ours) + list(theirs) if k[0] == kind},
                      key=lambda k: (str(k[1]), str(k[2])))
        same = sum(1 for k in keys if ours[k] == theirs[k])
        total = sum(theirs[k] for k in keys)
        print(f"{name}: {len(keys)} keys, {same} same, {len(keys) - same} "
              f"differ; llvm-profgen count {total}, lbr2prof "
              f"{sum(ours[k] for k in keys)}")
        for k in keys:
            if ours[k] != theirs[k]:
                c = classify(k, ours[k] - theirs[k], b, no_prefix,
                             prolog_leaf)
                why[c] += 1
                if args.verbose:
                    print(f"  {kind} {fmt(k[1])} {fmt(k[2])}: llvm-profgen "
                          f"{theirs[k]}, lbr2prof {ours[k]} ({c})")
    print("differences: " + ", ".join(
        f"{c} {why[c]}" for c in ("reversed", "crosses", "plt", "no-0x",
                                  "prolog-leaf", "unexplained")))
    return 1 if why["unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())
