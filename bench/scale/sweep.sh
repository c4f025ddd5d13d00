#!/bin/sh
# Distinct addresses at a fixed number of samples (issue 23): the
# 32,000-function binary of gen-large.py (20 MB), recorded with every S-th
# function hot for S in STRIDES and ITERS = 10 x S, so each recording
# executes about the same number of instructions (about the same number of
# samples) while the executed code shrinks S-fold. Times lbr2prof -o x.prof
# (RUNS times) and llvm-profgen (once) on each perf.data, through
# measure.py; the distinct executed instruction addresses are lbr2prof
# --stats' "executed instructions". Writes bench/results/sweep.csv and
# prints the table (ratios, no verdict); with REPORT=1 also the section of
# bench/scale/README.md between its sweep markers and sweep.png.
#
# usage: bench/scale/sweep.sh
# env:   STRIDES (default "1 2 4 8 16 32 64 128 256"), RUNS (default 3),
#        WORK (default $TMPDIR/lbr2prof-large, shared with large.sh),
#        BUILD_DIR (default build), REPORT=1
set -eu
cd "$(dirname "$0")/../.."
LBR2PROF=${BUILD_DIR:-build}/bin/lbr2prof
PG=/usr/lib/llvm-19/bin/llvm-profgen
STRIDES=${STRIDES:-"1 2 4 8 16 32 64 128 256"}
RUNS=${RUNS:-3}
W=${WORK:-${TMPDIR:-/tmp}/lbr2prof-large}
N=32000
[ -x "$LBR2PROF" ] || { echo "error: $LBR2PROF not built (sh utils/build.sh)" >&2; exit 1; }
mkdir -p "$W" bench/results
B=$W/lbr2prof-sweep
cp "$LBR2PROF" "$B"
CSV=bench/results/sweep.csv
REV="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib tools include 2>/dev/null || echo '+changes')"
python3 bench/scale/gen-large.py --functions $N --out "$W/gen"
BIN=$W/gen/large-$N
echo "stride,hot_functions,samples,distinct_addresses,tool,run,seconds,max_rss_kb,anon_kb,status" > "$CSV"
echo "lbr2prof $REV; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $STRIDES; do
  D=$W/sweep-$s.data
  # The program's exit status is its checksum's low byte, not an error.
  [ -f "$D" ] || utils/lbr-record -q -o "$D" --period 2000 -- "$BIN" "$s" $((10 * s)) > /dev/null ||
    [ -s "$D" ]
  samples=$("$B" dump --summary "$D" | awk '/^samples:/ {print $2}')
  distinct=$("$B" "$D" --binary "$BIN" -o "$W/s.prof" --stats 2>&1 |
    awk '/executed instructions:/ {print $3}')
  hot=$(( (N + s - 1) / s ))
  echo "== stride $s: $hot hot functions, $samples samples, $distinct distinct addresses"
  cat "$D" "$BIN" > /dev/null
  r=1
  while [ "$r" -le "$((RUNS + 1))" ]; do
    if [ "$r" -le "$RUNS" ]; then
      tool=lbr2prof; set -- "$B" "$D" --binary "$BIN" -o "$W/s.prof"
    else
      tool=llvm-profgen; set -- "$PG" --binary "$BIN" --perfdata "$D" --output "$W/p.prof"
    fi
    m=$(python3 bench/scale/measure.py "$W/log" -- "$@")
    set -- $m
    status=ok
    [ "$4" = 0 ] || status="exit $4"
    echo "$s,$hot,$samples,$distinct,$tool,$r,$1,$2,$3,$status" >> "$CSV"
    printf '  %-13s %8.3f s %8.1f MB rss %s\n' "$tool" "$1" "$(echo "$2" | awk '{print $1/1024}')" "$status"
    r=$((r + 1))
  done
done
if [ "${REPORT:-0}" = 1 ]; then
  /usr/bin/python3 bench/scale/sweep-report.py "$CSV" --rev "$REV" --load "$(cut -d' ' -f1-3 /proc/loadavg)" \
    --readme bench/scale/README.md --png bench/scale/sweep.png
else
  python3 bench/scale/sweep-report.py "$CSV" --rev "$REV"
fi
