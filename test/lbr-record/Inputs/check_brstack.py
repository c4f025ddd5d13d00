#!/usr/bin/env python3
"""Check perf script's branch stacks against an lbr-record truth file.

Reads `perf script -F pid,ip,brstack` text on stdin and the truth file, and
checks that every recorded branch (from, to) is a branch the truth counted,
and that every fall-through between two consecutive entries,
[entry[i].to, entry[i-1].from], is a straight-line range the truth counted
(so no entry was invented, lost or reordered). Prints a summary; exits 1 on
any disagreement.

Usage: perf script -F pid,ip,brstack -i perf.data | check_brstack.py TRUTH
"""

import sys


def read_truth(path):
    branches, ranges, samples = {}, set(), 0
    pid = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "process":
                pid = int(w[1])
            elif w[0] == "samples":
                samples += int(w[1])
            elif w[0] == "branch":
                branches.setdefault(pid, set()).add((int(w[1], 16),
                                                     int(w[2], 16)))
            elif w[0] == "range":
                ranges.add((pid, int(w[1], 16), int(w[2], 16)))
    return branches, ranges, samples


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    branches, ranges, want_samples = read_truth(sys.argv[1])
    allbr = set().union(*branches.values()) if branches else set()
    nsamples = nentries = nranges = 0
    bad = []
    for line in sys.stdin:
        w = line.split()
        if len(w) < 2:
            continue
        pid = int(w[0])
        nsamples += 1
        entries = []
        for tok in w[2:]:
            p = tok.split("/")
            entries.append((int(p[0], 16), int(p[1], 16)))
        nentries += len(entries)
        # Threads share their process's truth; forked children have their own.
        known = branches.get(pid, allbr)
        for e in entries:
            if e not in known:
                bad.append("sample %d: branch %#x->%#x not in truth" %
                           (nsamples, e[0], e[1]))
        for i in range(1, len(entries)):
            start, end = entries[i][1], entries[i - 1][0]
            nranges += 1
            if not any((p, start, end) in ranges
                       for p in ([pid] if pid in branches else branches)):
                bad.append("sample %d: range %#x-%#x not in truth" %
                           (nsamples, start, end))
    if nsamples != want_samples:
        bad.append("perf script shows %d samples, truth says %d" %
                   (nsamples, want_samples))
    for b in bad[:30]:
        print("MISMATCH " + b)
    print("checked %d samples, %d branch entries, %d fall-through ranges: %s"
          % (nsamples, nentries, nranges,
             "all in truth" if not bad else "%d mismatches" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
