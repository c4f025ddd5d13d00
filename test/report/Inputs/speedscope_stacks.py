#!/usr/bin/env python3
"""Prints the stacks of a speedscope file's first (sampled) profile.

Usage: speedscope_stacks.py FILE.speedscope.json

One line per distinct stack, "name;name;... weight" (root first, summed
over identical stacks, sorted by name), then "total W of endValue E".
Also checks what the schema cannot say: as many weights as samples, every
frame index inside shared.frames, weights >= 0, and startValue <= endValue.
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
frames = [f['name'] for f in doc['shared']['frames']]
prof = doc['profiles'][0]
samples, weights = prof['samples'], prof['weights']
assert len(samples) == len(weights), 'samples and weights differ in length'
assert prof['startValue'] <= prof['endValue'], 'endValue before startValue'
stacks = {}
for stack, w in zip(samples, weights):
    assert w >= 0, 'negative weight'
    for i in stack:
        assert isinstance(i, int) and 0 <= i < len(frames), 'bad frame %r' % i
    key = ';'.join(frames[i] for i in stack)
    stacks[key] = stacks.get(key, 0) + w
for key in sorted(stacks):
    print(key, stacks[key])
print('total', sum(weights), 'of endValue', prof['endValue'] - prof['startValue'])
