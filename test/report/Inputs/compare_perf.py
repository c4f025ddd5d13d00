#!/usr/bin/env python3
"""Checks `lbr2prof report` against perf on the same perf.data.

Usage: compare_perf.py REPORT.txt SCRIPT.txt PERFREPORT.txt

REPORT.txt     lbr2prof report --top (all rows) output
SCRIPT.txt     perf script -F brstack: per (from, to) address pair we count
               the entries, their M flags and their cycles ourselves
PERFREPORT.txt perf report -b --stdio -n: entries per (source symbol,
               target symbol), summed over its basic-block-cycles rows, and
               the total event count (symbol pairs of the program's own functions)

Symbols at one address (static glibc's sbrk and __sbrk) may be named by
either alias, so names are compared without leading underscores.

Every branch row of the report must equal perf script's count, mispredict
count and mean cycles for its pair; every pair must be in the report; the
report's order must be by count; per-symbol-pair sums and the total must
equal perf report's. Prints one summary line; exits 1 on a difference.
"""
import re
import sys
from collections import defaultdict

report, script, perfrep = sys.argv[1:4]
fail = []

# perf script: our own count of the brstack entries.
pairs = defaultdict(lambda: [0, 0, 0])
for line in open(script):
    for tok in line.split():
        f = tok.split('/')
        if len(f) < 6 or not f[0].startswith('0x'):
            continue
        p = pairs[(int(f[0], 16), int(f[1], 16))]
        p[0] += 1
        p[1] += f[2] == 'M'
        p[2] += int(f[5])
total_script = sum(p[0] for p in pairs.values())

def base(name):
    return (name or '?').split('+')[0].lstrip('_')


def program_pair(k):
    # Symbol pairs are compared for the program's own functions: in the
    # static C library, perf and the ELF symbol table we read may pick
    # different symbols for one address (e.g. a second entry point inside
    # memmove), which the address-level comparison above covers anyway.
    return all(n == 'main' or n.startswith('t_') for n in k)


# Our report: the hot-branch table.
row = re.compile(r'^\s+(\d+)\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+([\d.]+|-)\s+'
                 r'0x([0-9a-f]+)(?: (\S+\+0x[0-9a-f]+))?(?: \S+:\d+)? -> '
                 r'0x([0-9a-f]+)(?: (\S+\+0x[0-9a-f]+))?')
ours = {}
order = []
entries = None
section = False
funcs = defaultdict(int)
for line in open(report):
    m = re.match(r'^samples: \d+ .*branch entries: (\d+)', line)
    if m:
        entries = int(m.group(1))
    if line.startswith('Hot taken branches'):
        section = True
        continue
    if section and line.startswith('note:'):
        section = False
    m = row.match(line) if section else None
    if not m:
        continue
    cnt, mis = int(m.group(1)), int(m.group(2))
    frm, to = int(m.group(4), 16), int(m.group(6), 16)
    ours[(frm, to)] = (cnt, mis, m.group(3))
    order.append(cnt)
    funcs[(base(m.group(5)), base(m.group(7)))] += cnt

for k, (cnt, mis, cyc) in ours.items():
    p = pairs.get(k)
    if not p:
        fail.append('report pair %x->%x not in perf script' % k)
        continue
    if (cnt, mis) != (p[0], p[1]):
        fail.append('%x->%x: report %d/%d M, perf script %d/%d M'
                    % (k[0], k[1], cnt, mis, p[0], p[1]))
    if cyc != '%.1f' % (p[2] / p[0]):
        fail.append('%x->%x: cycles %s, perf script %.1f'
                    % (k[0], k[1], cyc, p[2] / p[0]))
for k in pairs:
    if k not in ours:
        fail.append('perf script pair %x->%x missing from report' % k)
if order != sorted(order, reverse=True):
    fail.append('report rows are not ordered by count')
if entries != total_script:
    fail.append('entries: report %s, perf script %d' % (entries, total_script))

# perf report -b -n.
perf_funcs = defaultdict(int)
perf_total = None
for line in open(perfrep):
    m = re.match(r'^# Event count \(approx\.\): (\d+)', line)
    if m:
        perf_total = int(m.group(1))
    m = re.match(r'^\s+[\d.]+%\s+(\d+)\s+\S+\s+\S+\s+\[\.\] (\S+)\s+\[\.\] (\S+)',
                 line)
    if m:
        perf_funcs[(base(m.group(2)), base(m.group(3)))] += int(m.group(1))
if perf_total != entries:
    fail.append('entries: report %s, perf report %s' % (entries, perf_total))
perf_funcs = {k: v for k, v in perf_funcs.items() if program_pair(k)}
funcs = {k: v for k, v in funcs.items() if program_pair(k)}
if perf_funcs != funcs:
    for k in sorted(set(perf_funcs) | set(funcs)):
        if perf_funcs.get(k) != funcs.get(k):
            fail.append('%s -> %s: report %s, perf report %s'
                        % (k[0], k[1], funcs.get(k), perf_funcs.get(k)))

for f in fail[:20]:
    print('MISMATCH:', f)
print('agree: %d branch pairs, %d symbol pairs, %d entries, %d mispredicted'
      % (len(ours), len(funcs), entries or 0,
         sum(v[1] for v in ours.values())) if not fail
      else 'differences: %d' % len(fail))
sys.exit(1 if fail else 0)
