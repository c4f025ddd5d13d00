#!/usr/bin/env python3
"""Turns `llvm-profgen --show-pseudo-probe --show-disassembly-only` output
into the lines of `lbr2prof --dump=probes`:
  desc GUID HASH NAME
  0xADDR NAME INDEX KIND[ disc D][ @ CALLER:SITE ...]
A probe belongs to the address of the next instruction printed after it.
usage: profgen-probes.py < profgen-output"""
import re
import sys

KINDS = {"Block": "block", "DirectCall": "call", "IndirectCall": "indirect-call"}
out, pending, guid = [], [], None
for line in sys.stdin:
    m = re.match(r"GUID: (\d+) Name: (\S+)", line)
    if m:
        guid = m.groups()
        continue
    m = re.match(r"Hash: (\d+)", line)
    if m and guid:
        out.append("desc %s %s %s" % (guid[0], m.group(1), guid[1]))
        guid = None
        continue
    m = re.match(r"\s*\[Probe\]:\s+FUNC: (\S+) Index: (\d+)\s+"
                 r"(?:Discriminator: (\d+)\s+)?Type: (\w+)\s*(?:Inlined: (.*))?$",
                 line)
    if m:
        name, index, disc, kind, inl = m.groups()
        s = "%s %s %s" % (name, index, KINDS[kind])
        if disc and disc != "0":
            s += " disc " + disc
        if inl:
            s += " " + " ".join(inl.split())
        pending.append(s)
        continue
    m = re.match(r"\s*([0-9a-f]+):\t", line)
    if m:
        for s in pending:
            out.append("0x%s %s" % (m.group(1), s))
        pending = []
print("\n".join(sorted(out)))
