#!/usr/bin/env python3
"""The table of bench/scale/sweep.sh: per stride, the distinct executed
addresses, lbr2prof's median wall time and largest peak RSS (line profile),
llvm-profgen's, and the ratios peer time / lbr2prof time and lbr2prof RSS /
peer RSS (no verdict). With --readme, replaces the part of README.md
between <!-- sweep:begin --> and <!-- sweep:end -->; with --png, plots time
and RSS against distinct addresses (matplotlib: Debian's python3-matplotlib
is for /usr/bin/python3).

usage: sweep-report.py CSV [--rev REV] [--load LOAD] [--readme MD] [--png OUT]
"""
import csv
import statistics
from collections import defaultdict

from reportlib import finish_plot, parse_args, write_section


def load(path):
    runs, meta = defaultdict(list), {}
    for r in csv.DictReader(open(path)):
        s = int(r["stride"])
        meta[s] = (int(r["hot_functions"]), r["samples"], int(r["distinct_addresses"] or 0))
        if r["status"] == "ok":
            runs[(s, r["tool"])].append((float(r["seconds"]), int(r["max_rss_kb"]) / 1024))
    return runs, meta


def summary(rs):
    if not rs:
        return None
    return statistics.median(r[0] for r in rs), max(r[1] for r in rs)


def table(runs, meta):
    out = ["| stride | hot functions | samples | distinct addresses | lbr2prof .prof | "
           "llvm-profgen | time ratio | RSS ratio |", "|---|---|---|---|---|---|---|---|"]
    rows = []
    for s in sorted(meta):
        hot, samples, distinct = meta[s]
        a, b = summary(runs[(s, "lbr2prof")]), summary(runs[(s, "llvm-profgen")])
        fmt = lambda x: "%.2f s, %.0f MB" % x if x else "failed"
        ratio = ["%.1fx" % (b[0] / a[0]), "%.2f" % (a[1] / b[1])] if a and b else ["", ""]
        out.append("| %d | %d | %s | %d | %s | %s | %s |" % (
            s, hot, samples, distinct, fmt(a), fmt(b), " | ".join(ratio)))
        rows.append((distinct, a, b))
    return "\n".join(out), rows


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for k, (color, label) in enumerate((("tab:blue", "lbr2prof .prof"), ("tab:red", "llvm-profgen"))):
        pts = sorted((r[0], r[1 + k]) for r in rows if r[1 + k])
        ax1.plot([p[0] for p in pts], [p[1][0] for p in pts], "o-", color=color, label=label)
        ax2.plot([p[0] for p in pts], [p[1][1] for p in pts], "o-", color=color, label=label)
    finish_plot(fig, (ax1, ax2), "distinct executed addresses",
                "bench/scale/sweep.sh: 20 MB generated binary, fixed samples",
                path)


def main():
    a = parse_args(__doc__)
    runs, meta = load(a.csv)
    text, rows = table(runs, meta)
    print(text)
    if a.png:
        plot(rows, a.png)
    if a.readme:
        write_section(a.readme, "sweep",
                      "lbr2prof %s, load %s at the end; lbr2prof: median of its "
                      "runs, llvm-profgen one run; ratios: peer time / lbr2prof "
                      "time, lbr2prof RSS / peer RSS." % (a.rev, a.load), text,
                      "sweep.png", "time and RSS against distinct addresses")


if __name__ == "__main__":
    main()
