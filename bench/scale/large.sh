#!/bin/sh
# Binary size (issue 23): lbr2prof against llvm-profgen (line profile) and
# perf2bolt (fdata) on generated programs of about 20, 100 and 300 MB with
# full DWARF (bench/scale/gen-large.py), each recorded twice with
# utils/lbr-record: narrow (every 100th function hot: 1%, so the hot
# code grows with the binary), fixed (the same 320 functions hot at every
# size, every N/320th: the hot code stays, the binary grows) and broad
# (every function hot); narrow and broad of one binary execute the same
# number of instructions (so about the same number of samples), fixed
# executes what narrow does at 20 MB. Every tool runs on the same perf.data in the
# same run, through bench/scale/measure.py (wall time, peak RSS, peak
# anonymous memory of the process tree). Prints a table with ratios (never
# a verdict), writes bench/results/large.csv, and with REPORT=1 the table
# into bench/scale/README.md and the plot bench/scale/large.png.
#
# usage: bench/scale/large.sh
# env:   FUNCS     function counts (default "32000 160000 480000": 20, 100,
#                  300 MB)
#        PROFILES  (default "narrow fixed broad")
#        PEERS     (default "llvm-profgen perf2bolt"; "" runs lbr2prof only)
#        BROAD_MAX the largest function count with a broad row (default
#                  480000; the peers' broad runs of the large binaries take
#                  many minutes each)
#        RUNS      runs of each lbr2prof command (default 3; peers once)
#        REF       another lbr2prof (e.g. /work/main/build/bin/lbr2prof):
#                  its line profile and fdata are compared with cmp
#        WORK      (default $TMPDIR/lbr2prof-large; kept: the binaries take
#                  minutes to build)
#        PER_TU    functions per translation unit (default 2000: a worst
#                  case, every unit holds a hot function; real C and C++
#                  programs have tens per source file); another value
#                  builds its own binaries (in WORK/gen-tuK) and reports
#                  apart (large-tuK.csv, README section large-tuK)
#        BUILD_DIR (default build); REPORT=1 updates README.md and the plot
set -eu
cd "$(dirname "$0")/../.."
LBR2PROF=${BUILD_DIR:-build}/bin/lbr2prof
P2B=/usr/lib/llvm-19/bin/perf2bolt
PG=/usr/lib/llvm-19/bin/llvm-profgen
FUNCS=${FUNCS:-"32000 160000 480000"}
PROFILES=${PROFILES:-"narrow fixed broad"}
PEERS=${PEERS:-"llvm-profgen perf2bolt"}
BROAD_MAX=${BROAD_MAX:-480000}
RUNS=${RUNS:-3}
W=${WORK:-${TMPDIR:-/tmp}/lbr2prof-large}
[ -x "$LBR2PROF" ] || { echo "error: $LBR2PROF not built (sh utils/build.sh)" >&2; exit 1; }
mkdir -p "$W" bench/results
B=$W/lbr2prof
cp "$LBR2PROF" "$B"
PER_TU=${PER_TU:-2000}
if [ "$PER_TU" = 2000 ]; then
  NAME=large GEN=$W/gen
else
  NAME=large-tu$PER_TU GEN=$W/gen-tu$PER_TU
fi
CSV=bench/results/$NAME.csv
REV="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib tools include 2>/dev/null || echo '+changes')"
echo "functions,binary_mb,profile,samples,tool,run,seconds,max_rss_kb,anon_kb,status,same_as_ref" > "$CSV"
echo "lbr2prof $REV; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

