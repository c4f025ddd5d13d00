#!/usr/bin/env python3
"""The table of bench/scale/kinds.sh: per program and profile kind,
lbr2prof's median time and largest peak RSS against its peer's (median
time and largest peak RSS of its runs),
the time ratio (peer / lbr2prof) and the RSS ratio (lbr2prof / peer),
each marked against issue 23's bar (10x, 1/4), and a count of the cells
that meet it.

usage: kinds-report.py CSV
"""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    rows = defaultdict(list)
    order = []
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            key = (r["program"], r["kind"])
            if key not in order:
                order.append(key)
            if r["status"] != "0":
                continue
            rows[key + (r["tool"],)].append(
                (float(r["seconds"]), int(r["max_rss_kb"])))
    print("| program | kind | lbr2prof | peer | peer's | time ratio "
          "| RSS ratio |")
    print("|---|---|---|---|---|---|---|")
    met = {"time": 0, "rss": 0}
    cells = 0
    for prog, kind in order:
        ours = rows.get((prog, kind, "lbr2prof"))
        peer_name = "perf2bolt" if kind == "fdata" else "llvm-profgen"
        theirs = rows.get((prog, kind, peer_name))
        if not ours or not theirs:
            print("| %s | %s | %s | %s | | | |" % (
                prog, kind, "failed" if not ours else "", peer_name +
                (" failed" if not theirs else "")))
            continue
        t = statistics.median(s for s, _ in ours)
        m = max(k for _, k in ours)
        pt = statistics.median(s for s, _ in theirs)
        pm = max(k for _, k in theirs)
        tr, mr = pt / t, m / pm
        cells += 1
        met["time"] += tr >= 10
        met["rss"] += mr <= 0.25
        print("| %s | %s | %.2f s, %.0f MB | %s | %.2f s, %.0f MB | "
              "%.1fx%s | %.2f%s |" % (
                  prog, kind, t, m / 1024, peer_name, pt, pm / 1024, tr,
                  "" if tr >= 10 else " (under 10x)", mr,
                  "" if mr <= 0.25 else " (over 1/4)"))
    print()
    print("%d cells: %d at 10x or more, %d at 1/4 of the memory or less" %
          (cells, met["time"], met["rss"]))


if __name__ == "__main__":
    main()
