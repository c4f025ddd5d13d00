#!/usr/bin/env python3
"""Compares the fdata edges that start or end at a PLT stub (`foo@PLT`)
in two fdata files: every such edge of the peer (perf2bolt) must be in
ours with a count within TOLERANCE (relative). Edges to or from BOLT's
pseudo function for the PLT header (`__BOLT_PSEUDO_.plt`, the lazy
binder's path, taken once per stub) are left out: lbr2prof names no
function there.

usage: compare-plt-edges.py OURS.fdata PEER.fdata [--tolerance 0.01]
Prints one line per edge and `N PLT edges, all within T%`."""
import argparse
import sys


def edges(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) != 8:
            continue
        key = tuple(f[0:6])
        if not any(n.endswith("@PLT") for n in (f[1], f[4])):
            continue
        if any(n.startswith("__BOLT_PSEUDO_") for n in (f[1], f[4])):
            continue
        out[key] = out.get(key, 0) + int(f[7])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("peer")
    ap.add_argument("--tolerance", type=float, default=0.01)
    a = ap.parse_args()
    ours, peer = edges(a.ours), edges(a.peer)
    if not peer:
        sys.exit(f"{a.peer}: no PLT edges")
    bad = 0
    for key in sorted(peer):
        n, m = ours.get(key, 0), peer[key]
        ok = abs(n - m) <= a.tolerance * m
        bad += not ok
        print(f"{' '.join(key)}: ours {n}, peer {m}" + ("" if ok else "  MISMATCH"))
    if bad:
        print(f"{bad} of {len(peer)} PLT edges differ by more than "
              f"{a.tolerance * 100:g}%")
        return 1
    print(f"{len(peer)} PLT edges, all within {a.tolerance * 100:g}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
