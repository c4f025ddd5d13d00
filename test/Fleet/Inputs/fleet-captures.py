#!/usr/bin/env python3
"""Many small perf.data files from a few emulated captures, for the fleet test.

usage: fleet-captures.py --captures K --pieces N -o DIR -- PROGRAM [ARGS...]

Runs `lbr-record -q --seed S --period P` on PROGRAM for S = 1..K (two at a
time; each period differs), then cuts each capture into N perf.data files,
DIR/cap-S-NN.data: piece n keeps every sample whose index is n modulo N and
every other record (the mappings, COMM, FORK, EXIT, rounds), so each piece
is a whole recording of its own, as a host's would be, and the pieces of
all captures are K*N distinct recordings. A capture costs a qemu start
(~0.3 s of CPU); 200 of them would be most of the test's time, a cut is a
few milliseconds.

The cut assumes the layout lbr-record writes (perf_file_header, attrs, the
data section, then the feature sections with their index right after the
data): the data section shrinks and the feature offsets move with it.
"""
import argparse
import concurrent.futures
import os
import struct
import subprocess
import sys

REC_SAMPLE = 9
# magic, size, attr_size, then (offset, size) of attrs, data, event_types
HEADER = struct.Struct("<8sQQQQQQQQ")


def cut(src, pieces, out_fmt):
    with open(src, "rb") as f:
        blob = f.read()
    (magic, hsize, attr_size, attrs_off, attrs_size, data_off, data_size,
     _, _) = HEADER.unpack_from(blob, 0)
    if magic != b"PERFILE2":
        sys.exit("%s: not a perf.data file" % src)
    bitmap = blob[72:104]
    nfeat = sum(bin(b).count("1") for b in bitmap)
    feat_index = data_off + data_size
    index = [struct.unpack_from("<QQ", blob, feat_index + 16 * i)
             for i in range(nfeat)]
    feat_bytes = blob[feat_index + 16 * nfeat:]
    first_feat = feat_index + 16 * nfeat

    records, off, end = [], data_off, data_off + data_size
    while off < end:
        rtype, _, rsize = struct.unpack_from("<IHH", blob, off)
        if rsize < 8:
            sys.exit("%s: bad record at %#x" % (src, off))
        records.append((rtype, blob[off:off + rsize]))
        off += rsize
    for n in range(pieces):
        body, i = [], 0
        for rtype, rec in records:
            if rtype == REC_SAMPLE:
                if i % pieces == n:
                    body.append(rec)
                i += 1
            else:
                body.append(rec)
        data = b"".join(body)
        new_index = data_off + len(data)
        shift = (new_index + 16 * nfeat) - first_feat
        head = bytearray(blob[:data_off])
        struct.pack_into("<Q", head, 48, len(data))
        out = bytes(head) + data + b"".join(
            struct.pack("<QQ", o + shift, s) for o, s in index) + feat_bytes
        with open(out_fmt % n, "wb") as f:
            f.write(out)
    return len(records)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--captures", type=int, required=True)
    p.add_argument("--pieces", type=int, required=True)
    p.add_argument("--period", type=int, default=3001)
    p.add_argument("-o", "--out-dir", required=True)
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    os.makedirs(a.out_dir, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    lbr_record = os.path.join(here, "..", "..", "..", "utils", "lbr-record")

    def capture(s):
        whole = os.path.join(a.out_dir, "whole-%d.perf" % s)
        subprocess.run([sys.executable, lbr_record, "-q", "--seed", str(s),
                        "--period", str(a.period + 2 * s), "-o", whole,
                        "--"] + cmd, check=True, stdout=subprocess.DEVNULL)
        cut(whole, a.pieces, os.path.join(a.out_dir,
                                          "cap-%d-%%02d.data" % s))
        os.unlink(whole)

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        list(ex.map(capture, range(1, a.captures + 1)))
    print("%d recordings" % (a.captures * a.pieces))


if __name__ == "__main__":
    main()
