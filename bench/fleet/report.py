#!/usr/bin/env python3
"""Summary of bench/fleet/run.sh: per-way map, reduce and end-to-end times,
ratios against the fleet run, throughputs, sizes and peak memory."""
import os
import sys

w = sys.argv[1]
rows = {}
with open(os.path.join(w, "t", "stamps")) as f:
    for line in f:
        p = line.split()
        if len(p) == 5 and not line.startswith("Command"):
            rows[p[0]] = (float(p[1]), float(p[2]) + float(p[3]), int(p[4]))


def size(d):
    return sum(os.path.getsize(os.path.join(d, n)) for n in os.listdir(d))


nfiles = len(os.listdir(os.path.join(w, "in")))
data = size(os.path.join(w, "in"))
raw = size(os.path.join(w, "raw"))
worker = 0
with open(os.path.join(w, "t", "worker-rss")) as f:
    for line in f:
        if line.strip().isdigit():
            worker = max(worker, int(line))

print("files %d, perf.data %.1f MB (%.0f KB each)" %
      (nfiles, data / 1e6, data / nfiles / 1e3))
print("raw profiles %.2f MB (%.1f KB each): 1/%.0f of the perf.data; merged "
      "%.1f KB" % (raw / 1e6, raw / nfiles / 1e3, data / raw,
                   os.path.getsize(os.path.join(w, "merged.lbrraw")) / 1e3))
print()
print("%-12s %9s %9s %9s" % ("step", "wall s", "CPU s", "peak MB"))
for k in ("fleet", "fleet-prof", "map", "merge", "one", "one-prof",
          "perf2bolt", "merge-fdata", "profgen", "profdata"):
    if k in rows:
        e, c, m = rows[k]
        print("%-12s %9.2f %9.2f %9.1f" % (k, e, c, m / 1024))
print("%-12s %9s %9s %9.1f" % ("dask worker", "", "", worker / 1024))
print()
g = lambda k: rows[k][0]
c = lambda k: rows[k][1]
ways = {
    "fleet (Dask, end to end)": (g("fleet") + g("fleet-prof"),
                                 c("fleet") + c("fleet-prof")),
    "lbr2prof map + merge": (g("map") + g("merge") + g("fleet-prof"),
                             c("map") + c("merge") + c("fleet-prof")),
    "one lbr2prof process": (g("one-prof"), c("one-prof")),
    "perf2bolt + merge-fdata": (g("perf2bolt") + g("merge-fdata"),
                                c("perf2bolt") + c("merge-fdata")),
    "llvm-profgen + profdata": (g("profgen") + g("profdata"),
                                c("profgen") + c("profdata")),
}
base = ways["fleet (Dask, end to end)"]
print("%-26s %8s %8s %10s %10s" % ("end to end (to a profile)", "wall s",
                                   "CPU s", "wall/fleet", "CPU/fleet"))
for k, (e, cpu) in ways.items():
    print("%-26s %8.2f %8.2f %10.2f %10.2f" % (k, e, cpu, e / base[0],
                                               cpu / base[1]))
print()
print("map per file (CPU ms): lbr2prof %.0f, perf2bolt %.0f, llvm-profgen %.0f"
      % (1e3 * c("map") / nfiles, 1e3 * c("perf2bolt") / nfiles,
         1e3 * c("profgen") / nfiles))
print("reduce of %d files: lbr2prof merge %.2f s (%.0f files/s, %.1f MB/s of "
      "raw profiles), merge-fdata %.2f s, llvm-profdata merge %.2f s" %
      (nfiles, g("merge"), nfiles / g("merge"), raw / 1e6 / g("merge"),
       g("merge-fdata"), g("profdata")))
print("one process reads %.0f MB/s of perf.data (%.0f files/s)" %
      (data / 1e6 / g("one"), nfiles / g("one")))
