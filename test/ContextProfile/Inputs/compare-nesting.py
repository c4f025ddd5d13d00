#!/usr/bin/env python3
"""For each llvm-profgen test input NAME (NAME.perfscript, NAME.perfbin in
DIR), makes llvm-profgen 19's default text profile and lbr2prof's with
--cs-preinliner=budget (the default), with budget and --cs-inlined=keep,
with budget and --cs-entry-estimate=first-site, with budget and
--cs-inlined=decide, and with --cs-preinliner=size, and prints "NAME
budget:V keep:V first-site:V decide:V size:V", each V same or differ:
whether each lbr2prof profile nests the same contexts (sites, checksums, marks) as
llvm-profgen's, by NESTED_PATHS (nested-paths.py).

Usage: compare-nesting.py DIR NESTED_PATHS NAME...
"""
import os
import subprocess
import sys

d, paths_py, names = sys.argv[1], sys.argv[2], sys.argv[3:]


def nesting(profile):
    return subprocess.run([sys.executable, paths_py, profile], check=True,
                          capture_output=True, text=True).stdout


for n in names:
    script = os.path.join(d, n + ".perfscript")
    binary = os.path.join(d, n + ".perfbin")
    subprocess.run(["llvm-profgen", "--format=text", "--perfscript=" + script,
                    "--binary=" + binary, "--output=pg.txt"], check=True,
                   capture_output=True)
    for out, extra in (("budget.txt", ["--cs-preinliner=budget"]),
                       ("keep.txt", ["--cs-preinliner=budget",
                                     "--cs-inlined=keep"]),
                       ("site.txt", ["--cs-preinliner=budget",
                                     "--cs-entry-estimate=first-site"]),
                       ("decide.txt", ["--cs-preinliner=budget",
                                       "--cs-inlined=decide"]),
                       ("size.txt", ["--cs-preinliner=size"])):
        subprocess.run(["lbr2prof", script, "--binary", binary,
                        "--format=text", "-o", out] + extra, check=True)
    pg = nesting("pg.txt")
    verdict = lambda f: "same" if nesting(f) == pg else "differ"
    print("%s budget:%s keep:%s first-site:%s decide:%s size:%s" % (
        n, verdict("budget.txt"), verdict("keep.txt"), verdict("site.txt"),
        verdict("decide.txt"), verdict("size.txt")))
