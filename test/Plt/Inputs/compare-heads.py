#!/usr/bin/env python3
"""Head samples of one function in two sample profiles, as
`llvm-profdata-19 show --sample --function=F` reads them; fails unless
the first is within TOLERANCE (relative) of the second.

usage: compare-heads.py FUNCTION OURS.prof PEER.prof [--tolerance 0.05]
Prints `head samples of F: ours N, peer M (D% apart): ok`."""
import argparse
import re
import subprocess
import sys


def head_samples(path, func):
    out = subprocess.run(["llvm-profdata-19", "show", "--sample",
                          "--function=" + func, path],
                         capture_output=True, text=True, check=True).stdout
    # "Function: mix: 2086119, 105147, 3 sampled lines"
    m = re.search(r"^Function: (\S+): (\d+), (\d+),", out, re.M)
    if not m or m.group(1) != func:
        sys.exit(f"{path}: no profile of {func}:\n{out}")
    return int(m.group(3))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("function")
    ap.add_argument("ours")
    ap.add_argument("peer")
    ap.add_argument("--tolerance", type=float, default=0.05)
    a = ap.parse_args()
    ours, peer = head_samples(a.ours, a.function), head_samples(a.peer, a.function)
    if peer == 0:
        sys.exit(f"{a.peer}: {a.function} has no head samples")
    apart = abs(ours - peer) / peer
    verdict = "ok" if apart <= a.tolerance else "too far apart"
    print(f"head samples of {a.function}: ours {ours}, peer {peer} "
          f"({apart * 100:.2f}% apart): {verdict}")
    return 0 if apart <= a.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
