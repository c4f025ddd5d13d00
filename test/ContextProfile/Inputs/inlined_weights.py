#!/usr/bin/env python3
"""Branch weights of the inlined copies of one function's branches.

Usage: inlined_weights.py FILE.ll CALLEE

Reads textual LLVM IR compiled with -g, finds every conditional branch
whose debug location lies in CALLEE, follows the location's inlinedAt
chain to the function CALLEE was inlined into directly, and prints one
line per branch, sorted: "CALLER line L: W1 W2" (the branch_weights), or
"none" when the branch has no !prof.
"""
import re
import sys

ll, callee = sys.argv[1], sys.argv[2]
text = open(ll).read()
meta = {}
for m in re.finditer(r"^!(\d+) = (?:distinct )?(.*)$", text, re.M):
    meta[m.group(1)] = m.group(2)


def field(node, name):
    m = re.search(r"\b%s: (!?\"?[^,)\"]*)" % name, node)
    return m.group(1) if m else None


def subprogram_name(scope):
    # Follow lexical blocks up to the DISubprogram.
    seen = 0
    while scope and seen < 100:
        node = meta[scope.lstrip("!")]
        if node.startswith("!DISubprogram"):
            return re.search(r'name: "([^"]*)"', node).group(1)
        scope = field(node, "scope")
        seen += 1
    return None


rows = []
for m in re.finditer(r"br i1 [^,]+, label [^,]+, label [^,]+(.*)$", text,
                     re.M):
    attrs = m.group(1)
    dbg = re.search(r"!dbg !(\d+)", attrs)
    if not dbg:
        continue
    loc = meta[dbg.group(1)]
    if subprogram_name(field(loc, "scope")) != callee:
        continue
    at = field(loc, "inlinedAt")
    caller = subprogram_name(field(meta[at.lstrip("!")], "scope")) if at \
        else "(not inlined)"
    prof = re.search(r"!prof !(\d+)", attrs)
    w = "none"
    if prof:
        wm = re.match(r'!\{!"branch_weights", (.*)\}', meta[prof.group(1)])
        if wm:
            w = " ".join(x.split()[-1] for x in wm.group(1).split(","))
    rows.append("%s line %s: %s" % (caller, field(loc, "line"), w))
for r in sorted(rows):
    print(r)
