#!/usr/bin/env python3
"""Compares which mapped file (DSO) each sample is attributed to, by perf
script (the judge) and by lbr2prof, over perf.data files.

For each file, perf script's dso column is counted per DSO; so are
`lbr2prof dump --summary`'s "samples per dso" table and the profile path's
(`lbr2prof FILE --dump=dsos`, the aggregation every output and `report`
use) with -j 1, 2 and 4. The counts must be equal, DSO by DSO. Names are
put in perf's form first: `[kernel.kallsyms]_text` is `[kernel.kallsyms]`,
a kernel module `/lib/modules/.../nf_conntrack-ipv6.ko` is
`[nf_conntrack_ipv6]`, and perf's name for anonymous executable memory,
`/tmp/perf-PID.map` (where JITs write their symbols), is the mapping's
own, `//anon`.

The whole aggregation, `lbr2prof FILE --dump=raw` (branches, ranges and
contexts of every mapped file), must also be byte-identical for -j 1, 2
and 4.

Files perf script refuses are skipped (and counted). Prints one line per
difference, naming the file, the DSO and both counts, then a summary
line; exits 1 if anything differs.

usage: dso-vs-perf.py LBR2PROF FILE_OR_DIR...
"""
import collections
import os
import re
import subprocess
import sys


def perf_name(path):
    if path.startswith("[kernel.kallsyms]"):
        return "[kernel.kallsyms]"
    if re.match(r"/tmp/perf-\d+\.map$", path):
        return "//anon"
    m = re.match(r".*/([^/]+)\.ko(\.[a-z]+)?$", path)
    if m:
        return "[" + m.group(1).replace("-", "_") + "]"
    return path


def perf_counts(path):
    """perf script's samples per DSO, or None if perf cannot read the file."""
    p = subprocess.run(["perf", "script", "-i", path, "-F", "ip,dso",
                        "--hide-call-graph", "--itrace="],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, PERF_PAGER="cat"))
    if p.returncode != 0:
        return None
    counts = collections.Counter()
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        m = re.match(r"\s*[0-9a-f]+\s+\((.*)\)\s*$", line)
        if m:
            counts[perf_name(m.group(1))] += 1
    return counts


def table_counts(text):
    """The "samples per dso:" table of lbr2prof's output."""
    counts = collections.Counter()
    rows = text.split("samples per dso:\n", 1)
    if len(rows) < 2:
        return counts
    for line in rows[1].splitlines():
        m = re.match(r"\s+(\d+)  (.*)$", line)
        if not m:
            break
        counts[perf_name(m.group(2))] += int(m.group(1))
    return counts


def lbr2prof_counts(tool, args):
    p = subprocess.run([tool] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None, p.stderr.decode("utf-8", "replace").strip()
    return table_counts(p.stdout.decode("utf-8", "replace")), ""


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tool = sys.argv[1]
    files = []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg))
        else:
            files.append(arg)
    same = differ = skipped = 0
    for path in files:
        name = os.path.basename(path)
        want = perf_counts(path)
        if want is None:
            skipped += 1
            continue
        ok = True
        routes = [("dump --summary", ["dump", "--summary", path])]
        if sum(want.values()):
            routes += [("--dump=dsos -j%d" % j,
                        [path, "--dump=dsos", "-j", str(j)]) for j in (1, 2, 4)]
        for route, args in routes:
            got, err = lbr2prof_counts(tool, args)
            if got is None:
                print("%s: %s: lbr2prof failed: %s" % (name, route, err))
                ok = False
                continue
            for dso in sorted(set(want) | set(got)):
                if want[dso] != got[dso]:
                    print("%s: %s: %s: perf script %d, lbr2prof %d" %
                          (name, route, dso, want[dso], got[dso]))
                    ok = False
        raws = set()
        for j in (1, 2, 4):
            p = subprocess.run([tool, path, "--dump=raw", "-j", str(j)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            raws.add((p.returncode, p.stdout, p.stderr))
        if len(raws) != 1:
            print("%s: --dump=raw differs between -j 1, 2 and 4" % name)
            ok = False
        if ok:
            same += 1
        else:
            differ += 1
    print("%d files: %d attributed as perf script does, %d differ, %d "
          "refused by perf script" % (len(files), same, differ, skipped))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
