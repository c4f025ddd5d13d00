#!/usr/bin/env python3
"""Puts a debug file where gdb looks for it by build-id.

  build-id-dir.py DEBUGFILE DIR     copies DEBUGFILE to
                                    DIR/.build-id/xx/yyyy.debug
  build-id-dir.py --print FILE      prints FILE's build-id (hex)

The build-id is read from the GNU build-id note by llvm-readelf-19.
"""
import os
import re
import shutil
import subprocess
import sys


def build_id(path):
    out = subprocess.run(["llvm-readelf-19", "-n", path], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        sys.exit("build-id-dir.py: %s has no build-id" % path)
    return m.group(1)


def main(argv):
    if len(argv) == 3 and argv[1] == "--print":
        print(build_id(argv[2]))
        return 0
    if len(argv) != 3:
        sys.exit(__doc__)
    hexid = build_id(argv[1])
    d = os.path.join(argv[2], ".build-id", hexid[:2])
    os.makedirs(d, exist_ok=True)
    shutil.copyfile(argv[1], os.path.join(d, hexid[2:] + ".debug"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
