#!/usr/bin/env python3
"""Checks `lbr2prof dump` against `perf script` on recorded perf.data files
(the real recordings of ../shared/real-perf-data). For each FILE:

  perf script --no-itrace -F pid,ip,brstack --show-mmap-events
      --show-task-events -i FILE
  lbr2prof dump --show-mmap-events --show-task-events FILE

must print the same tokens, line by line (samples, their call chains and
branch stacks, and the MMAP/COMM/FORK/EXIT records perf shows). perf accepts
that field set on every file it reads; an event without BRANCH_STACK prints
no branch column in both. --no-itrace: perf would otherwise decode Intel PT
traces into samples of its own, which no reader of records has.

One rendering of perf 6.1 is perf's own choice, undone here rather than
copied into the dump: a user-space call-chain frame that falls in a mapped
file is printed as its offset in that file (ip - start + pgoff; anonymous
memory such as //anon keeps the address; evsel_fprintf.c, "Show binary offset for userspace addr", dropped in later
perf). The dump prints the frame's address; the check replays the MMAP,
MMAP2 and FORK lines to find the frame's mapping in its process, as perf's
thread maps do, and compares perf's token with that offset.

A file perf refuses must be refused by lbr2prof too, with its one-line
error shown, unless listed with --perf-cannot NAME (a file whose framing we
checked and perf 6.1 fails on by a fault of its own): then lbr2prof must
read it.

Prints one line per file:
  NAME: same (N samples, M lines)            [+ "warning: ..." lines]
  NAME: MISMATCH at sample #K (line L)        [+ the two lines]
  NAME: refused by perf and lbr2prof: error: ...
  NAME: perf refuses it (WHY), lbr2prof reads it (N lines)   [--perf-cannot]
then "compared N files, M mismatches, R refused by both". Exits 1 on any
mismatch.

usage: perfdata-vs-perf.py [--lbr2prof PATH] [--jobs N]
                           [--perf-cannot NAME]... FILE...
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

FLAGS = ["--show-mmap-events", "--show-task-events"]
# Side-band lines perf prints with FLAGS that the dump renders too.
SHOWN = ("PERF_RECORD_MMAP", "PERF_RECORD_COMM", "PERF_RECORD_FORK",
         "PERF_RECORD_EXIT")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True,
                          errors="replace")


def tokens(text):
    # perf 6.1 prints an "[unknown]" symbol column in pipe mode for events
    # with branch stacks (its own quirk; nothing in the data says so).
    out = []
    for l in text.splitlines():
        t = [x for x in l.split() if x != "[unknown]"]
        if t:
            out.append(t)
    return out


MMAP = re.compile(r"PERF_RECORD_MMAP2? (-?\d+)/-?\d+: \[0x([0-9a-f]+)\((?:0x)?([0-9a-f]+)\) @ (?:0x)?([0-9a-f]+)")
ANON = ("//anon", "/dev/zero", "/anon_hugepage", "[stack", "[heap",
        "[vsyscall]")
FORK = re.compile(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)")


def as_perf61(text):
    """Rewrites the dump's user-space call-chain frames the way perf 6.1
    prints them: the offset in the frame's mapped file, found in the maps
    of the sample's process (MMAPs in order, a later one over an earlier
    one; a forked process starts with its parent's maps)."""
    maps = {}
    out = []
    pid = None
    for line in text.splitlines():
        m = MMAP.search(line)
        if m:
            p = int(m.group(1))
            path = line.split("]: ", 1)[-1].split(" ", 1)[-1]
            if p != -1:
                start, size = int(m.group(2), 16), int(m.group(3), 16)
                # perf maps addresses of anonymous memory to themselves
                # (map.c: anon and no-dso maps use identity__map_ip).
                pgoff = int(m.group(4), 16)
                if path.startswith(ANON):
                    pgoff = start
                maps.setdefault(p, []).append((start, start + size, pgoff))
            out.append(line)
            continue
        m = FORK.search(line)
        if m:
            child, parent = int(m.group(1)), int(m.group(2))
            if child != parent:
                maps[child] = list(maps.get(parent, []))
            out.append(line)
            continue
        m = re.match(r"^ *(-?\d+) *$", line)
        if m:
            pid = int(m.group(1))
        m = re.match(r"^\t\s*([0-9a-f]+)$", line)
        if m and pid is not None:
            ip = int(m.group(1), 16)
            for start, end, pgoff in reversed(maps.get(pid, [])):
                if start <= ip < end:
                    line = "\t%x" % (ip - start + pgoff)
                    break
        out.append(line)
    return "\n".join(out)


