#!/usr/bin/env python3
"""Judges the callchains of an lbr-record -g capture of a static binary.

Usage: check_callchain.py SCRIPT.txt OBJDUMP.txt BINARY

SCRIPT.txt is `perf script -F ip,sym` (one block per sample: the IP, then
one return address per frame, innermost first); OBJDUMP.txt is
`llvm-objdump -d --no-show-raw-insn` of BINARY. perf prints addresses
in a file as file offsets; the ELF program headers map them back. Every
return address
must follow a call instruction; a direct call must target the function the
frame inside it belongs to (the program is built without tail calls); a
chain of fewer than 127 addresses must end in _start (the whole stack), and
none may be longer. Prints counts, or the first violation and exits 1.
"""
import bisect
import re
import struct
import sys

LIMIT = 127


def load_objdump(path):
    insns = {}  # address -> (mnemonic, direct target or None)
    funcs = []  # (start, name)
    fn_re = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
    in_re = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
    for line in open(path):
        m = fn_re.match(line)
        if m:
            funcs.append((int(m.group(1), 16), m.group(2)))
            continue
        m = in_re.match(line)
        if m:
            mnem, ops = m.group(2), m.group(3)
            # Prefixes print as words of their own: addr32 call, notrack jmp.
            while mnem in ("addr32", "data16", "notrack", "bnd", "rex64") \
                    and ops:
                mnem, _, ops = ops.partition(" ")
            t = re.match(r"(0x)?([0-9a-f]+) <", ops)
            insns[int(m.group(1), 16)] = (mnem,
                                          int(t.group(2), 16) if t else None)
    funcs.sort()
    return insns, sorted(insns), funcs


def offset_to_addr(binary):
    """A function from file offset to address, from the PT_LOAD headers."""
    d = open(binary, "rb").read()
    phoff, = struct.unpack_from("<Q", d, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", d, 0x36)
    loads = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", d, phoff + i * phentsize)
        if p_type == 1:
            loads.append((p_offset, p_offset + p_filesz, p_vaddr - p_offset))
    def conv(off):
        for b, e, delta in loads:
            if b <= off < e:
                return off + delta
        sys.exit("file offset %#x is in no PT_LOAD segment" % off)
    return conv


def func_of(funcs, starts, addr):
    i = bisect.bisect_right(starts, addr) - 1
    return funcs[i] if i >= 0 else (None, None)


def main():
    insns, addrs, funcs = load_objdump(sys.argv[2])
    conv = offset_to_addr(sys.argv[3])
    starts = [f[0] for f in funcs]
    blocks = open(sys.argv[1]).read().strip().split("\n\n")
    chains = frames = truncated = direct = 0
    names = set()
    for b in blocks:
        chain = [conv(int(l.split()[0], 16)) for l in b.strip().splitlines()]
        chains += 1
        if len(chain) > LIMIT:
            sys.exit("chain of %d addresses, over %d" % (len(chain), LIMIT))
        for k in range(1, len(chain)):
            r = chain[k]
            i = bisect.bisect_left(addrs, r) - 1
            if i < 0 or addrs[i + 1 if i + 1 < len(addrs) else i] != r:
                sys.exit("%#x is not an instruction boundary" % r)
            mnem, target = insns[addrs[i]]
            if not mnem.startswith("call"):
                sys.exit("%#x does not follow a call (%s at %#x)" %
                         (r, mnem, addrs[i]))
            callee = func_of(funcs, starts, chain[k - 1])
            if target is not None:
                direct += 1
                if target != callee[0]:
                    sys.exit("call at %#x goes to %#x, but the frame above "
                             "is in %s" % (addrs[i], target, callee[1]))
            frames += 1
        names.add(func_of(funcs, starts, chain[0])[1])
        if len(chain) == LIMIT:
            truncated += 1
        elif func_of(funcs, starts, chain[-1])[1] != "_start":
            sys.exit("chain of %d ends in %s, not _start" %
                     (len(chain), func_of(funcs, starts, chain[-1])[1]))
    print("callchains: %d, frames: %d (%d direct calls checked), "
          "truncated at %d: %d, leaf: %s" %
          (chains, frames, direct, LIMIT, truncated,
           "yes" if "leaf" in names else "no"))


main()
