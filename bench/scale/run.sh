#!/bin/sh
# Scaling (issue 6): how lbr2prof's time and memory grow with the number of
# samples, against perf2bolt (fdata) and llvm-profgen and create_llvm_prof
# (sample profiles), with `cat FILE > /dev/null` as the floor. Builds
# test/lbr-record/Inputs/branchy.c, captures it once with utils/lbr-record
# (32-entry stacks), grows the capture with bench/scale/replicate.py to each
# size, and times every tool RUNS times per size, page cache warm, through
# bench/scale/measure.py (wall time, /usr/bin/time's peak RSS, and the peak
# anonymous memory of the process tree). Then lbr2prof -j1 and -j2 on the 1M
# file. Prints a table with ratios, writes bench/results/scale.csv and
# bench/results/scale.svg (log-log plots of samples against time and RSS).
#
# lbr2prof's sample-profile run (-o x.prof) is marked n/a while lbr2prof
# refuses it; once it works, it is timed like the others.
#
# usage: bench/scale/run.sh
# env:   RUNS      runs per tool and size (default 3)
#        SIZES     sample counts (default "10000 100000 1000000")
#        BIG=1     also 10000000 samples (an 8.2 GB file, and perf2bolt
#                  writes 11 GB of perf script text next to it)
#        THREADS_AT size of the -j1/-j2 runs (default 1000000)
#        PERIOD    lbr-record --period (default 60: about 34k samples)
#        ONE_RUN   seconds: a first run longer than this is not repeated
#                  (default 60)
#        MAX_SECS  skip a tool whose time, extrapolated linearly from its
#                  previous size, would exceed this (default 900); it is
#                  also skipped if its extrapolated memory (anonymous, else
#                  RSS) would not fit in 85% of MemAvailable
#        BUILD_DIR (default build), WORK (default $TMPDIR/lbr2prof-scale),
#        KEEP=1    keep WORK (the perf.data files) afterwards
set -eu
cd "$(dirname "$0")/../.."
LBR2PROF=${BUILD_DIR:-build}/bin/lbr2prof
P2B=/usr/lib/llvm-19/bin/perf2bolt
RUNS=${RUNS:-3}
SIZES=${SIZES:-"10000 100000 1000000"}
[ "${BIG:-0}" = 1 ] && SIZES="$SIZES 10000000"
THREADS_AT=${THREADS_AT:-1000000}
PERIOD=${PERIOD:-60}
ONE_RUN=${ONE_RUN:-60}
MAX_SECS=${MAX_SECS:-900}
W=${WORK:-${TMPDIR:-/tmp}/lbr2prof-scale}
[ -x "$LBR2PROF" ] || { echo "error: $LBR2PROF not built (sh utils/build.sh)" >&2; exit 1; }
mkdir -p "$W" bench/results
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT
# A copy, so that a rebuild during the run cannot mix two versions.
B=$W/lbr2prof
cp "$LBR2PROF" "$B"
CSV=bench/results/scale.csv
echo "tool,samples,run,seconds,max_rss_kb,anon_kb,file_mb,out_bytes,status,note" > "$CSV"
# create_llvm_prof logs through glog into /tmp otherwise.
GLOG_log_dir=$W
export GLOG_log_dir

echo "lbr2prof $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib tools include 2>/dev/null || echo '+changes'); $(nproc) cores; $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo); load $(cut -d' ' -f1-3 /proc/loadavg)"
BIN=$W/branchy
clang-19 -O2 -g -gdwarf-4 -Wl,--emit-relocs test/lbr-record/Inputs/branchy.c -o "$BIN"
utils/lbr-record -q -o "$W/capture.data" --period "$PERIOD" -- "$BIN" > /dev/null
echo "capture: $("$B" dump --summary "$W/capture.data" | grep '^samples:') (period $PERIOD)"

# Whether lbr2prof writes sample profiles yet.
PROF_NA=
if ! "$B" "$W/capture.data" --binary "$BIN" -o "$W/probe.prof" > "$W/probe.log" 2>&1; then
  PROF_NA=$(head -n 1 "$W/probe.log" | tr ',' ';')
  echo "lbr2prof sample profile: n/a ($PROF_NA)"
fi

