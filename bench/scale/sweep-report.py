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
import argparse
import csv
import statistics
from collections import defaultdict


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
    for ax, what in ((ax1, "wall time (s)"), (ax2, "peak RSS (MB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("distinct executed addresses")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=8, loc="upper left")
    fig.suptitle("bench/scale/sweep.sh: 20 MB generated binary, fixed samples")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--rev", default="")
    ap.add_argument("--load", default="")
    ap.add_argument("--readme")
    ap.add_argument("--png")
    a = ap.parse_args()
    runs, meta = load(a.csv)
    text, rows = table(runs, meta)
    print(text)
    if a.png:
        plot(rows, a.png)
    if a.readme:
        md = open(a.readme).read()
        begin, end = "<!-- sweep:begin -->", "<!-- sweep:end -->"
        body = ("%s\n\nlbr2prof %s, load %s at the end; lbr2prof: median of its runs, "
                "llvm-profgen one run; ratios: peer time / lbr2prof time, lbr2prof RSS / "
                "peer RSS.\n\n%s\n\n![time and RSS against distinct addresses](sweep.png)\n%s"
                % (begin, a.rev, a.load, text, end))
        if begin in md:
            md = md[:md.index(begin)] + body + md[md.index(end) + len(end):]
        else:
            md += "\n" + body + "\n"
        open(a.readme, "w").write(md)


if __name__ == "__main__":
    main()
