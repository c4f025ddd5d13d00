#!/usr/bin/env python3
"""Summarizes bench/scale/run.sh's CSV: one table row per (samples, tool)
with the median and range of wall time over the runs, the peak RSS and the
ratios against lbr2prof (peer time / lbr2prof time, lbr2prof RSS / peer
RSS) and against the `cat FILE > /dev/null` floor (lbr2prof time / cat
time); then the thread-scaling rows; and draws samples against time and
against peak RSS, log-log, one line per tool, as a hand-written SVG (no
plotting library needed).

usage: report.py CSV [--svg OUT.svg]
"""
import argparse
import csv
import math
import statistics
from collections import OrderedDict

# Each peer is compared with the lbr2prof run that makes the same kind of
# profile; the sample-profile peers fall back to the fdata run (marked) while
# lbr2prof cannot write sample profiles.
REF = {"perf2bolt": "lbr2prof-fdata", "llvm-profgen": "lbr2prof-prof",
       "create_llvm_prof": "lbr2prof-prof"}
ORDER = ["cat", "lbr2prof-fdata", "perf2bolt", "lbr2prof-prof",
         "llvm-profgen", "create_llvm_prof"]
COLORS = {"cat": "#888888", "lbr2prof-fdata": "#1f77b4",
          "lbr2prof-prof": "#17becf", "perf2bolt": "#d62728",
          "llvm-profgen": "#2ca02c", "create_llvm_prof": "#ff7f0e"}


def load(path):
    """(samples, tool) -> dict of times, rss, file_mb, status, note."""
    cells = OrderedDict()
    for r in csv.DictReader(open(path)):
        c = cells.setdefault((int(r["samples"]), r["tool"]), {
            "t": [], "rss": [], "anon": [], "mb": float(r["file_mb"] or 0), "status": r["status"],
            "note": r["note"]})
        if r["status"] == "ok":
            c["t"].append(float(r["seconds"]))
            c["rss"].append(int(r["max_rss_kb"]))
            c["anon"].append(int(r["anon_kb"] or 0))
        else:
            c["status"], c["note"] = r["status"], r["note"]
    for c in cells.values():
        if c["t"]:
            c["status"] = "ok"
            c["med"] = statistics.median(c["t"])
            c["peak"] = max(c["rss"]) / 1024.0
            c["apeak"] = max(c["anon"]) / 1024.0
    return cells


def fmt_s(x):
    return "%.3f" % x if x < 10 else "%.1f" % x


def ratio(a, b):
    if b <= 0:
        return "-"
    r = a / b
    return "%.1fx" % r if r >= 0.1 else "%.2gx" % r


def table(cells):
    sizes = sorted({s for s, _ in cells})
    print("%-9s %-17s %8s %17s %4s %8s %8s  %-16s %7s %12s" % (
        "samples", "tool", "median_s", "min..max", "runs", "rss_MB",
        "anon_MB", "vs", "time_x", "rss_lbr/peer"))
    for s in sizes:
        for tool in ORDER + sorted({t for n, t in cells if n == s} - set(ORDER)):
            c = cells.get((s, tool))
            if c is None or tool.startswith("lbr2prof-j"):
                continue
            if c["status"] != "ok":
                print("%-9d %-17s %8s  %s" % (s, tool, c["status"], c["note"]))
                continue
            rng = "%s..%s" % (fmt_s(min(c["t"])), fmt_s(max(c["t"])))
            vs, tx, rx = "", "", ""
            ref = REF.get(tool)
            if ref:
                r = cells.get((s, ref))
                mark = ""
                if (r is None or r["status"] != "ok") and ref == "lbr2prof-prof":
                    r, mark = cells.get((s, "lbr2prof-fdata")), "*"
                    ref = "lbr2prof-fdata*"
                if r is not None and r["status"] == "ok":
                    vs, tx, rx = ref, ratio(c["med"], r["med"]), ratio(r["peak"], c["peak"])
            elif tool.startswith("lbr2prof"):
                r = cells.get((s, "cat"))
                if r is not None and r["status"] == "ok":
                    vs, tx = "cat (floor)", ratio(c["med"], r["med"])
            print("%-9d %-17s %8s %17s %4d %8.1f %8.1f  %-16s %7s %12s" % (
                s, tool, fmt_s(c["med"]), rng, len(c["t"]), c["peak"],
                c["apeak"], vs, tx, rx))
    print("time_x: peer time / lbr2prof time, or lbr2prof time / cat time; "
          "rss_lbr/peer: lbr2prof peak RSS / peer peak RSS (/usr/bin/time %M)")
    print("anon_MB: peak anonymous memory of the process tree (sampled every "
          "20 ms; 0 or low for runs of a few ms)")
    if any(c["status"] != "ok" for (_, t), c in cells.items()
           if t == "lbr2prof-prof"):
        print("* lbr2prof cannot write sample profiles yet: compared with its "
              "fdata run")
    threads = [(s, t) for s, t in cells if t.startswith("lbr2prof-j")]
    if threads:
        print("\nthreads (lbr2prof-fdata):")
        base = None
        for s, t in sorted(threads, key=lambda k: (k[0], int(k[1][10:]))):
            c = cells[(s, t)]
            if c["status"] != "ok":
                print("  %d %s: %s" % (s, t, c["status"]))
                continue
            base = base or c["med"]
            print("  %-9d %-12s %8s s  (%s..%s)  rss %.1f MB  speed-up %.2fx" % (
                s, t, fmt_s(c["med"]), fmt_s(min(c["t"])), fmt_s(max(c["t"])),
                c["peak"], base / c["med"]))


