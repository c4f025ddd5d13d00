#!/usr/bin/env python3
"""Compares the report's annotated instructions with llvm-objdump's.

Usage: compare_objdump.py REPORT.json OBJDUMP.txt

REPORT.json holds `annotated` functions; OBJDUMP.txt is `llvm-objdump -d
--no-show-raw-insn` of the same binary. Each instruction's text, blanks
collapsed and the trailing <symbol> dropped, must equal objdump's at the
same address (objdump's "# 0xADDR" comment after a RIP-relative operand,
which our printer does not write, is dropped). Prints "agree: N instructions" or each difference.
"""
import json
import re
import sys

def norm(t):
    t = re.sub(r'\s*#.*$', '', t)
    t = re.sub(r'\s*<[^>]*>\s*$', '', t)
    return re.sub(r'\s+', ' ', t).strip()

objdump = {}
for line in open(sys.argv[2]):
    m = re.match(r'\s*([0-9a-f]+):\s+(.*)$', line)
    if m:
        objdump[int(m.group(1), 16)] = norm(m.group(2))
n, bad = 0, 0
for f in json.load(open(sys.argv[1]))['annotated']:
    for i in f['instructions']:
        a = int(i['address'], 16)
        ours = norm(i['text'])
        n += 1
        if objdump.get(a) != ours:
            bad += 1
            print('differ at %x: report %r objdump %r' % (a, ours, objdump.get(a)))
if bad or not n:
    sys.exit(1)
print('agree: %d instructions' % n)
