#!/usr/bin/env python3
"""Compares the report (text and HTML page) from a merged raw profile with
the report from the recordings: RAW.txt RAW.html REC.txt REC.html.

Lines naming the inputs differ, and so does the call tree, which raw
profiles cannot give (they keep no call or branch stacks): the text's
"Call tree" section (to the next blank line or the end) and the page's
flame-graph section (to the "Annotated functions" heading) are left out.
Prints "N lines the same" or "DIFFER".
"""
import sys


def keep(path):
    out, skip = [], False
    for line in open(path):
        if line.startswith('Call tree') or line.startswith('<h2 id=flamegraph>'):
            skip = True
        elif skip and (not line.strip() or line.startswith('<h2 id=annotated>')):
            skip = False
        if not skip and 'abc-r.lbrraw' not in line and 'b.data' not in line:
            out.append(line)
    return out


r = [keep(f) for f in sys.argv[1:5]]
same = r[0] == r[2] and r[1] == r[3] and len(r[0]) > 50
print(len(r[0]), 'lines the same' if same else 'DIFFER')
