#!/usr/bin/env python3
"""Finds the bars of one colour in a PNG screenshot (no imaging library).

Usage: png_bars.py SHOT.png RRGGBB

Decodes the PNG (8-bit RGB or RGBA, not interlaced), marks the pixels
within 6 of the colour in every channel, groups marked columns into bars
(runs of adjacent columns) and prints "bars: N heights: H1 H2 ..." with
each bar's height in pixels, left to right.
"""
import struct
import sys
import zlib

path, colour = sys.argv[1], sys.argv[2]
want = [int(colour[i:i + 2], 16) for i in (0, 2, 4)]
data = open(path, 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and not interlace, 'unsupported PNG'
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pred) & 255
    rows.append(line)
    prev = line
height = [0] * w
for line in rows:
    for x in range(w):
        px = line[x * bpp:x * bpp + 3]
        if all(abs(px[i] - want[i]) <= 6 for i in range(3)):
            height[x] += 1
bars, x = [], 0
while x < w:
    if height[x]:
        start = x
        while x < w and height[x]:
            x += 1
        bars.append(max(height[start:x]))
    else:
        x += 1
print('bars: %d heights: %s' % (len(bars), ' '.join(map(str, bars))))
