#!/usr/bin/env python3
"""Check an lbr-record truth file against callgrind, instruction by instruction.

For every instruction of the chosen functions of BINARY (a non-PIE program,
so callgrind's addresses are link-time addresses; run callgrind with
--skip-plt=no so PLT stubs are not charged to their callers) this compares
  - the execution count the truth implies (sum of the counts of the ranges
    that contain the instruction) with callgrind's Ir for it, and
  - for each conditional jump, the truth's taken count (branches leaving it)
    with the sum of callgrind's `jcnd=TAKEN/EXECUTED` lines for it.
rep-prefixed string instructions are skipped: valgrind counts one Ir per
iteration, hardware (and the truth) one per instruction.

Usage: compare_callgrind.py TRUTH CALLGRIND_OUT BINARY FUNC [FUNC...]
       (FUNC may end with '*' to match a name prefix)
Prints a one-line summary and exits 0 when everything agrees.
"""

import os
import re
import subprocess
import sys


def tool(name):
    for cand in (name + "-19", name):
        for d in os.environ.get("PATH", "").split(os.pathsep) + \
                ["/usr/lib/llvm-19/bin"]:
            p = os.path.join(d, cand)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    sys.exit("compare_callgrind: %s not found" % name)


def functions(binary, patterns):
    """{name: (start, end)} of the defined functions matching patterns."""
    out = subprocess.run([tool("llvm-nm"), "--defined-only", "-S", binary],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in "tT":
            continue
        name = parts[3]
        if any(name == p or (p.endswith("*") and name.startswith(p[:-1]))
               for p in patterns):
            start, size = int(parts[0], 16), int(parts[1], 16)
            funcs[name] = (start, start + size)
    return funcs


def instructions(binary, funcs):
    """[(addr, mnemonic, text)] of every instruction in funcs."""
    out = subprocess.run([tool("llvm-objdump"), "-d", "--no-show-raw-insn",
                          "--disassemble-symbols=" + ",".join(sorted(funcs)),
                          binary], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    insns = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)(.*)$", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(0)))
    return insns


def read_truth(path, binary):
    """Branches and ranges of the mapping(s) of binary, link-time addresses."""
    want = os.path.realpath(binary)
    branches, ranges = {}, []
    bias, in_proc = {}, False
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "process":
                bias, in_proc = {}, True
            elif w[0] == "mapping" and w[w.index("path") + 1] == want:
                bias[w[1]] = int(w[w.index("bias") + 1], 16)
            elif w[0] == "branch" and w[4] in bias:
                src = int(w[1], 16) - bias[w[4]]
                branches[src] = branches.get(src, 0) + int(w[3])
            elif w[0] == "range" and w[5] in bias:
                b = bias[w[5]]
                ranges.append((int(w[1], 16) - b, int(w[2], 16) - b,
                               int(w[4])))
    if not in_proc:
        sys.exit("compare_callgrind: %s has no process" % path)
    return branches, ranges


def exec_counts(addrs, ranges):
    """Count per address: a sweep over range starts and ends."""
    events = []
    for s, e, c in ranges:
        events.append((s, 0, c))
        events.append((e, 2, -c))  # ends after the instruction at e
    events.sort()
    counts, cur, j = {}, 0, 0
    for a in sorted(addrs):
        while j < len(events) and (events[j][0] < a or
                                   (events[j][0] == a and events[j][1] == 0)):
            cur += events[j][2]
            j += 1
        counts[a] = cur
        while j < len(events) and events[j][0] == a and events[j][1] == 2:
            cur += events[j][2]
            j += 1
    return counts


def read_callgrind(path):
    """Self Ir per instruction and {src: (taken, executed)} of jcnd lines."""
    ir, jcnd = {}, {}
    addr = 0
    pending_jump = None  # (taken, executed) waiting for its source line
    skip_cost = False    # the line after calls= is the inclusive call cost

    def pos(tok, last):
        if tok == "*":
            return last
        if tok.startswith("0x"):
            return int(tok, 16)
        if tok[0] in "+-":
            return last + int(tok, 0 if tok[1:].startswith("0x") else 10)
        return int(tok, 16)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c = line[0]
            if c in "+-*0123456789":
                toks = line.split()
                addr = pos(toks[0], addr)
                if pending_jump is not None:
                    t, e = pending_jump
                    pt, pe = jcnd.get(addr, (0, 0))
                    jcnd[addr] = (pt + t, pe + e)
                    pending_jump = None
                elif skip_cost:
                    skip_cost = False
                elif len(toks) >= 3:
                    ir[addr] = ir.get(addr, 0) + int(toks[2])
            elif line.startswith("calls="):
                skip_cost = True
            elif line.startswith("jcnd="):
                t, e = line[5:].split()[0].split("/")
                pending_jump = (int(t), int(e))
            elif line.startswith("jump="):
                pending_jump = (0, 0)  # position line follows, no cost
    return ir, jcnd


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    truth, cg, binary, patterns = sys.argv[1], sys.argv[2], sys.argv[3], \
        sys.argv[4:]
    funcs = functions(binary, patterns)
    if not funcs:
        sys.exit("compare_callgrind: no function of %s matches %s" %
                 (binary, patterns))
    insns = instructions(binary, funcs)
    branches, ranges = read_truth(truth, binary)
    counts = exec_counts([a for a, _, _ in insns], ranges)
    ir, jcnd = read_callgrind(cg)

    bad, ncond, nins, total = [], 0, 0, 0
    for a, mnem, text in insns:
        if mnem.startswith("rep"):
            continue
        nins += 1
        total += ir.get(a, 0)
        if counts.get(a, 0) != ir.get(a, 0):
            bad.append("%x: executed %d, callgrind Ir %d   [%s]" %
                       (a, counts.get(a, 0), ir.get(a, 0), text.strip()))
        if mnem.startswith("j") and mnem != "jmp" and mnem != "jmpq":
            ncond += 1
            # callgrind writes one jcnd line per calling block context and
            # none for a context that never took the jump, so its executed
            # figure can fall short: executed is checked against Ir.
            cg_taken, cg_exec = jcnd.get(a, (0, 0))
            want = (cg_taken, ir.get(a, 0))
            got = (branches.get(a, 0), counts.get(a, 0))
            if got != want or cg_exec > want[1]:
                bad.append("%x: taken/executed %d/%d, callgrind jcnd=%d/%d "
                           "Ir %d   [%s]" % (a, got[0], got[1], cg_taken,
                                             cg_exec, want[1], text.strip()))
    if total == 0:
        bad.append("callgrind saw none of the functions executed")
    for b in bad[:50]:
        print("MISMATCH " + b)
    print("compared %d functions, %d instructions (%d executions), "
          "%d conditional jumps: %s" %
          (len(funcs), nins, total, ncond,
           "all equal" if not bad else "%d mismatches" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
