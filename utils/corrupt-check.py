#!/usr/bin/env python3
"""Feeds damaged copies of a perf.data file to a command and checks that each
run ends cleanly: exit 0 (the damage was harmless or perf.data-valid), or
exit 1 with exactly one line on stderr of the form
  lbr2prof: error: FILE: offset 0x...: ...
Anything else (a crash, a signal, a sanitizer report, a hang, several lines)
is a failure. Damage: truncation at every record boundary of the data
section and at random offsets, and random byte flips.

usage: corrupt-check.py [--seed N] [--flips N] [--cuts N] [--boundaries N]
                        FILE -- CMD ARGS...
CMD's arguments may use {} for the damaged file's path.
"""
import argparse
import concurrent.futures
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

def record_offsets(data):
    """(offset, type) of the records of a perf.data's data section."""
    if data[:8] != b"PERFILE2":
        return []
    size = struct.unpack_from("<Q", data, 8)[0]
    if size == 16:  # pipe mode: records start at 16
        off, end = 16, len(data)
    else:
        off, dsize = struct.unpack_from("<QQ", data, 40)
        end = off + dsize
    offs = []
    while off + 8 <= end:
        rtype, misc, rsize = struct.unpack_from("<IHH", data, off)
        offs.append((off, rtype))
        if rsize < 8:
            break
        extra = 0
        if rtype == 71 and off + 16 <= end:  # AUXTRACE payload
            extra = struct.unpack_from("<Q", data, off + 8)[0]
        off += rsize + extra
    return offs

ERR = re.compile(r"^lbr2prof: error: .+: (offset 0x[0-9a-f]+|line \d+)")

ANY_ERR = re.compile(r"^lbr2prof: error: ")

def check(cmd, path, what, timeout, any_error=False):
    args = [a.replace("{}", path) for a in cmd]
    try:
        p = subprocess.run(args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "%s: hang (over %ss)" % (what, timeout)
    err = p.stderr.decode(errors="replace").strip().splitlines()
    if p.returncode == 0:
        return None
    pattern = ANY_ERR if any_error else ERR
    if p.returncode == 1 and len(err) == 1 and pattern.match(err[0]):
        return None
    return "%s: exit %d, stderr: %s" % (what, p.returncode, "\n".join(err[:5]))

def choose_boundaries(records, budget, head, rng):
    """Offsets to cut at: the first `head` records, the first 4 of each type,
    the last one, then a seeded sample of the rest up to `budget`."""
    if len(records) <= budget:
        return [off for off, _ in records]
    chosen = set(off for off, _ in records[:head])
    chosen.add(records[-1][0])
    per_type = {}
    for off, rtype in records:
        if per_type.get(rtype, 0) < 4:
            per_type[rtype] = per_type.get(rtype, 0) + 1
            chosen.add(off)
    rest = [off for off, _ in records if off not in chosen]
    room = max(0, budget - len(chosen))
    chosen.update(rng.sample(rest, min(room, len(rest))))
    return sorted(chosen)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--flips", type=int, default=200)
    ap.add_argument("--cuts", type=int, default=100)
    ap.add_argument("--boundaries", type=int, default=250,
                    help="record boundaries to cut at (all if fewer)")
    ap.add_argument("--head", type=int, default=64,
                    help="leading records always cut at")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--any-error", action="store_true",
                    help="accept any one-line 'lbr2prof: error:' (commands "
                         "whose errors need not name an offset)")
    ap.add_argument("file")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    data = open(a.file, "rb").read()
    rng = random.Random(a.seed)
    cases = []
    for off in choose_boundaries(record_offsets(data), a.boundaries, a.head,
                                 rng):
        cases.append(("cut at record 0x%x" % off, data[:off]))
        cases.append(("cut inside record 0x%x" % off, data[:off + 4]))
    for _ in range(a.cuts):
        n = rng.randrange(len(data))
        cases.append(("cut at 0x%x" % n, data[:n]))
    for _ in range(a.flips):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        cases.append(("flip (seed %d)" % a.seed, bytes(b)))
    failures = []
    with tempfile.TemporaryDirectory() as d:
        def run(i):
            what, blob = cases[i]
            path = os.path.join(d, "damaged%d.data" % i)
            with open(path, "wb") as f:
                f.write(blob)
            try:
                return check(cmd, path, what, a.timeout, a.any_error)
            finally:
                os.unlink(path)
        workers = max(1, os.cpu_count() or 1)
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for r in pool.map(run, range(len(cases))):
                if r and len(failures) < 10:
                    failures.append(r)
    for f in failures:
        print("FAIL " + f)
    print("%d cases, %d failures" % (len(cases), len(failures)))
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