def is_sample(line):
    """A sample's tokens (its first line, a call-chain frame or its branch
    line), as opposed to a side-band record's."""
    return len(line) < 2 or not line[1].startswith("PERF_RECORD_")


def sample_starts(text):
    """For each non-empty line of the dump, whether it starts a sample (the
    PID column; frames start with a tab, a separate branch line with
    " 0x")."""
    return [bool(re.match(r"^ *-?\d+( |$)", l)) and "PERF_RECORD_" not in l
            for l in text.splitlines() if l.split()]


def check(lbr2prof, path, perf_cannot):
    name = os.path.basename(path)
    p = run(["perf", "script", "--no-itrace", "-F", "pid,ip,brstack"] + FLAGS +
            ["-i", path])
    o = run([lbr2prof, "dump"] + FLAGS + [path])
    notes = [l for l in o.stderr.splitlines() if "warning:" in l]
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or ["?"])[-1]
        if name in perf_cannot:
            if o.returncode != 0:
                return False, ["%s: MISMATCH: lbr2prof failed: %s"
                               % (name, o.stderr.strip())]
            return True, ["%s: perf refuses it (%s), lbr2prof reads it (%d lines)"
                          % (name, why, len(tokens(o.stdout)))] + notes
        if o.returncode == 0:
            return False, ["%s: MISMATCH: perf refuses it (%s), lbr2prof reads it"
                           % (name, why)]
        return True, ["%s: refused by perf and lbr2prof: %s"
                      % (name, o.stderr.strip())]
    if o.returncode != 0:
        return False, ["%s: MISMATCH: lbr2prof failed: %s"
                       % (name, o.stderr.strip())]
    exp = [l for l in tokens(p.stdout) if is_sample(l) or l[1].startswith(SHOWN)]
    ours = as_perf61(o.stdout)
    got = tokens(ours)
    starts = sample_starts(ours)
    samples = 0
    for i in range(max(len(exp), len(got))):
        e = exp[i] if i < len(exp) else None
        g = got[i] if i < len(got) else None
        if i < len(starts) and starts[i]:
            samples += 1
        if e != g:
            what = ("sample #%d" % samples if e is not None and is_sample(e)
                    else "a side-band record")
            if (e is not None and is_sample(e) and g is not None and
                    not is_sample(g)):
                what += " (lbr2prof has a side-band record)"
            return False, ["%s: MISMATCH at %s (line %d)" % (name, what, i + 1),
                           "  perf:     %s" % (" ".join(e) if e else "<end>"),
                           "  lbr2prof: %s" % (" ".join(g) if g else "<end>")] + notes
    if not exp:
        return False, ["%s: MISMATCH: perf printed nothing to compare" % name]
    return True, ["%s: same (%d samples, %d lines)" % (name, samples, len(exp))] + notes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lbr2prof", default="lbr2prof")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--perf-cannot", action="append", default=[])
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda f: check(a.lbr2prof, f, a.perf_cannot),
                              sorted(a.files)))
    bad = refused = 0
    for ok, lines in results:
        print("\n".join(lines))
        bad += not ok
        refused += ok and "refused by perf" in lines[0]
    print("compared %d files, %d mismatches, %d refused by both"
          % (len(results), bad, refused))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
