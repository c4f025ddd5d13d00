#!/usr/bin/env python3
"""Finds, in function FUNC of an LLVM IR file, the conditional branch on
`(x & 15) == 0` and prints its branch_weights as
"FUNC: (x & 15) == 0: taken T, not taken N, ratio R" (R = N / T, rounded
down). usage: rare-branch.py FILE.ll FUNC"""
import re
import sys

ir = open(sys.argv[1]).read()
func = sys.argv[2]
body = re.search(r"define [^@]*@%s\(.*?\n}\n" % re.escape(func), ir, re.S)
if not body:
    sys.exit("no function %s" % func)
body = body.group(0)
ands = set(re.findall(r"(%\w+) = and i32 %\w+, 15\b", body))
cmps = set(v for v, a in re.findall(r"(%\w+) = icmp eq i32 (%\w+), 0\b", body)
           if a in ands)
for cond, md in re.findall(r"br i1 (%\w+), label %\w+, label %\w+.*!prof !(\d+)",
                           body):
    if cond in cmps:
        w = re.search(r'^!%s = !\{!"branch_weights", (?:!"[^"]*", )?'
                      r"i32 (\d+), i32 (\d+)\}" % md, ir, re.M)
        if not w:
            sys.exit("no branch_weights metadata !%s" % md)
        t, n = int(w.group(1)), int(w.group(2))
        print("%s: (x & 15) == 0: taken %d, not taken %d, ratio %d"
              % (func, t, n, n // max(t, 1)))
        sys.exit(0)
sys.exit("no weighted branch on (x & 15) == 0 in %s" % func)
