#!/usr/bin/env python3
"""Prints how the branch_weights of the first weighted conditional branch in
FUNCTION of an LLVM IR file compare: "FUNC: hot side Nx the cold side,
hot >= 8x: yes|no". usage: branch_weights.py FILE.ll FUNCTION"""
import re
import sys

ir = open(sys.argv[1]).read()
func = sys.argv[2]
body = re.search(r"define [^@]*@%s\(.*?\n}\n" % re.escape(func), ir, re.S)
if not body:
    sys.exit("no function %s" % func)
m = re.search(r"br i1 .*!prof !(\d+)", body.group(0))
if not m:
    sys.exit("no weighted branch in %s" % func)
w = re.search(r"^!%s = !\{!\"branch_weights\", (?:!\"[^\"]*\", )?i32 (\d+), i32 (\d+)\}" % m.group(1), ir, re.M)
if not w:
    sys.exit("no branch_weights metadata !%s" % m.group(1))
a, b = int(w.group(1)), int(w.group(2))
hot, cold = max(a, b), max(min(a, b), 1)
print("%s: hot side %dx the cold side, hot >= 8x: %s" % (func, hot // cold, "yes" if hot >= 8 * cold else "no"))
