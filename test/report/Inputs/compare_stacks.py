#!/usr/bin/env python3
"""Compares the report's call tree with perf's call stacks.

Usage: compare_stacks.py REPORT.json PERF-SCRIPT.txt NM.txt

PERF-SCRIPT.txt is `perf script -F ip,sym` of a recording with call
stacks: per sample, one "ADDR SYMBOL" line per frame, innermost first,
samples separated by blank lines. NM.txt is `llvm-nm` of the binary: the
comparison keeps the frames of the binary's own functions (other files'
symbols are named differently by perf and by us), so each sample becomes
the path of the binary's functions it was in, outermost first. The
report's tree (REPORT.json's call_tree) gives the same paths, each node's
self samples counting for the path to it. Prints "agree: N samples, K
paths" or every path whose counts differ.
"""
import json
import sys

report, script, nm = sys.argv[1:4]
funcs = set()
for line in open(nm):
    parts = line.split()
    if len(parts) == 3 and parts[1] in 'tTwW':
        funcs.add(parts[2])

perf = {}
frames = []


def flush():
    if frames:
        path = ';'.join(f for f in reversed(frames) if f in funcs)
        perf[path] = perf.get(path, 0) + 1
        frames.clear()


for line in open(script):
    if not line.strip():
        flush()
        continue
    parts = line.split()
    sym = parts[1] if len(parts) > 1 else '[unknown]'
    frames.append(sym.split('+')[0])
flush()

tree = json.load(open(report))['call_tree']
assert tree['source'] == 'call-stacks', tree['source']
nodes = tree['nodes']
ours = {}
for i, n in enumerate(nodes):
    if not n['self']:
        continue
    names = []
    k = i
    while k > 0:
        names.append(nodes[k]['name'])
        k = nodes[k]['parent']
    path = ';'.join(f for f in reversed(names) if f in funcs)
    ours[path] = ours.get(path, 0) + n['self']

bad = [(p, perf.get(p, 0), ours.get(p, 0)) for p in sorted(set(perf) | set(ours))
       if perf.get(p, 0) != ours.get(p, 0)]
for p, a, b in bad:
    print('differ: %r perf %d report %d' % (p, a, b))
if bad:
    sys.exit(1)
print('agree: %d samples, %d paths' % (sum(perf.values()), len(perf)))
for p in sorted(perf, key=lambda p: (-perf[p], p)):
    print('  %d %s' % (perf[p], p or '(none)'))
