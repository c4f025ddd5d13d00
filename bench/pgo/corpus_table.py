#!/usr/bin/env python3
"""The tables of compare.sh's multi-recording runs.

    corpus_table.py [--use KIND=NAME]... BENCH_DIR PROGRAM...

For each PROGRAM, reads BENCH_DIR/PROGRAM/cg/NAME.cg (callgrind runs of
the evaluation workload; NAME is o2, instr, or rR-KIND for the build of
KIND's profile from recording R) and writes BENCH_DIR/PROGRAM/result.csv
(one row per binary) and, on stdout, a Markdown table: per profile kind,
the estcyc speedup over o2 and the share of instrumented PGO's gain,
100*(speedup-1)/(speedup_instr-1), as the mean over recordings followed
by each recording's value. estcyc is pgo_stats.py's estimate (instructions
plus flat penalties for mispredictions and cache misses).

With more than one PROGRAM it ends with the corpus table: kinds by
programs, each cell the mean share and its values, each tool's best
kind per program, and issue 22's two bars per program on the mean
shares: whether lbr2prof's best kind recovers at least llvm-profgen's
best's share, and whether lbr2prof's CSSPGO is at least its own line
profile where llvm-profgen's CSSPGO is above llvm-profgen's line profile
(the only programs that bar applies to). A program whose
instrumented PGO gains less than 3 % by the estimate is marked "no PGO
signal" (in the instr row, the best-of rows and the bars, which rank
nothing there): shares of a gain that small are noise.

--use KIND=NAME: in the corpus table and the geometric means, KIND's
values come from the profiles measured as NAME (a LBR2PROF_VARIANTS
name, e.g. lbr2prof-bsh2s150) in the programs that have NAME: a default
changed since KIND was measured there, and NAME is the new default's
profile (the per-program tables keep both).

The corpus table ends with the geometric means over each half of the
cross-validation split (HALVES: the tuning half chooses defaults, the
held-out half only reports them), per kind over the programs of that half
that have it and a PGO signal (the others are named as left out): the
geometric mean of the estcyc speedups (each program's
mean over its recordings) and its share of instrumented PGO's geometric
mean gain, 100*(G-1)/(G_instr-1), over the same programs. A geometric mean
of the shares themselves is not defined: a profile that makes a program
slower than -O2 has a negative share (bzip2's line profiles).
"""
import csv
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgo_stats import read_callgrind  # noqa: E402

KINDS = ["lbr2prof-line", "lbr2prof-cs", "lbr2prof-probe", "lbr2prof-csspgo",
         "profgen-line", "profgen-cs", "profgen-csspgo", "create_llvm_prof"]
SIGNAL = 1.03
# The cross-validation split of issue 22 (README, Results), fixed before
# any tuning run.
HALVES = [("tuning", ["re2", "jq", "gawk"]),
          ("held-out", ["sqlite", "bzip2", "lua"])]


def load(bench, prog):
    d = os.path.join(bench, prog, "cg")
    runs = {}
    if not os.path.isdir(d):
        return runs
    for f in sorted(os.listdir(d)):
        if f.endswith(".cg"):
            r = read_callgrind(os.path.join(d, f))
            if r:
                runs[f[:-3]] = r
    return runs


