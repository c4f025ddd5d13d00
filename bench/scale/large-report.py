#!/usr/bin/env python3
"""(Debian's python3-matplotlib is for /usr/bin/python3.) The table of bench/scale/large.sh: per binary and profile, lbr2prof's
median time and largest peak RSS for the line profile and fdata, the
peers' (llvm-profgen for the line profile, perf2bolt for fdata), and the
ratios peer time / lbr2prof time and lbr2prof RSS / peer RSS. Ratios only:
no verdict. With --readme, replaces the part of README.md between the
markers <!-- large:begin --> and <!-- large:end -->; with --png, plots time
and memory against binary size (matplotlib).

usage: large-report.py CSV [--rev REV] [--load LOAD] [--readme MD] [--png OUT]
"""
import csv
import statistics
import sys
from collections import defaultdict

from reportlib import finish_plot, parse_args, write_section


def load(path):
    runs = defaultdict(list)
    meta = {}
    same = defaultdict(set)
    for r in csv.DictReader(open(path)):
        key = (int(r["functions"]), r["profile"], r["tool"])
        meta[key[:2]] = (float(r["binary_mb"]), r["samples"])
        if r["status"] != "ok":
            runs[key].append(None)
            continue
        runs[key].append((float(r["seconds"]), int(r["max_rss_kb"]) / 1024,
                          int(r["anon_kb"] or 0) / 1024))
        if r["same_as_ref"]:
            same[key[:2]].add(r["same_as_ref"])
    return runs, meta, same


def summary(rs):
    ok = [r for r in rs if r]
    if not ok:
        return None
    return (statistics.median(r[0] for r in ok), max(r[1] for r in ok),
            max(r[2] for r in ok))


ORDER = {"narrow": 0, "fixed": 1, "broad": 2}


def table(runs, meta, same):
    out = ["| binary | profile | samples | lbr2prof .prof | llvm-profgen | "
           "time ratio | RSS ratio | lbr2prof .fdata | perf2bolt | "
           "time ratio | RSS ratio | identical to ref |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = []
    for (n, prof), (mb, samples) in sorted(meta.items(),
                                          key=lambda x: (x[0][0], ORDER.get(x[0][1], 9))):
        cells = ["%d fn, %.0f MB" % (n, mb), prof, samples]
        row = {"n": n, "mb": mb, "profile": prof}
        for mine, peer in (("lbr2prof-prof", "llvm-profgen"),
                           ("lbr2prof-fdata", "perf2bolt")):
            a, b = summary(runs[(n, prof, mine)]), summary(runs[(n, prof, peer)])
            def fmt(s, tool):
                if s:
                    return "%.2f s, %.0f MB" % (s[0], s[1])
                return "failed" if runs[(n, prof, tool)] else "not run"
            cells += [fmt(a, mine), fmt(b, peer)]
            if a and b:
                cells += ["%.1fx" % (b[0] / a[0]), "%.2f" % (a[1] / b[1])]
            else:
                cells += ["", ""]
            row[mine], row[peer] = a, b
        cells.append(", ".join(sorted(same.get((n, prof), []))) or "")
        out.append("| " + " | ".join(cells) + " |")
        rows.append(row)
    return "\n".join(out), rows


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"lbr2prof-prof": ("tab:blue", "-", "lbr2prof .prof"),
              "lbr2prof-fdata": ("tab:cyan", "-", "lbr2prof .fdata"),
              "llvm-profgen": ("tab:red", "--", "llvm-profgen"),
              "perf2bolt": ("tab:orange", "--", "perf2bolt")}
    for prof, marker in (("narrow", "o"), ("fixed", "^"), ("broad", "s")):
        rs = sorted((r for r in rows if r["profile"] == prof),
                    key=lambda r: r["mb"])
        for tool, (color, ls, label) in styles.items():
            pts = [(r["mb"], r[tool]) for r in rs if r[tool]]
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ax1.plot(xs, [p[1][0] for p in pts], ls, marker=marker,
                     color=color, label="%s, %s" % (label, prof))
            ax2.plot(xs, [p[1][1] for p in pts], ls, marker=marker,
                     color=color, label="%s, %s" % (label, prof))
    finish_plot(fig, (ax1, ax2), "binary size (MB)",
                "bench/scale/large.sh: generated binaries, narrow (o), "
                "fixed (^) and broad (s) profiles", path, legend_size=7)


def main():
    a = parse_args(__doc__)
    runs, meta, same = load(a.csv)
    text, rows = table(runs, meta, same)
    print(text)
    if a.png:
        plot(rows, a.png)
    if a.readme:
        write_section(a.readme, a.marker or "large",
                      "lbr2prof %s, load %s at the end; times are medians of "
                      "lbr2prof's runs (peers: one run), RSS the largest peak; "
                      "ratios: peer time / lbr2prof time, lbr2prof RSS / peer "
                      "RSS." % (a.rev, a.load), text, a.png.split("/")[-1] if a.png else "large.png",
                      "time and RSS against binary size")


if __name__ == "__main__":
    main()
