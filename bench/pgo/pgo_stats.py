#!/usr/bin/env python3
"""bench/pgo/pgo_stats.py: summarize measure.sh's raw results.

Reads DIR/round*.json (hyperfine --export-json, one run of every binary per
round, rounds interleaved) and DIR/NAME.cg (callgrind with --cache-sim and
--branch-sim), and prints one row per binary:

  wall     median wall-clock seconds over the rounds, and its spread
           (interquartile range as % of the median)
  cpu      median user+system seconds (hyperfine's per-run user/system)
  Ir       instructions executed (callgrind)
  mispred  Bcm + Bim: mispredicted conditional and indirect branches
  L1miss   I1mr + D1mr + D1mw;  LLmiss  ILmr + DLmr + DLmw
  estcyc   Ir + 10*mispred + 10*L1miss + 100*LLmiss, a deterministic
           cycle estimate (flat penalties; callgrind's simulated caches
           are set by measure.sh, not taken from the host)

Speedups are BASE/x of wall and of estcyc, BASE the first name. With
--ref NAME each row also says its gain as a percentage of NAME's gain:
100*(speedup-1)/(speedup_ref-1). Writes a CSV with --csv.

With rounds, a second table pairs each binary's run with BASE's run of the
same round (a slow spell of the machine hits both): the speedup is the
median of the rounds' BASE/x ratios (the median: this VM's slow spells
make a run up to 1.7x slower, and a mean follows them), %ref the same
for NAME's; each with a 95% interval, a bootstrap over the rounds (2,000
resamples, fixed seed, 2.5th and 97.5th percentiles). A speedup whose interval excludes 1 is a gain (or a loss)
the wall clock confirms; BASE's second copy (o2-again) shows how wide
"no difference" is.
usage: pgo_stats.py DIR NAME... [--ref NAME] [--csv FILE]
"""
import argparse
import csv
import glob
import json
import os
import random
import statistics
import sys


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def read_rounds(d):
    """Per name, its wall times and CPU times, and per round {name: wall}."""
    wall, cpu, rounds = {}, {}, []
    for path in sorted(glob.glob(os.path.join(d, "round*.json"))):
        with open(path) as f:
            one = {}
            for r in json.load(f)["results"]:
                name = r["command"]
                wall.setdefault(name, []).extend(r["times"])
                # One run per round, so user/system are that run's.
                cpu.setdefault(name, []).append(r["user"] + r["system"])
                one[name] = statistics.mean(r["times"])
            rounds.append(one)
    return wall, cpu, rounds


def paired(rounds, base, name, ref):
    """name's speedup over base, paired by round: the median of the rounds'
    base/name ratios, with a 95% bootstrap interval; and its gain as % of
    ref's (ref's speedup the median of its own ratios in the same resample)."""
    both = [r for r in rounds if base in r and name in r and (not ref or ref in r)]
    if len(both) < 2:
        return None
    n = len(both)
    mine = [r[base] / r[name] for r in both]
    refs = [r[base] / r[ref] for r in both] if ref else None

    def stats(ix):
        s = statistics.median(mine[i] for i in ix)
        p = pct_of(s, statistics.median(refs[i] for i in ix)) if ref and ref != name else None
        return s, p
    rng = random.Random(1)
    boot = [stats([rng.randrange(n) for _ in range(n)]) for _ in range(2000)]
    s, p = stats(range(n))
    out = {"n": n, "speedup": s, "lo": quantile([b[0] for b in boot], .025),
           "hi": quantile([b[0] for b in boot], .975)}
    shares = [b[1] for b in boot if b[1] is not None]
    if p is not None and shares:
        out.update(pct=p, pct_lo=quantile(shares, .025), pct_hi=quantile(shares, .975))
    return out


def read_callgrind(path):
    events, totals = None, None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:") or line.startswith("totals:"):
                totals = [int(x) for x in line.split()[1:]]
    if not events or not totals:
        return None
    c = dict(zip(events, totals))
    g = lambda *ks: sum(c.get(k, 0) for k in ks)
    r = {"Ir": g("Ir"), "mispred": g("Bcm", "Bim"),
         "L1miss": g("I1mr", "D1mr", "D1mw"), "LLmiss": g("ILmr", "DLmr", "DLmw")}
    r["estcyc"] = r["Ir"] + 10 * r["mispred"] + 10 * r["L1miss"] + 100 * r["LLmiss"]
    return r


