#!/usr/bin/env python3
"""Writes a large, valid file-mode perf.data of LBR samples for reader
benchmarks: one cycles:u event with IP|TID|TIME|PERIOD|BRANCH_STACK, a COMM
and an MMAP2 for the process, then SAMPLE records with DEPTH-entry branch
stacks (addresses drawn from a small loop nest inside the mapping), with a
FINISHED_ROUND every 4096 samples, until the file reaches --size MB.
`perf script` reads the result.

usage: make-big-perfdata.py -o OUT [--size MB] [--depth N] [--seed N]
                            [--pool N] [--span BYTES]
--pool distinct samples and --span bytes of code to draw addresses from set
how many distinct branches the file holds (default 512 and 0x8000: ~16k;
bench/fleet uses more to time merges of large raw profiles).
"""
import argparse
import random
import struct

def rec(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", required=True)
    ap.add_argument("--size", type=int, default=700, help="MB")
    ap.add_argument("--depth", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pool", type=int, default=512)
    ap.add_argument("--span", type=lambda v: int(v, 0), default=0x8000)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    PID, BASE = 4242, 0x555555554000
    ST = 1 | 2 | 4 | 256 | 2048  # IP TID TIME PERIOD BRANCH_STACK
    attr = struct.pack("<IIQQQQQIIQQQ", 0, 112, 0, 100003, ST, 0,
                       (1 << 5) | (1 << 18) | (1 << 8) | (1 << 9) | (1 << 23),
                       0, 0, 0, 0, 8 | 1)  # branch: ANY|USER
    attr = attr.ljust(112, b"\0")
    attr_size = len(attr) + 16
    data_off = 104 + attr_size
    # Side band.
    name = b"bench-app".ljust(16, b"\0")
    trailer = struct.pack("<IIQ", PID, PID, 999)  # sample_id_all: TID, TIME
    side = rec(3, 0, struct.pack("<II", PID, PID) + name + trailer)
    fname = b"/usr/bin/bench-app".ljust(24, b"\0")
    side += rec(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, BASE + 0x1000,
                                   max(0x10000, a.span), 0x1000, 8, 1, 1234, 0, 5, 2) + fname +
                trailer)
    # A pool of distinct samples to cycle through (fresh times each).
    pool = []
    for _ in range(a.pool):
        entries = []
        for _ in range(a.depth):
            frm = BASE + 0x1000 + rng.randrange(0, a.span, 2)
            to = BASE + 0x1000 + rng.randrange(0, a.span, 2)
            flags = (rng.random() < 0.05) | ((rng.random() >= 0.05) << 1) \
                | (rng.randrange(1, 200) << 4)
            entries.append(struct.pack("<QQQ", frm, to, flags))
        ip = BASE + 0x1000 + rng.randrange(0, a.span)
        pool.append((ip, b"".join(entries)))
    target = a.size * 1000 * 1000
    out = open(a.o + ".tmp", "wb")
    out.write(b"\0" * data_off)
    out.write(side)
    size = len(side)
    t = 1000000
    i = 0
    chunk = []
    while size < target:
        ip, br = pool[i % len(pool)]
        body = struct.pack("<QIIQQQ", ip, PID, PID, t, 100003, a.depth) + br
        r = rec(9, 2, body)
        chunk.append(r)
        size += len(r)
        t += 1000
        i += 1
        if i % 4096 == 0:
            chunk.append(rec(68, 0, b""))
            size += 8
            out.write(b"".join(chunk))
            chunk = []
    out.write(b"".join(chunk))
    data_size = size
    # No feature sections.
    hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, attr_size, 104, attr_size,
                                    data_off, data_size, 0, 0)
    hdr += struct.pack("<QQQQ", 0, 0, 0, 0)
    out.seek(0)
    out.write(hdr + attr + struct.pack("<QQ", 0, 0))
    out.close()
    import os
    os.replace(a.o + ".tmp", a.o)
    print("%s: %d samples, %.1f MB" % (a.o, i, (data_off + data_size) / 1e6))

if __name__ == "__main__":
    main()