def program_table(bench, prog):
    """Returns {kind: [share per recording]}, instr speedup, lines, and
    {kind: mean speedup over its recordings}."""
    runs = load(bench, prog)
    lines = []
    if "o2" not in runs or "instr" not in runs:
        return {}, None, ["%s: no o2 or instr measurement yet" % prog], {}
    base = runs["o2"]["estcyc"]
    s_instr = base / runs["instr"]["estcyc"]
    per = {}
    rows = []
    for name, r in runs.items():
        s = base / r["estcyc"]
        share = 100.0 * (s - 1) / (s_instr - 1) if abs(s_instr - 1) > 1e-9 else None
        m = re.match(r"r(\d+)-(.+)$", name)
        rec, kind = (int(m.group(1)), m.group(2)) if m else (None, name)
        rows.append({"program": prog, "name": name, "recording": rec or "",
                     "kind": kind, "Ir": r["Ir"], "mispred": r["mispred"],
                     "L1miss": r["L1miss"], "LLmiss": r["LLmiss"],
                     "estcyc": r["estcyc"], "estcyc_speedup": "%.4f" % s,
                     "pct_of_instr": "" if share is None else "%.1f" % share})
        if rec is not None:
            per.setdefault(kind, {})[rec] = (s, share)
    with open(os.path.join(bench, prog, "result.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    signal = s_instr >= SIGNAL
    lines.append("%s: o2 estcyc %.4g, instr PGO x%.3f%s" % (
        prog, base, s_instr, "" if signal else " (no PGO signal: under 3 %)"))
    lines.append("")
    lines.append("| profile | estcyc speedup, mean (per recording) | % of instr, mean (per recording) |")
    lines.append("|---|---|---|")
    order = [k for k in KINDS if k in per] + sorted(k for k in per if k not in KINDS)
    shares, speedups = {}, {}
    for k in order:
        recs = sorted(per[k])
        sp = [per[k][i][0] for i in recs]
        sh = [per[k][i][1] for i in recs]
        shares[k] = sh
        speedups[k] = statistics.mean(sp)
        lines.append("| %s | %.3f (%s) | %s |" % (
            k, statistics.mean(sp), ", ".join("%.3f" % x for x in sp), fmt_shares(sh)))
    return shares, s_instr, lines, speedups


def geomean_lines(progs, instr, allspeed):
    """The geometric-mean rows, one table per half of the split."""
    out = []
    for half, members in HALVES:
        have_instr = [p for p in members if p in progs and instr.get(p)]
        ps = [p for p in have_instr if instr[p] >= SIGNAL]
        quiet = [p for p in have_instr if instr[p] < SIGNAL]
        if not ps:
            continue
        kinds = [k for k in KINDS if any(k in allspeed[p] for p in ps)]
        kinds += sorted({k for p in ps for k in allspeed[p]} - set(kinds))
        out.append("")
        out.append("Geometric mean over the %s half (%s%s):" % (
            half, ", ".join(ps),
            "; %s left out: no PGO signal" % ", ".join(quiet) if quiet else ""))
        out.append("")
        out.append("| profile | programs | estcyc speedup, geomean | instr PGO, geomean | % of instr's geomean gain |")
        out.append("|---|---|---|---|---|")
        for k in kinds:
            have = [p for p in ps if k in allspeed[p]]
            g = statistics.geometric_mean([allspeed[p][k] for p in have])
            gi = statistics.geometric_mean([instr[p] for p in have])
            share = "%.0f" % (100.0 * (g - 1) / (gi - 1)) if abs(gi - 1) > 1e-9 else ""
            out.append("| %s | %s | %.3f | %.3f | %s |" % (
                k, ", ".join(have) if len(have) < len(ps) else "all %d" % len(ps), g, gi, share))
    return out


def best_kind(shares, prefix):
    """(mean share, kind) of the best of one tool's kinds, or None."""
    means = [(statistics.mean([x for x in v if x is not None]), k)
             for k, v in shares.items()
             if k in KINDS and k.startswith(prefix)
             and any(x is not None for x in v)]
    return max(means) if means else None


def mean_share(shares, kind):
    v = [x for x in shares.get(kind, []) if x is not None]
    return statistics.mean(v) if v else None


def bar_cells(allshares, instr, progs):
    """Issue 22's two bars per program, as the corpus table's last rows:
    (1) lbr2prof's best kind recovers at least llvm-profgen's best's
    share; (2) lbr2prof's CSSPGO is not below its own line profile where
    llvm-profgen's CSSPGO is above llvm-profgen's line profile (the bar
    applies only there). Both compare the mean shares; a program without
    a PGO signal is not judged."""
    first, second = [], []
    for p in progs:
        sh = allshares[p]
        if instr[p] is None or instr[p] < SIGNAL:
            first.append("no PGO signal" if instr[p] is not None else "")
            second.append(first[-1])
            continue
        a, b = best_kind(sh, "lbr2prof-"), best_kind(sh, "profgen-")
        if a and b:
            first.append("%s (%.0f %s %.0f)" % (
                "yes" if a[0] >= b[0] else "no", a[0], ">=" if a[0] >= b[0] else "<", b[0]))
        else:
            first.append("")
        ll, lc = mean_share(sh, "lbr2prof-line"), mean_share(sh, "lbr2prof-csspgo")
        pl, pc = mean_share(sh, "profgen-line"), mean_share(sh, "profgen-csspgo")
        if None in (ll, lc, pl, pc):
            second.append("")
        elif pc <= pl:
            second.append("does not apply (llvm-profgen %.0f <= %.0f)" % (pc, pl))
        else:
            second.append("%s (lbr2prof %.0f %s %.0f; llvm-profgen %.0f > %.0f)" % (
                "holds" if lc >= ll else "fails", lc, ">=" if lc >= ll else "<", ll, pc, pl))
    return first, second


def fmt_shares(sh):
    sh = [x for x in sh if x is not None]
    if not sh:
        return ""
    if len(sh) == 1:
        return "%.0f" % sh[0]
    return "%.0f (%s)" % (statistics.mean(sh), ", ".join("%.0f" % x for x in sh))


def main():
    args, use = sys.argv[1:], {}
    while len(args) >= 2 and args[0] == "--use" and "=" in args[1]:
        k, n = args[1].split("=", 1)
        use[k] = n
        args = args[2:]
    if len(args) < 2 or args[0].startswith("-"):
        sys.exit("usage: corpus_table.py [--use KIND=NAME]... BENCH_DIR PROGRAM...")
    bench, progs = args[0], args[1:]
    allshares, instr, allspeed = {}, {}, {}
    for p in progs:
        shares, s_instr, lines, speedups = program_table(bench, p)
        print("\n".join(lines))
        print()
        for k, n in use.items():
            if n in shares:
                shares[k], speedups[k] = shares.pop(n), speedups.pop(n)
                print("%s: %s is %s here" % (p, k, n))
        allshares[p], instr[p], allspeed[p] = shares, s_instr, speedups
    if len(progs) > 1:
        print("| profile | " + " | ".join(progs) + " |")
        print("|---|" + "---|" * len(progs))
        print("| instr PGO, estcyc speedup | " + " | ".join(
            "" if instr[p] is None else "%.3f%s" % (instr[p], "" if instr[p] >= SIGNAL else " (no PGO signal)")
            for p in progs) + " |")
        for k in KINDS:
            if not any(k in allshares[p] for p in progs):
                continue
            print("| %s | %s |" % (k, " | ".join(fmt_shares(allshares[p].get(k, [])) for p in progs)))
        # Each tool's best kind per program, by its mean share: the kinds
        # only (after --use), never a tuning variant, which a user would
        # not get by default.
        for tool, prefix in (("lbr2prof", "lbr2prof-"), ("llvm-profgen", "profgen-")):
            cells = []
            for p in progs:
                best = best_kind(allshares[p], prefix)
                cell = "%.0f (%s)" % best if best else ""
                # No ranking where instrumented PGO itself gains too
                # little: the shares are noise there (lua).
                if cell and instr[p] is not None and instr[p] < SIGNAL:
                    cell += ", no PGO signal"
                cells.append(cell)
            print("| best of %s | %s |" % (tool, " | ".join(cells)))
        first, second = bar_cells(allshares, instr, progs)
        print("| lbr2prof's best >= llvm-profgen's best | %s |" % " | ".join(first))
        print("| lbr2prof's CSSPGO >= its line where llvm-profgen's CSSPGO > its line | %s |"
              % " | ".join(second))
    print("\n".join(geomean_lines(progs, instr, allspeed)))


if __name__ == "__main__":
    main()
