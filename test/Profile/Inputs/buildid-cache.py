#!/usr/bin/env python3
"""Puts FILE into DIR as perf's build-id cache does: DIR/.build-id/xx/yyyy
is a link to DIR/<path>/<build-id>/elf (perf 4.x and later).

usage: buildid-cache.py FILE DIR
The build-id is read with llvm-readelf-19 --notes.
"""
import os
import re
import shutil
import subprocess
import sys

f, d = sys.argv[1:3]
notes = subprocess.run(["llvm-readelf-19", "--notes", f], check=True,
                       capture_output=True, text=True).stdout
m = re.search(r"Build ID: ([0-9a-f]+)", notes)
if not m:
    sys.exit(f"{f}: no build-id note")
bid = m.group(1)
copy_dir = os.path.join(d, os.path.abspath(f).lstrip("/"), bid)
os.makedirs(copy_dir, exist_ok=True)
shutil.copy(f, os.path.join(copy_dir, "elf"))
link_dir = os.path.join(d, ".build-id", bid[:2])
os.makedirs(link_dir, exist_ok=True)
os.symlink(os.path.relpath(copy_dir, link_dir), os.path.join(link_dir, bid[2:]))
