#!/usr/bin/env python3
"""Compares two text files line by line as whitespace-separated tokens, so
that `lbr2prof dump` can be checked against `perf script` (which pads
columns differently). Prints the first difference and exits 1, or prints
"same tokens: N lines" and exits 0. An empty first file is an error (a
comparison of nothing proves nothing).

usage: same-tokens.py EXPECTED ACTUAL
"""
import sys

def lines(path):
    with open(path, errors="replace") as f:
        return [l.split() for l in f if l.strip()]

def main():
    exp, act = lines(sys.argv[1]), lines(sys.argv[2])
    if not exp:
        print("error: %s is empty" % sys.argv[1])
        return 1
    for i, (e, a) in enumerate(zip(exp, act)):
        if e != a:
            print("line %d differs:\n  expected: %s\n  actual:   %s"
                  % (i + 1, " ".join(e), " ".join(a)))
            return 1
    if len(exp) != len(act):
        print("line counts differ: expected %d, actual %d" % (len(exp), len(act)))
        return 1
    print("same tokens: %d lines" % len(exp))
    return 0

if __name__ == "__main__":
    sys.exit(main())