def svg(cells, path):
    """Two log-log panels: samples against median time and against RSS."""
    tools = [t for t in ORDER if any(k[1] == t and c["status"] == "ok"
                                     for k, c in cells.items())]
    pw, ph, ml, mt, mb, gap = 430, 330, 70, 40, 50, 90
    width, height = ml + 2 * pw + gap + 190, mt + ph + mb
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']

    def series(key):
        return {t: sorted((s, c[key]) for (s, tt), c in cells.items()
                          if tt == t and c["status"] == "ok" and c[key] > 0)
                for t in tools}

    def panel(x0, key, title, unit, key2=None):
        pts = series(key)
        dashed = series(key2) if key2 else {}
        dashed.pop("cat", None)  # a few pages, below what sampling sees
        xs = [s for p in pts.values() for s, _ in p]
        ys = [v for p in list(pts.values()) + list(dashed.values()) for _, v in p]
        if not xs:
            return
        lx0, lx1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
        ly0, ly1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        lx1, ly1 = max(lx1, lx0 + 1), max(ly1, ly0 + 1)
        X = lambda s: x0 + (math.log10(s) - lx0) / (lx1 - lx0) * pw
        Y = lambda v: mt + ph - (math.log10(v) - ly0) / (ly1 - ly0) * ph
        out.append('<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>'
                   % (x0, mt - 14, title))
        for e in range(lx0, lx1 + 1):
            x = X(10 ** e)
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                       % (x, mt, x, mt + ph))
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                       % (x, mt + ph + 16, label(10 ** e)))
        for e in range(ly0, ly1 + 1):
            y = Y(10 ** e)
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                       % (x0, y, x0 + pw, y))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                       % (x0 - 6, y + 4, label(10 ** e)))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
                   'stroke="black"/>' % (x0, mt, pw, ph))
        out.append('<text x="%d" y="%d" text-anchor="middle">samples (32-entry '
                   'branch stacks)</text>' % (x0 + pw // 2, mt + ph + 36))
        out.append('<text transform="translate(%d,%d) rotate(-90)" '
                   'text-anchor="middle">%s</text>' % (x0 - 48, mt + ph // 2, unit))
        # A slope-1 guide through lbr2prof's largest point: a line parallel
        # to it grows linearly with the samples.
        ref = pts.get("lbr2prof-fdata")
        if key == "med" and ref:
            s1, v1 = ref[-1]
            a, b = 10 ** lx0, 10 ** lx1
            va, vb = v1 * a / s1, v1 * b / s1
            lo, hi = 10 ** ly0, 10 ** ly1
            if va < lo:
                a, va = s1 * lo / v1, lo
            if vb > hi:
                b, vb = s1 * hi / v1, hi
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                       'stroke="#999" stroke-dasharray="6,4"/>'
                       % (X(a), Y(va), X(b), Y(vb)))
        for t, p in dashed.items():
            d = " ".join("%.1f,%.1f" % (X(s), Y(v)) for s, v in p)
            out.append('<polyline points="%s" fill="none" stroke="%s" '
                       'stroke-width="1.5" stroke-dasharray="3,3"/>'
                       % (d, COLORS[t]))
        for t, p in pts.items():
            if not p:
                continue
            d = " ".join("%.1f,%.1f" % (X(s), Y(v)) for s, v in p)
            out.append('<polyline points="%s" fill="none" stroke="%s" '
                       'stroke-width="2"/>' % (d, COLORS[t]))
            for s, v in p:
                out.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>'
                           % (X(s), Y(v), COLORS[t]))

    panel(ml, "med", "Wall time (median of runs)", "seconds")
    panel(ml + pw + gap, "peak", "Peak RSS (dotted: anonymous only)", "MB",
          "apeak")
    lx = ml + 2 * pw + gap + 20
    for i, t in enumerate(tools):
        y = mt + 10 + 22 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                   'stroke-width="3"/>' % (lx, y, lx + 24, y, COLORS[t]))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 30, y + 4, t))
    y = mt + 10 + 22 * len(tools)
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999" '
               'stroke-dasharray="6,4"/>' % (lx, y, lx + 24, y))
    out.append('<text x="%d" y="%d">time &#8733; samples</text>' % (lx + 30, y + 4))
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def label(v):
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return "%g%s" % (v / div, suf)
    return "%g" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--svg")
    a = ap.parse_args()
    cells = load(a.csv)
    table(cells)
    if a.svg:
        svg(cells, a.svg)
        print("\nplot: %s" % a.svg)


if __name__ == "__main__":
    main()
