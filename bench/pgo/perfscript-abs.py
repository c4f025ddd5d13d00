#!/usr/bin/env python3
"""Turn perf 6.1's call-stack frames back into runtime addresses for
llvm-profgen.

    perf script -i DATA --show-mmap-events -F ip,dso,brstack |
        perfscript-abs.py > script.txt
    llvm-profgen-19 --binary BIN --perfscript script.txt ...

llvm-profgen 19 runs `perf script --show-mmap-events -F ip,brstack` and
reads each hybrid sample as its call-stack frames (one address a line)
followed by the branch stack. It expects runtime addresses everywhere,
and translates them with the MMAP2 events. perf 6.1 prints the branch
stack in runtime addresses but each call-stack frame relative to its
mapping (runtime - start + file offset), e.g. for bzip2 mapped at
0x4000002000 from offset 0x2000:

        f26e (/bench/bzip2)                 <- frame: 0x400000f26e - 0x4000000000
     0x400000f269(/bench/bzip2)/0x400000f26e(/bench/bzip2)/P/-/-/9/ ...

llvm-profgen then finds no frame inside the binary's mapping, counts every
sample as one with an external leaf frame, and writes a profile without a
single context. This adds each mapping's (start - offset) back to the
frames of its file (asking perf for the dso of each frame), drops the dso
annotations, and leaves everything else as perf printed it. Frames of an
unmapped or unknown dso keep their value. One process per recording is
assumed (the bench workloads are single processes): mappings are keyed
by path.
"""
import re
import sys

MMAP = re.compile(r"PERF_RECORD_MMAP2? \d+/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*\]: \S+ (.*)$")
FRAME = re.compile(r"^(\s+)([0-9a-f]+) \((.*)\)$")
DSO = re.compile(r"\([^()]*\)")


def main():
    base = {}
    out = sys.stdout
    fixed = kept = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = MMAP.search(line)
        if m:
            start, off, path = int(m.group(1), 16), int(m.group(3), 16), m.group(4)
            base.setdefault(path, start - off)
            out.write(line + "\n")
            continue
        m = FRAME.match(line)
        if m:
            addr, dso = int(m.group(2), 16), m.group(3)
            if dso in base:
                addr += base[dso]
                fixed += 1
            else:
                kept += 1
            out.write("%s%x\n" % (m.group(1), addr))
            continue
        out.write(DSO.sub("", line) + "\n")
    sys.stderr.write("perfscript-abs: %d frames made absolute, %d left as printed\n"
                     % (fixed, kept))


if __name__ == "__main__":
    main()
