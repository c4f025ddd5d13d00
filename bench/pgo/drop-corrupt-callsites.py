#!/usr/bin/env python3
"""bench/pgo/drop-corrupt-callsites.py: make create_llvm_prof 0.19's text
profile readable by clang.

Debian's create_llvm_prof 0.19 writes the callee name of every inlined
callsite through a dangling StringRef (google/autofdo issue 95), so those
names come out truncated or as heap bytes, some with NULs or newlines, and
llvm-profdata/clang stop at the first one ("Expected 'NUM[.NUM]: NUM[
mangled_name:NUM]*'"). None of them can be trusted, so this drops every
inlined callsite with its whole subtree (the more-indented lines under it)
and keeps each function's header and body lines, i.e. a profile without
inline context. Call-target names on body lines are kept when printable.
Prints what it dropped to stderr.
usage: drop-corrupt-callsites.py IN.txt OUT.txt
"""
import re
import sys

HEADER = re.compile(rb"^[!-9;-~][!-~]*:\d+:\d+$")  # name:total:head
BODY = re.compile(rb"^( +)\d+(\.\d+)?: (\d+)( .*)?$")  # OFFSET: COUNT [targets]
TARGET = re.compile(rb"^[!-9;-~][!-~]*:\d+$")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    data = open(src, "rb").read()
    out = []
    skip = None  # drop lines indented deeper than this
    dropped_sites = dropped_lines = 0
    for line in data.split(b"\n"):
        if not line:
            continue
        indent = len(line) - len(line.lstrip(b" "))
        if indent == 0 and HEADER.match(line):
            out.append(line)
            skip = None
            continue
        if skip is not None and indent > skip:
            dropped_lines += 1
            continue
        if indent == 0:
            # Not a header: the rest of a name that held a newline. The
            # callsite it belongs to was dropped; its subtree still follows.
            dropped_lines += 1
            continue
        skip = None
        m = BODY.match(line)
        if m and indent > 0:
            targets = [t for t in (m.group(4) or b"").split(b" ") if TARGET.match(t)]
            out.append(b" ".join([line[:m.end(3)]] + targets))
            continue
        # An inlined callsite (OFFSET: NAME:TOTAL) or a piece of a corrupt
        # name: drop it and everything under it.
        dropped_sites += 1
        dropped_lines += 1
        skip = indent
    with open(dst, "wb") as f:
        f.write(b"\n".join(out) + b"\n")
    sys.stderr.write("drop-corrupt-callsites: dropped %d inlined callsites "
                     "(%d lines), kept %d lines\n" % (dropped_sites, dropped_lines, len(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
