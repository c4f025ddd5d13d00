#!/bin/sh
# bench/pgo/corpus.sh: the whole corpus, unattended, one program at a time.
#
#   corpus.sh [-n RECORDINGS] [-k KINDS] [PROGRAM...]
#
# PROGRAM defaults to every program of the corpus, the newest first:
# bzip2 jq re2 sqlite gawk lua. The work goes breadth first: compare.sh
# PROGRAM -n 1 for every program, then -n 2 for every program, and so on up
# to RECORDINGS (default 3), so that an early stop leaves every program
# with the same number of recordings. compare.sh skips every step whose
# output exists, so running corpus.sh again after an interruption (or with
# a larger -n) goes on where it stopped. Logs go to
# $LBR2PROF_BENCH_DIR/PROGRAM.log; the corpus table (corpus_table.py) to
# $LBR2PROF_BENCH_DIR/corpus.txt. Environment as compare.sh (LBR2PROF,
# LBR2PROF_ARGS, LBR2PROF_VARIANTS, LBR2PROF_BENCH_DIR).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
W=${LBR2PROF_BENCH_DIR:-/tmp/lbr2prof-pgo}
N=3 KOPT=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N=$2; shift 2 ;;
    -k) KOPT=$2; shift 2 ;;
    -*) echo "usage: corpus.sh [-n RECORDINGS] [-k KINDS] [PROGRAM...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
PROGS=${*:-bzip2 jq re2 sqlite gawk lua}
sh "$HERE/setup.sh"
i=1
while [ $i -le "$N" ]; do
  for p in $PROGS; do
    echo "== $(date +%H:%M:%S) $p, recordings 1..$i"
    # One program's failure does not stop the others.
    sh "$HERE/compare.sh" "$p" -n "$i" ${KOPT:+-k "$KOPT"} >> "$W/$p.log" 2>&1 ||
      echo "corpus.sh: compare.sh $p -n $i failed, see $W/$p.log"
  done
  i=$((i + 1))
done
# shellcheck disable=SC2086
python3 "$HERE/corpus_table.py" "$W" $PROGS | tee "$W/corpus.txt"
