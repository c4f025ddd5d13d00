#!/usr/bin/env python3
"""Generates and builds a large C program for the binary-size benchmark
(issue 23): N small functions spread over several translation units, all
called through one table, built with clang-19 -O2 -g.

Compiling 480k functions at -O2 -g takes over an hour on 2 cores, so only
--distinct functions are compiled (in translation units of --per-tu), and
the rest are copies of those objects with the functions renamed: each name
is fzCCCqI, compiled with CCC = 000, and copy C rewrites the 6 bytes
"fz000q" to "fzCCCq" wherever they occur in the object (its symbol table and
.debug_str: code and other sections never hold that byte string in
practice, and the link fails on a name it corrupts). So every function is
its own symbol and its own DWARF subprogram, and every copy of an object
is its own unit (--per-tu functions, one line-table sequence); the copies
share their code bytes and line numbers.

Each function has a loop, two branches and an inlined helper (so its DWARF
has an inlined subroutine and its line table a few rows), and its own
constants (so no two functions are merged). The program's first argument is
the hot stride: `prog 1 ITERS` calls every function ITERS times (the broad
profile), `prog 100 ITERS` calls every 100th (the narrow profile: 1% hot).

usage: gen-large.py --functions N --out DIR [--distinct D] [--per-tu K] [-j J]
The binary is DIR/large-N (N rounded up to a multiple of D); sources and
objects stay in DIR (not in git), and one DIR serves several N.
"""
import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HELPER = """\
static inline __attribute__((always_inline)) int mix(int x, int k) {
  if (x & 1)
    return x * 3 + k;
  return (x >> 1) ^ k;
}
"""

FUNC = """\
int fz000q{i}(int x) {{
  int s = {a};
  for (int k = 0; k < (x & 7) + 2; ++k) {{
    s += mix(x + k, {b});
    if (s & 4)
      s ^= {c};
  }}
  if (s > {d})
    s -= x;
  return s;
}}
"""

MAIN = """\
#include <stdlib.h>
typedef int (*fn)(int);
extern const fn table[{n}];
int main(int argc, char **argv) {{
  int stride = argc > 1 ? atoi(argv[1]) : 1;
  int iters = argc > 2 ? atoi(argv[2]) : 1;
  if (stride < 1)
    stride = 1;
  unsigned acc = 0;
  for (int r = 0; r < iters; ++r)
    for (int j = 0; j < {n}; j += stride)
      acc += table[j]((int)acc + j);
  return (int)(acc & 1);
}}
"""


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--functions", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--distinct", type=int, default=8000)
    ap.add_argument("--per-tu", type=int, default=2000)
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    n, out = args.functions, args.out
    distinct = min(n, args.distinct)
    copies = (n + distinct - 1) // distinct
    if copies > 1000:
        sys.exit("error: more than 1000 copies; raise --distinct")
    n = copies * distinct
    os.makedirs(out, exist_ok=True)
    srcs = []
    for t, lo in enumerate(range(0, distinct, args.per_tu)):
        hi = min(distinct, lo + args.per_tu)
        body = [HELPER]
        for i in range(lo, hi):
            h = (i * 2654435761) & 0xffffffff
            body.append(FUNC.format(i=i, a=h % 1000, b=(h >> 10) % 97 + 1,
                                    c=(h >> 3) % 251 + 1, d=(h >> 16) % 5000))
        p = os.path.join(out, "tu%03d.c" % t)
        write_if_changed(p, "\n".join(body))
        srcs.append(p)
    names = ["fz%03dq%d" % (c, i) for c in range(copies)
             for i in range(distinct)]
    decls = "".join("int %s(int);\n" % f for f in names)
    table = "typedef int (*fn)(int);\nconst fn table[%d] = {\n%s};\n" % (
        n, "".join("  %s,\n" % f for f in names))
    p = os.path.join(out, "table-%d.c" % n)
    write_if_changed(p, decls + table)
    srcs.append(p)
    p = os.path.join(out, "main-%d.c" % n)
    write_if_changed(p, MAIN.format(n=n))
    srcs.append(p)

    t0 = time.time()

    def compile_one(src):
        obj = src[:-2] + ".o"
        if os.path.exists(obj) and os.path.getmtime(obj) > os.path.getmtime(src):
            return obj
        subprocess.run(["nice", "-n", "10", "clang-19", "-O2", "-g", "-c",
                        src, "-o", obj], check=True)
        return obj

    with ThreadPoolExecutor(args.j) as ex:
        objs = list(ex.map(compile_one, srcs))
    tus, rest = objs[:-2], objs[-2:]
    objs = list(tus)
    for c in range(1, copies):
        for o in tus:
            dst = "%s.c%03d.o" % (o[:-2], c)
            if not (os.path.exists(dst) and
                    os.path.getmtime(dst) > os.path.getmtime(o)):
                with open(o, "rb") as f:
                    data = f.read().replace(b"fz000q", b"fz%03dq" % c)
                with open(dst, "wb") as f:
                    f.write(data)
            objs.append(dst)
    objs += rest
    binary = os.path.join(out, "large-%d" % n)
    subprocess.run(["nice", "-n", "10", "clang-19", "-fuse-ld=lld",
                    "-Wl,--emit-relocs", "-o", binary] + objs, check=True)
    print("%s: %d functions, %.1f MB, built in %.0f s" %
          (binary, n, os.path.getsize(binary) / 1e6, time.time() - t0),
          file=sys.stderr)


if __name__ == "__main__":
    main()
