#!/usr/bin/env python3
"""Prints "NAME GUID" for each name: the GUID clang gives a function's
pseudo probes, the low 64 bits of the MD5 of its name read little-endian
(llvm::MD5Hash). usage: guid.py NAME..."""
import hashlib
import sys

for name in sys.argv[1:]:
    print(name, int.from_bytes(hashlib.md5(name.encode()).digest()[:8], "little"))
