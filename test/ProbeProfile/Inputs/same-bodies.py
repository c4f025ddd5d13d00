#!/usr/bin/env python3
"""Compares the body lines of two text probe profiles, llvm-profgen's first
and lbr2prof's second, line for line.

Usage: same-bodies.py PROFGEN.body OURS.body

Lines must be equal, but for the one difference both tools document: on a
call probe (a line with call targets) llvm-profgen raises the count to the
sum of its targets, lbr2prof keeps the executions the ranges show; so ours
may be lower there, when llvm-profgen's equals the targets' sum. (Which
calls that hits depends on where samples fall: a call that is the oldest
entry of a branch stack has no range ending at it.) Prints
"same: N lines, K call counts raised by llvm-profgen" or the first
difference, and exits 1 on a difference.
"""
import re
import sys

LINE = re.compile(r"^(\s*)([0-9.]+): (\d+)((?: \S+:\d+)*)\s*$")


def main():
    theirs = open(sys.argv[1]).read().splitlines()
    ours = open(sys.argv[2]).read().splitlines()
    if len(theirs) != len(ours):
        sys.exit("%d lines against %d" % (len(theirs), len(ours)))
    raised = 0
    for n, (t, o) in enumerate(zip(theirs, ours), 1):
        if t == o:
            continue
        mt, mo = LINE.match(t), LINE.match(o)
        ok = False
        if mt and mo and mt.group(1, 2, 4) == mo.group(1, 2, 4) and mt.group(4):
            targets = sum(int(x.rsplit(":", 1)[1]) for x in mt.group(4).split())
            ok = int(mo.group(3)) < int(mt.group(3)) == targets
        if not ok:
            sys.exit("line %d differs: %r against %r" % (n, t, o))
        raised += 1
    print("same: %d lines, %d call counts raised by llvm-profgen" %
          (len(theirs), raised))


main()
