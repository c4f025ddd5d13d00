#!/usr/bin/env python3
"""Checks `lbr2prof dump` against `perf script` on every perf.data the
project's text inputs can make: each split-file section of the given lit
tests that text2perfdata accepts becomes a perf.data (file mode as written,
and the same description in pipe mode), then
  perf script -F pid,ip,brstack --show-mmap-events --show-task-events -i F
  lbr2prof dump --show-mmap-events --show-task-events F
must print the same tokens line by line. Descriptions that text2perfdata
rejects (error tests) or that perf itself cannot read are skipped and
counted. Exits 1 on any mismatch or if nothing was compared.

usage: dump-vs-perf.py [--lbr2prof PATH] [--text2perfdata PATH] TEST...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

def sections(path):
    out, name, lines = [], None, []
    for line in open(path, errors="replace"):
        m = re.match(r"^#--- (\S+)", line)
        if m:
            if name:
                out.append((name, "".join(lines)))
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name:
        out.append((name, "".join(lines)))
    return out

def tokens(text):
    # perf 6.1 prints an "[unknown]" symbol column in pipe mode for events
    # with branch stacks (its own quirk; nothing in the data says so).
    return [[t for t in l.split() if t != "[unknown]"]
            for l in text.splitlines() if l.strip()]

def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lbr2prof", default="lbr2prof")
    ap.add_argument("--text2perfdata", default="text2perfdata")
    ap.add_argument("tests", nargs="+")
    a = ap.parse_args()
    compared = skipped_gen = skipped_perf = 0
    failures = []
    with tempfile.TemporaryDirectory() as d:
        for t in a.tests:
            for name, body in sections(t):
                if not name.endswith(".txt") or "header mode=" in body and "validate=0" in body:
                    continue
                for mode in ("as-written", "pipe"):
                    src = body
                    if mode == "pipe":
                        if "header" in body or "compress" in body:
                            continue
                        src = "header mode=pipe\n" + body
                    txt = os.path.join(d, "in.txt")
                    data = os.path.join(d, "in.data")
                    open(txt, "w").write(src)
                    if run([a.text2perfdata, txt, "-o", data]).returncode != 0:
                        skipped_gen += 1
                        continue
                    flags = ["--show-mmap-events", "--show-task-events"]
                    p = None
                    for fields in ("pid,ip,brstack", "pid,ip"):
                        p = run(["perf", "script", "-F", fields] + flags + ["-i", data])
                        if p.returncode == 0:
                            break
                    if p.returncode != 0:
                        skipped_perf += 1
                        continue
                    o = run([a.lbr2prof, "dump"] + flags + [data])
                    what = "%s:%s (%s)" % (os.path.basename(t), name, mode)
                    if o.returncode != 0:
                        failures.append("%s: lbr2prof failed: %s" % (what, o.stderr.strip()))
                        continue
                    # perf script prints other side-band records we do not
                    # render (e.g. LOST, THROTTLE); compare the ones we do.
                    e = [l for l in tokens(p.stdout) if len(l) < 2 or not l[1].startswith("PERF_RECORD_") or
                         l[1].startswith(("PERF_RECORD_MMAP", "PERF_RECORD_COMM", "PERF_RECORD_FORK", "PERF_RECORD_EXIT"))]
                    g = tokens(o.stdout)
                    if e != g:
                        for i, (x, y) in enumerate(zip(e + [[]] * len(g), g + [[]] * len(e))):
                            if x != y:
                                failures.append("%s: line %d\n  perf:     %s\n  lbr2prof: %s"
                                                % (what, i + 1, " ".join(x), " ".join(y)))
                                break
                    compared += 1
    for f in failures:
        print("MISMATCH " + f)
    print("compared %d inputs, %d mismatches (skipped: %d not accepted by "
          "text2perfdata, %d not readable by perf)" %
          (compared, len(failures), skipped_gen, skipped_perf))
    return 1 if failures or not compared else 0

if __name__ == "__main__":
    sys.exit(main())