# run N MB PROFILE SAMPLES TOOL OUT CMD...: one timed run, a CSV row.
run() {
  n=$1 mb=$2 prof=$3 samples=$4 tool=$5 r=$6 out=$7; shift 7
  rm -f "$out"
  m=$(python3 bench/scale/measure.py "$W/log" -- "$@")
  set -- $m
  status=ok
  [ "$4" = 0 ] || status="exit $4: $(tail -n 1 "$W/log" | tr ',' ';')"
  same=
  case $tool in
    lbr2prof-prof) [ -z "${REF:-}" ] || same=$(cmp -s "$out" "$W/ref.prof" && echo yes || echo NO) ;;
    lbr2prof-fdata) [ -z "${REF:-}" ] || same=$(cmp -s "$out" "$W/ref.fdata" && echo yes || echo NO) ;;
  esac
  echo "$n,$mb,$prof,$samples,$tool,$r,$1,$2,$3,$status,$same" >> "$CSV"
  printf '  %-15s %8.3f s %8.1f MB rss %8.1f MB anon %s %s\n' "$tool" "$1" \
    "$(echo "$2" | awk '{print $1/1024}')" "$(echo "$3" | awk '{print $1/1024}')" \
    "$status" "${same:+same-as-ref=$same}"
}

for n in $FUNCS; do
  python3 bench/scale/gen-large.py --functions "$n" --per-tu "$PER_TU" --out "$GEN"
  BIN=$GEN/large-$n
  mb=$(stat -c %s "$BIN" | awk '{printf "%.1f", $1/1e6}')
  for prof in $PROFILES; do
    if [ "$prof" = broad ] && [ "$n" -gt "$BROAD_MAX" ]; then
      echo "== $n functions: broad skipped (BROAD_MAX=$BROAD_MAX)"
      continue
    fi
    D=$W/$prof-$n.data
    [ "$PER_TU" = 2000 ] || D=$W/$prof-$n-tu$PER_TU.data
    case $prof in
      narrow) args="100 1000" ;;
      fixed) args="$((n / 320)) 1000" ;;
      broad) args="1 10" ;;
      *) echo "large.sh: unknown profile $prof (narrow, fixed, broad)" >&2; exit 2 ;;
    esac
    # The program's exit status is its checksum's low byte, not an error.
    [ -f "$D" ] || utils/lbr-record -q -o "$D" --period 2000 -- "$BIN" $args > /dev/null ||
      [ -s "$D" ]
    samples=$("$B" dump --summary "$D" | awk '/^samples:/ {print $2}')
    echo "== $n functions, $mb MB, $prof, $samples samples"
    if [ -n "${REF:-}" ]; then
      "$REF" "$D" --binary "$BIN" -o "$W/ref.prof" 2> /dev/null
      "$REF" "$D" --binary "$BIN" -o "$W/ref.fdata" 2> /dev/null
    fi
    cat "$D" "$BIN" > /dev/null
    r=1
    while [ "$r" -le "$RUNS" ]; do
      run "$n" "$mb" $prof "$samples" lbr2prof-prof $r "$W/o.prof" "$B" "$D" --binary "$BIN" -o "$W/o.prof"
      run "$n" "$mb" $prof "$samples" lbr2prof-fdata $r "$W/o.fdata" "$B" "$D" --binary "$BIN" -o "$W/o.fdata"
      r=$((r + 1))
    done
    case " $PEERS " in *" llvm-profgen "*)
      run "$n" "$mb" $prof "$samples" llvm-profgen 1 "$W/p.prof" "$PG" --binary "$BIN" --perfdata "$D" --output "$W/p.prof" ;;
    esac
    case " $PEERS " in *" perf2bolt "*)
      run "$n" "$mb" $prof "$samples" perf2bolt 1 "$W/p.fdata" "$P2B" -p "$D" -o "$W/p.fdata" "$BIN" ;;
    esac
  done
done
echo
if [ "${REPORT:-0}" = 1 ]; then
  /usr/bin/python3 bench/scale/large-report.py "$CSV" --rev "$REV" --load "$(cut -d' ' -f1-3 /proc/loadavg)" \
    --readme bench/scale/README.md --png bench/scale/$NAME.png --marker "$NAME"
else
  python3 bench/scale/large-report.py "$CSV" --rev "$REV"
fi
