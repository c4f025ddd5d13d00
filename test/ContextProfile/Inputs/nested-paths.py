#!/usr/bin/env python3
"""Lists the nested profiles of a text sample profile, one line each:
"caller@site/.../callee checksum=C attributes=A" (the path from the
top-level profile, with the call-site location of every step), sorted.

Usage: nested-paths.py PROFILE.txt

Counts are left out: two profilers reading one perf.data agree on which
contexts are nested where, and on the checksums, but not on the scale of
their counts. Top-level profiles are left out too (only nesting is
compared).
"""
import re
import sys

HEAD = re.compile(r"^(\S.*):\d+:\d+$")
NESTED = re.compile(r"^( +)([0-9.]+): (\S+):\d+$")
META = re.compile(r"^( +)!(CFGChecksum|Attributes): (\d+)$")

out = []
stack = []  # (indent, path, meta dict)


def close(to_indent):
    while stack and stack[-1][0] >= to_indent:
        indent, path, meta = stack.pop()
        if indent > 0:
            out.append("%s checksum=%s attributes=%s" % (
                path, meta.get("CFGChecksum", "-"), meta.get("Attributes", "0")))


for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    m = HEAD.match(line)
    if m:
        close(0)
        stack.append((0, m.group(1), {}))
        continue
    m = NESTED.match(line)
    if m:
        indent = len(m.group(1))
        close(indent)
        stack.append((indent, "%s@%s/%s" % (stack[-1][1], m.group(2), m.group(3)), {}))
        continue
    m = META.match(line)
    if m:
        # Metadata lines are indented one more than their profile's head.
        owner = [s for s in stack if s[0] == len(m.group(1)) - 1]
        if owner:
            owner[-1][2][m.group(2)] = m.group(3)
close(0)
print("\n".join(sorted(out)))
