#!/usr/bin/env python3
"""Checks that a merged fdata file holds the sums of other fdata files.

usage: fdata-sum.py [--counts] MERGED INPUT...

Sums the INPUTs' lines by location (every field but the counts: the
mispredictions and count of a branch line, the count of a no_lbr line),
does the same to MERGED, and prints "equal sums: N branches" (or
"samples") if they are equal and MERGED has each location once; else
names the first difference and exits 1. With --counts, only the counts
are compared, not the mispredictions (merge-fdata 19 keys lines by their
mispredictions too, so two lines that differ only there are both kept,
and two with equal mispredictions are summed in count alone: its
mispredictions are not the inputs' sum).
"""
import sys
from collections import Counter


def read(path):
    header, sums, lines = [], {}, 0
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        if line == "boltedcollection" or line.startswith("no_lbr"):
            header.append(line)
            continue
        f = line.split(" ")
        n = 1 if len(f) in (4, 7) else 2
        key = " ".join(f[:-n])
        vals = [int(x) for x in f[-n:]]
        old = sums.get(key, [0] * n)
        sums[key] = [a + b for a, b in zip(old, vals)]
        lines += 1
    return header, sums, lines


args = sys.argv[1:]
counts_only = args[0] == "--counts"
if counts_only:
    args = args[1:]
merged_header, merged, merged_lines = read(args[0])
want = {}
headers = set()
for path in args[1:]:
    header, sums, _ = read(path)
    headers.add(tuple(header))
    for k, v in sums.items():
        old = want.get(k, [0] * len(v))
        want[k] = [a + b for a, b in zip(old, v)]
if len(headers) != 1 or list(headers.pop()) != merged_header:
    sys.exit("headers differ")
if merged_lines != len(merged):
    sys.exit(f"{args[0]}: {merged_lines - len(merged)} locations repeated")
pick = (lambda v: v and v[-1:]) if counts_only else (lambda v: v)
for k in sorted(set(want) | set(merged)):
    if pick(want.get(k)) != pick(merged.get(k)):
        sys.exit(f"{k}: merged {merged.get(k)}, inputs sum to {want.get(k)}")
kind = "samples" if merged_header and merged_header[-1].startswith("no_lbr") else "branches"
print(f"equal sums: {len(merged)} {kind}")
