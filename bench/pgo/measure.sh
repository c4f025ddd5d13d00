#!/bin/sh
# bench/pgo/measure.sh: time a set of builds of one program on one workload
# two ways, and tabulate.
#
#   measure.sh [-r ROUNDS] [-j JOBS] [--ref NAME] [--no-callgrind]
#              [--no-time] -o OUT NAME=BINARY... -- ARGS...
#
# Every BINARY runs with the same ARGS, in the current directory, with
# LC_ALL=C. The first NAME is the baseline of the speedups.
#  (a) wall time: hyperfine, ROUNDS rounds (default 15) of one run of every
#      binary, in a fresh random order each round, so that a slow spell of
#      the machine hits all binaries alike; after one warm-up round whose
#      output is also compared between binaries (speedtest1's own
#      timings stripped). Median and interquartile range are reported, and
#      user+system time; and each binary paired by round with the first
#      (pgo_stats.py: median ratio, 95% bootstrap interval).
#  (b) a deterministic proxy: one run each under valgrind --tool=callgrind
#      --cache-sim=yes --branch-sim=yes with fixed caches (I1 and D1 32 KiB
#      8-way, LL 8 MiB 16-way, 64-byte lines), JOBS at a time (default 2):
#      Ir, mispredicts, cache misses and the estimate of pgo_stats.py.
# Writes OUT.txt (the table), OUT.csv and the raw results in OUT.d/.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=15 JOBS=2 REF="" CG=1 TIME=1 OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    -r) ROUNDS=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --ref) REF=$2; shift 2 ;;
    --no-callgrind) CG=0; shift ;;
    --no-time) TIME=0; shift ;;
    -o) OUT=$2; shift 2 ;;
    --) break ;;
    *=*) break ;;
    *) echo "measure.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$OUT" ] || { echo "usage: measure.sh [-r N] [-j N] [--ref NAME] [--no-callgrind] [--no-time] -o OUT NAME=BIN... -- ARGS..." >&2; exit 2; }
NAMES="" BINS=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  NAMES="$NAMES ${1%%=*}"
  BINS="$BINS ${1#*=}"
  shift
done
[ "${1:-}" = -- ] && shift
ARGS="$*"
export LC_ALL=C
D=$OUT.d
rm -rf "$D"
mkdir -p "$D"

bin_of() { # name
  set -- "$1" $NAMES
  want=$1; shift
  i=0
  for n in "$@"; do
    i=$((i + 1))
    if [ "$n" = "$want" ]; then
      # shellcheck disable=SC2086
      set -- $BINS
      eval "echo \${$i}"
      return
    fi
  done
}

# Warm-up round and output check.
ref_sum=""
for n in $NAMES; do
  b=$(bin_of "$n")
  # shellcheck disable=SC2086
  "$b" $ARGS > "$D/$n.stdout" 2> "$D/$n.stderr" ||
    { echo "measure.sh: $n failed on the workload (see $D/$n.stderr)" >&2; exit 1; }
  s=$(sed -E 's/ *[0-9]+\.[0-9]+s$//' "$D/$n.stdout" | md5sum)
  if [ -z "$ref_sum" ]; then ref_sum=$s
  elif [ "$s" != "$ref_sum" ]; then
    echo "measure.sh: warning: $n prints something else than the baseline ($D/$n.stdout)" >&2
  fi
done

if [ $TIME = 1 ]; then
  r=1
  while [ $r -le "$ROUNDS" ]; do
    # A fresh order each round (seeded by the round number, so a run is
    # repeatable); a fixed rotation kept each binary's neighbours (o2-again
    # always ran right after o2).
    set --
    for n in $(for n in $NAMES; do echo "$n"; done |
               awk -v s="$r" 'BEGIN { srand(s) } { print rand() "\t" $0 }' |
               sort -n | cut -f 2); do
      set -- "$@" -n "$n" "$(bin_of "$n") $ARGS"
    done
    hyperfine -N -w 0 -r 1 --style none --export-json "$D/round$r.json" "$@" \
      > "$D/round$r.log" 2>&1 ||
      { cat "$D/round$r.log" >&2; exit 1; }
    r=$((r + 1))
  done
fi

if [ $CG = 1 ]; then
  running=0
  for n in $NAMES; do
    b=$(bin_of "$n")
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
      --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
      --callgrind-out-file="$D/$n.cg" "$b" $ARGS > /dev/null 2> "$D/$n.cg.log" &
    running=$((running + 1))
    if [ $running -ge "$JOBS" ]; then wait; running=0; fi
  done
  wait
fi

# shellcheck disable=SC2086
python3 "$HERE/pgo_stats.py" "$D" $NAMES ${REF:+--ref "$REF"} --csv "$OUT.csv" |
  tee "$OUT.txt"
