#!/bin/sh
# bench/scale/kinds.sh: lbr2prof against its peers on bench/pgo's real
# programs, for every profile kind, on the same recordings: time and peak
# memory (issue 23's bar: 10x faster, 1/4 of the memory).
#
#   bench/scale/kinds.sh                  # every program bench/pgo recorded
#   PROGS="sqlite lua" RUNS=5 PEER_RUNS=3 bench/scale/kinds.sh
#
# Reads recording 1 of each program from bench/pgo's directory
# ($LBR2PROF_BENCH_DIR, default /tmp/lbr2prof-pgo: run bench/pgo/compare.sh
# and compare-cs.sh first): o2.data of bin/o2, probe.data of bin/probe,
# and their perf scripts (made here if missing, as compare-cs.sh makes
# them). Kinds, each with its peer on the same input:
#   line    lbr2prof o2.data --ignore-stack-samples    llvm-profgen --perfdata
#   cs      lbr2prof o2.data (contexts on lines)       llvm-profgen --perfscript
#   probe   lbr2prof probe.data --ignore-stack-samples llvm-profgen --perfdata
#   csspgo  lbr2prof probe.data (CSSPGO)               llvm-profgen --perfscript
#   fdata   lbr2prof o2.data -o x.fdata                perf2bolt -p o2.data
# The context kinds' peer reads a perf script made beforehand (llvm-profgen
# needs its call-stack frames made absolute: bench/pgo/perfscript-abs.py),
# so the time of `perf script` is not counted against it.
# lbr2prof runs RUNS times (default 3), each peer PEER_RUNS times (default
# 1: llvm-profgen takes 2-16 s a run here); medians are reported, all runs
# through measure.py (wall time, peak RSS of the process tree's largest
# process). Writes bench/results/kinds.csv and prints the table.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${LBR2PROF_BENCH_DIR:-/tmp/lbr2prof-pgo}
RUNS=${RUNS:-3}
PEER_RUNS=${PEER_RUNS:-1}
L2P=${LBR2PROF:-$ROOT/build/bin/lbr2prof}
PG=${PROFGEN:-llvm-profgen-19}
P2B=${PERF2BOLT:-/usr/lib/llvm-19/bin/perf2bolt}
OUT=$ROOT/bench/results
CSV=$OUT/kinds.csv
mkdir -p "$OUT"
[ -x "$L2P" ] || { echo "kinds.sh: no lbr2prof at $L2P (build first)" >&2; exit 1; }
command -v "$PG" > /dev/null || { echo "kinds.sh: $PG not found" >&2; exit 1; }
[ -x "$P2B" ] || { echo "kinds.sh: $P2B not found (bolt-19)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# A copy: a rebuild during the run cannot mix versions.
cp "$L2P" "$TMP/lbr2prof"
L2P=$TMP/lbr2prof
if [ -z "${PROGS:-}" ]; then
  PROGS=""
  for p in jq re2 gawk sqlite bzip2 lua; do
    [ -s "$W/$p/rec1/o2.data" ] && PROGS="$PROGS $p"
  done
fi
[ -n "$PROGS" ] || { echo "kinds.sh: no recordings under $W (run bench/pgo/compare.sh first)" >&2; exit 1; }

script() {
  [ -s "$1.script" ] && return
  perf script -i "$1" --show-mmap-events -F ip,dso,brstack 2> /dev/null |
    python3 "$ROOT/bench/pgo/perfscript-abs.py" > "$1.script.tmp" 2> /dev/null
  mv "$1.script.tmp" "$1.script"
}

# run TOOL KIND RUN CMD...: one measured run, appended to the CSV.
run() {
  tool=$1 kind=$2 r=$3
  shift 3
  set -- $(python3 "$HERE/measure.py" "$TMP/log" -- "$@")
  echo "$p,$kind,$tool,$r,$1,$2,$4" >> "$CSV"
  [ "$4" = 0 ] || { echo "kinds.sh: $tool failed on $p $kind:" >&2; tail -3 "$TMP/log" >&2; }
}

echo "program,kind,tool,run,seconds,max_rss_kb,status" > "$CSV"
for p in $PROGS; do
  R=$W/$p/rec1 B=$W/$p/bin
  script "$R/o2.data"
  script "$R/probe.data"
  for kind in line cs probe csspgo fdata; do
    echo "== $p $kind" >&2
    case $kind in
      line) set -- "$R/o2.data" --binary "$B/o2" --ignore-stack-samples -o "$TMP/x.prof" ;;
      cs) set -- "$R/o2.data" --binary "$B/o2" -o "$TMP/x.prof" ;;
      probe) set -- "$R/probe.data" --binary "$B/probe" --ignore-stack-samples -o "$TMP/x.prof" ;;
      csspgo) set -- "$R/probe.data" --binary "$B/probe" -o "$TMP/x.prof" ;;
      fdata) set -- "$R/o2.data" --binary "$B/o2" -o "$TMP/x.fdata" ;;
    esac
    r=1
    while [ $r -le "$RUNS" ]; do
      run lbr2prof $kind $r "$L2P" "$@"
      r=$((r + 1))
    done
    r=1
    while [ $r -le "$PEER_RUNS" ]; do
      case $kind in
        line) run llvm-profgen $kind $r "$PG" --binary "$B/o2" --perfdata "$R/o2.data" --ignore-stack-samples --output "$TMP/p.prof" ;;
        cs) run llvm-profgen $kind $r "$PG" --binary "$B/o2" --perfscript "$R/o2.data.script" --output "$TMP/p.prof" ;;
        probe) run llvm-profgen $kind $r "$PG" --binary "$B/probe" --perfdata "$R/probe.data" --ignore-stack-samples --output "$TMP/p.prof" ;;
        csspgo) run llvm-profgen $kind $r "$PG" --binary "$B/probe" --perfscript "$R/probe.data.script" --output "$TMP/p.prof" ;;
        fdata) run perf2bolt $kind $r "$P2B" "$B/o2" -p "$R/o2.data" -o "$TMP/p.fdata" ;;
      esac
      r=$((r + 1))
    done
  done
done
python3 "$HERE/kinds-report.py" "$CSV"