def pct_of(s, ref):
    if s is None or ref is None or abs(ref - 1) < 1e-9:
        return None
    return 100.0 * (s - 1) / (ref - 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--ref")
    ap.add_argument("--csv")
    a = ap.parse_args()
    wall, cpu, rounds = read_rounds(a.dir)
    rows = []
    for n in a.names:
        r = {"name": n}
        w = wall.get(n, [])
        if w:
            med = statistics.median(w)
            r.update(wall_s=med, wall_iqr_pct=100 * (quantile(w, .75) - quantile(w, .25)) / med,
                     wall_runs=len(w), cpu_s=statistics.median(cpu[n]))
        cg = os.path.join(a.dir, n + ".cg")
        if os.path.exists(cg):
            c = read_callgrind(cg)
            if c:
                r.update(c)
        rows.append(r)
    base = rows[0]
    for r in rows:
        for k, sk in (("wall_s", "wall_speedup"), ("cpu_s", "cpu_speedup"),
                      ("estcyc", "estcyc_speedup")):
            if k in r and k in base:
                r[sk] = base[k] / r[k]
    if a.ref:
        ref = next((r for r in rows if r["name"] == a.ref), None)
        for r in rows:
            for sk in ("wall_speedup", "cpu_speedup", "estcyc_speedup"):
                p = pct_of(r.get(sk), ref.get(sk) if ref else None)
                if p is not None:
                    r[sk.replace("speedup", "pct_of_ref")] = p

    def f(r, k, fmt):
        v = r.get(k)
        return fmt % v if v is not None else "-"
    hdr = ("%-18s %8s %6s %8s %8s %6s %14s %11s %11s %10s %14s %8s %6s" %
           ("binary", "wall s", "iqr%", "speedup", "cpu s", "%ref", "Ir", "mispred",
            "L1miss", "LLmiss", "estcyc", "speedup", "%ref"))
    print(hdr)
    for r in rows:
        print("%-18s %8s %6s %8s %8s %6s %14s %11s %11s %10s %14s %8s %6s" % (
            r["name"], f(r, "wall_s", "%.3f"), f(r, "wall_iqr_pct", "%.1f"),
            f(r, "wall_speedup", "%.3f"), f(r, "cpu_s", "%.3f"),
            f(r, "wall_pct_of_ref", "%.0f"), f(r, "Ir", "%d"), f(r, "mispred", "%d"),
            f(r, "L1miss", "%d"), f(r, "LLmiss", "%d"), f(r, "estcyc", "%d"),
            f(r, "estcyc_speedup", "%.3f"), f(r, "estcyc_pct_of_ref", "%.0f")))
    print("(speedup = %s/x; %%ref = gain as %% of %s's; estcyc = Ir + 10*(Bcm+Bim) "
          "+ 10*(I1mr+D1mr+D1mw) + 100*(ILmr+DLmr+DLmw))" % (base["name"], a.ref or "-"))
    if rounds and len(rounds) >= 2:
        print()
        print("paired by round against %s (%d rounds): speedup = median of %s/x, "
              "%%ref of the medians; 95%% bootstrap intervals" % (base["name"], len(rounds),
                                                                base["name"]))
        print("%-18s %8s %19s %6s %15s %s" % ("binary", "speedup", "95% interval", "%ref",
                                               "95% interval", "verdict"))
        for r in rows[1:]:
            p = paired(rounds, base["name"], r["name"], a.ref)
            if not p:
                continue
            r.update(paired_speedup=p["speedup"], paired_lo=p["lo"], paired_hi=p["hi"],
                     paired_pct=p.get("pct"), paired_pct_lo=p.get("pct_lo"),
                     paired_pct_hi=p.get("pct_hi"))
            verdict = ("faster" if p["lo"] > 1 else "slower" if p["hi"] < 1
                       else "no difference shown")
            pct = ("%.0f" % p["pct"]) if p.get("pct") is not None else "-"
            pci = ("[%.0f, %.0f]" % (p["pct_lo"], p["pct_hi"])) if "pct_lo" in p else "-"
            print("%-18s %8.4f  [%.4f, %.4f] %6s %15s %s" % (
                r["name"], p["speedup"], p["lo"], p["hi"], pct, pci, verdict))
    if a.csv:
        keys = ["name", "wall_s", "wall_iqr_pct", "wall_runs", "wall_speedup", "wall_pct_of_ref",
                "paired_speedup", "paired_lo", "paired_hi", "paired_pct", "paired_pct_lo",
                "paired_pct_hi",
                "cpu_s", "cpu_speedup", "cpu_pct_of_ref", "Ir", "mispred", "L1miss",
                "LLmiss", "estcyc", "estcyc_speedup", "estcyc_pct_of_ref"]
        with open(a.csv, "w", newline="") as fh:
            wr = csv.DictWriter(fh, keys, extrasaction="ignore")
            wr.writeheader()
            for r in rows:
                wr.writerow({k: (round(v, 5) if isinstance(v, float) else v)
                             for k, v in r.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