# skip_reason TOOL SAMPLES: why TOOL should not run at SAMPLES, from its
# largest smaller run (linear extrapolation of time and memory), or nothing.
skip_reason() {
  avail=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
  awk -F, -v t="$1" -v n="$2" -v avail="$avail" -v maxs="$MAX_SECS" '
    $1 == t && $9 == "ok" && $2 < n && $2 >= m { if ($2 > m) { s = 0; r = 0 }
      m = $2; if ($4 > s) s = $4; k = $6 > 0 ? $6 : $5; if (k > r) r = k }
    END { if (!m) exit
      f = n / m
      if (r * f > 0.85 * avail)
        printf "skipped: %.1f GB at %d samples, ~%.0f GB predicted, %.0f GB available",
          r / 1048576, m, r * f / 1048576, avail / 1048576
      else if (s * f > maxs)
        printf "skipped: %.0f s at %d samples, ~%.0f s predicted > MAX_SECS %d",
          s, m, s * f, maxs }' "$CSV"
}

# measure TOOL SAMPLES FILE OUT CMD...: RUNS timed runs (fewer if slow),
# each with FILE freshly read into the page cache (a big peer can evict
# it); OUT is the output file the command writes, or - if none.
measure() {
  tool=$1 n=$2 f=$3 out=$4; shift 4
  mb=$(stat -c %s "$f" | awk '{printf "%.1f", $1/1e6}')
  why=$(skip_reason "$tool" "$n")
  if [ -n "$why" ]; then
    echo "  $tool: $why"
    echo "$tool,$n,,,,,$mb,,skipped,$why" >> "$CSV"
    return
  fi
  r=1
  while [ "$r" -le "$RUNS" ]; do
    [ "$out" = - ] || rm -f "$out"
    cat "$f" > /dev/null
    m=$(python3 bench/scale/measure.py "$W/log" -- "$@")
    secs=${m%% *} m=${m#* }
    rss=${m%% *} m=${m#* }
    anon=${m%% *} rc=${m#* }
    if [ "$rc" != 0 ]; then
      err=$(grep -v '^Command exited' "$W/log" | tail -n 1 | tr ',' ';')
      echo "  $tool: failed (exit $rc): $err"
      echo "$tool,$n,$r,$secs,,,$mb,,fail,exit $rc: $err" >> "$CSV"
      return
    fi
    bytes=0
    [ "$out" = - ] || bytes=$(stat -c %s "$out" 2>/dev/null || echo 0)
    note=
    if [ "$r" = 1 ] && [ "$RUNS" -gt 1 ] && \
       awk -v s="$secs" -v l="$ONE_RUN" 'BEGIN {exit !(s > l)}'; then
      note="1 run: took $secs s"
      echo "  $tool: $note (> ONE_RUN $ONE_RUN s)"
    fi
    echo "$tool,$n,$r,$secs,$rss,$anon,$mb,$bytes,ok,$note" >> "$CSV"
    [ -z "$note" ] || return 0
    r=$((r + 1))
  done
}

for n in $SIZES; do
  F=$W/s$n.data
  python3 bench/scale/replicate.py "$W/capture.data" --samples "$n" -o "$F" > /dev/null
  echo "== $n samples: $(stat -c %s "$F" | awk '{printf "%.0f MB", $1/1e6}')"
  measure cat "$n" "$F" - cat "$F"
  measure lbr2prof-fdata "$n" "$F" "$W/o.l.fdata" "$B" "$F" --binary "$BIN" -o "$W/o.l.fdata"
  measure perf2bolt "$n" "$F" "$W/o.p.fdata" "$P2B" -p "$F" -o "$W/o.p.fdata" "$BIN"
  if [ -n "$PROF_NA" ]; then
    echo "lbr2prof-prof,$n,,,,,$(stat -c %s "$F" | awk '{printf "%.1f", $1/1e6}'),,n/a,$PROF_NA" >> "$CSV"
  else
    measure lbr2prof-prof "$n" "$F" "$W/o.l.prof" "$B" "$F" --binary "$BIN" -o "$W/o.l.prof"
  fi
  measure llvm-profgen "$n" "$F" "$W/o.g.prof" llvm-profgen-19 --binary "$BIN" \
    --perfdata "$F" --output "$W/o.g.prof"
  measure create_llvm_prof "$n" "$F" "$W/o.c.prof" create_llvm_prof --binary="$BIN" \
    --profile="$F" --out="$W/o.c.prof" --format=text
  if [ "$n" = "$THREADS_AT" ]; then
    for j in 1 2; do
      measure "lbr2prof-j$j" "$n" "$F" "$W/o.l.fdata" "$B" "$F" --binary "$BIN" \
        -j "$j" -o "$W/o.l.fdata"
    done
  fi
  # The next size does not need this one; 10M would not fit twice in RAM.
  [ "${KEEP:-0}" = 1 ] || rm -f "$F"
done
echo
python3 bench/scale/report.py "$CSV" --svg bench/results/scale.svg
echo "csv: $CSV"
