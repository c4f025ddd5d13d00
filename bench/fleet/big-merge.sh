#!/bin/sh
# Merge throughput on large raw profiles: N synthetic recordings (bench/
# make-big-perfdata.py, 8192 distinct samples of 32 random branches over
# 16 MB of code, a different seed each: ~262k distinct branches and ~254k
# ranges per file, nearly disjoint), mapped to raw profiles, then merged
# by one `lbr2prof merge`: the reduce's cost per key, with no per-file
# overhead to hide it. Random addresses are the worst case for the raw
# profile's delta coding and zstd.
# usage: bench/fleet/big-merge.sh [WORKDIR]   (default bench/results/fleet-big)
# env: N (8), BUILD_DIR (build)
set -eu
cd "$(dirname "$0")/../.."
B=$(pwd)/${BUILD_DIR:-build}/bin
W=${1:-bench/results/fleet-big}
N=${N:-8}
mkdir -p "$W"
rm -f "$W"/*.lbrraw
tm() { /usr/bin/time -f "%e %U %S %M" "$@"; }
i=1
while [ "$i" -le "$N" ]; do
  [ -f "$W/h$i.data" ] || python3 bench/make-big-perfdata.py -o "$W/h$i.data" --size 8 --pool 8192 \
    --span 0x1000000 --seed "$i" > /dev/null
  i=$((i + 1))
done
map=$( { tm "$B/lbr2prof" "$W/h1.data" -o "$W/h1.lbrraw"; } 2>&1 )
i=2
while [ "$i" -le "$N" ]; do
  "$B/lbr2prof" "$W/h$i.data" -o "$W/h$i.lbrraw"
  i=$((i + 1))
done
merge=$( { tm "$B/lbr2prof" merge "$W"/h*.lbrraw -o "$W/all.lbrraw"; } 2>&1 )
keys() { "$B/lbr2prof" "$1" --dump=raw | wc -l; }
in_bytes=$(cat "$W"/h*.lbrraw | wc -c)
out_bytes=$(wc -c < "$W/all.lbrraw")
echo "map of one $(wc -c < "$W/h1.data")-byte recording (wall user sys KB): $map"
echo "  its raw profile: $(wc -c < "$W/h1.lbrraw") bytes, $(keys "$W/h1.lbrraw") keys"
echo "merge of $N raw profiles, $in_bytes bytes (wall user sys KB): $merge"
echo "  result: $out_bytes bytes, $(keys "$W/all.lbrraw") keys"
