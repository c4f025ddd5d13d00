#!/usr/bin/env python3
"""List the top-level records of a perf.data file, one per line.

Usage: records.py FILE

Prints `OFFSET TYPE MISC SIZE` (decimal type, hex offset/misc/size) for every
record of the data section (file mode) or of the stream after the header
records (pipe mode), skipping the payload that follows AUXTRACE (type 71)
records outside header.size. COMPRESSED (81) records are listed as they are;
their contents are perf's business. A test uses this to pin the record
sequence text2perfdata writes, independently of perf's own dump.
"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
if data[:8] != b"PERFILE2":
    sys.exit("not a PERFILE2 file")
hsize = struct.unpack_from("<Q", data, 8)[0]
if hsize == 16:  # pipe mode: everything after the 16-byte header
    off, end = 16, len(data)
else:
    off, size = struct.unpack_from("<QQ", data, 40)
    end = off + size
while off < end:
    if off + 8 > end:
        sys.exit("truncated header at 0x%x" % off)
    rtype, misc, rsize = struct.unpack_from("<IHH", data, off)
    if rsize < 8 or off + rsize > end:
        sys.exit("bad size 0x%x at 0x%x" % (rsize, off))
    print("0x%x %d 0x%x 0x%x" % (off, rtype, misc, rsize))
    off += rsize
    if rtype == 71:  # AUXTRACE: u64 size of the payload after the record
        off += struct.unpack_from("<Q", data, off - rsize + 8)[0]
if off != end:
    sys.exit("records overrun the data section: 0x%x != 0x%x" % (off, end))
