#!/bin/sh
# bench/pgo/compare.sh: what each kind of sample profile, lbr2prof's and
# llvm-profgen's, recovers of instrumented PGO's gain on one program, over
# several recordings of its training run.
#
#   compare.sh PROGRAM [-n RECORDINGS] [-k KINDS] [--time [-r ROUNDS]] [--fresh]
#
# PROGRAM: sqlite | gawk | lua | bzip2 | jq | re2. In
# $LBR2PROF_BENCH_DIR/PROGRAM (default /tmp/lbr2prof-pgo/PROGRAM):
#  1. bin/o2 (-O2 -g -gdwarf-4 -fdebug-info-for-profiling, --emit-relocs),
#     bin/probe (the same plus -fpseudo-probe-for-profiling) and bin/instr
#     (instrumented PGO: instr-gen run natively on the training workload);
#  2. for each recording R = 1..RECORDINGS (default 3): the training run of
#     o2 and of probe, each with branch and call stacks (lbr-record -g
#     --seed R --period P, as perf record -b --call-graph fp), in recR/;
#  3. from those two perf.data, every profile kind (KINDS, default all):
#       lbr2prof-line    lbr2prof o2.data --ignore-stack-samples
#       lbr2prof-cs      lbr2prof o2.data               (contexts on lines)
#       lbr2prof-probe   lbr2prof probe.data --ignore-stack-samples
#       lbr2prof-csspgo  lbr2prof probe.data            (probes + contexts)
#       profgen-line     llvm-profgen-19 o2.data --ignore-stack-samples
#       profgen-cs       llvm-profgen-19 on o2.data's perf script
#       profgen-csspgo   llvm-profgen-19 on probe.data's perf script
#       create_llvm_prof create_llvm_prof o2.data (text; corrupt inline
#                        callsites dropped, see drop-corrupt-callsites.py)
#     llvm-profgen's CS profiles read a perf script whose call-stack frames
#     are made absolute first (perfscript-abs.py: perf 6.1 prints them
#     relative to their mapping, and llvm-profgen then drops every stack);
#     plus LBR2PROF_VARIANTS="NAME:o2|probe:OPT[,OPT...] ..." (lbr2prof on
#     that recording with those options, measured as lbr2prof-NAME);
#  4. each profile's sample-use build (probe kinds with the probe flag);
#  5. one callgrind run of every binary on the evaluation workload (its
#     output checked against o2's) -> cg/NAME.cg; with --time also wall
#     time (measure.sh, ROUNDS rounds) of o2, instr and recording 1's builds.
# Every step is skipped when its output exists, so an interrupted run goes
# on where it stopped (--fresh starts over); outputs are written under a
# temporary name and renamed. corpus_table.py then writes result.txt and
# result.csv: each binary's estimate, and each kind's share of
# instrumented PGO's gain as the mean over recordings with every value.
#
# Environment: LBR2PROF (the lbr2prof binary; default build/bin/lbr2prof;
# give a copy so that rebuilds do not change it mid-run), LBR2PROF_ARGS
# (options added to every lbr2prof profile), LBR2PROF_VARIANTS (above),
# LBR2PROF_BENCH_DIR.
set -eu
USAGE="usage: compare.sh sqlite|gawk|lua|bzip2|jq|re2 [-n RECORDINGS] [-k KINDS] [--time [-r ROUNDS]] [--fresh]"
. "$(dirname "$0")/common.sh"
PROG=${1:-}
[ $# -gt 0 ] && shift
parse_options "$@"
ALL_KINDS="lbr2prof-line lbr2prof-cs lbr2prof-probe lbr2prof-csspgo profgen-line profgen-cs profgen-csspgo create_llvm_prof"
KINDS=${KINDS:-$ALL_KINDS}
for k in $KINDS; do
  case " $ALL_KINDS " in *" $k "*) ;; *) echo "compare.sh: unknown kind $k" >&2; exit 2 ;; esac
done
workload "$PROG"
[ -d "$W/src/$PROG" ] && [ -d "$W/data/eval" ] || sh "$HERE/setup.sh"
LBR2PROF=${LBR2PROF:-$ROOT/build/bin/lbr2prof}
[ -x "$LBR2PROF" ] || (cd "$ROOT" && sh utils/build.sh > /dev/null)
L2P_ARGS=${LBR2PROF_ARGS:-}
PROBE=-fpseudo-probe-for-profiling
O=$W/$PROG
[ $FRESH = 1 ] && rm -rf "$O"
mkdir -p "$O/bin" "$O/cg"
cd "$O"
echo "lbr2prof: $LBR2PROF${L2P_ARGS:+ $L2P_ARGS} ($("$LBR2PROF" --version 2>&1 | head -n 1))"

# build NAME [PROFILE]: bin/NAME (sample-use of PROFILE; probe flag for
# probe kinds and the probe binary itself), unless it exists.
PROBE_NAMES="probe lbr2prof-probe lbr2prof-csspgo profgen-csspgo"
build() {
  [ -x "$2" ] && return
  case " $PROBE_NAMES " in
    *" $1 "*) extra=$PROBE ;;
    *) extra="" ;;
  esac
  if [ -n "${3:-}" ]; then
    PGO_EXTRA_CFLAGS="$extra" sh "$HERE/build.sh" "$PROG" sample-use "$3" -o "$2"
  else
    PGO_EXTRA_CFLAGS="$extra" sh "$HERE/build.sh" "$PROG" o2 -o "$2"
  fi
}

step "build o2, probe and instr"
build o2 bin/o2
build probe bin/probe
if [ ! -x bin/instr ]; then
  rm -f instr-*.profraw
  build_instr
fi

# cg NAME BINARY: callgrind on the evaluation workload in its own directory,
# in the background (two at a time, the caller waits).
cg() {
  [ -s "cg/$1.cg" ] && return
  mkdir -p "cg/$1.run"
  # shellcheck disable=SC2086
  (cd "cg/$1.run" &&
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
      --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
      --callgrind-out-file="$O/cg/$1.cg.tmp" "$2" $EVAL > "$O/cg/$1.out" 2> "$O/cg/$1.cg.log" &&
    mv "$O/cg/$1.cg.tmp" "$O/cg/$1.cg" && rm -rf "$O/cg/$1.run") ||
    echo "compare.sh: callgrind of $1 failed (see cg/$1.cg.log)"
}
# measure NAME=BINARY...: the callgrind runs not done yet, two at a time.
measure() {
  running=0
  for nb in "$@"; do
    n=${nb%%=*}
    [ -s "cg/$n.cg" ] && continue
    cg "$n" "$O/${nb#*=}" &
    running=$((running + 1))
    if [ $running -ge 2 ]; then wait; running=0; fi
  done
  wait
  for nb in "$@"; do
    n=${nb%%=*}
    [ -s "cg/$n.out" ] && [ -s cg/o2.out ] || continue
    # speedtest1 prints its own timings; nothing else differs between builds.
    if [ "$(sed -E 's/ *[0-9]+\.[0-9]+s$//' "cg/$n.out" | md5sum)" != \
         "$(sed -E 's/ *[0-9]+\.[0-9]+s$//' cg/o2.out | md5sum)" ]; then
      echo "compare.sh: warning: $n prints something else than o2 (cg/$n.out)"
    fi
  done
}
step "callgrind of o2 and instr on the evaluation workload: $EVAL"
measure o2=bin/o2 instr=bin/instr

# gen NAME COMMAND...: make recR/NAME.prof unless it exists.
gen() {
  N=$1; shift
  [ -s "$N.prof" ] && return
  if "$@" > "$N.gen.log" 2>&1 && [ -s "$N.tmp.prof" ]; then
    mv "$N.tmp.prof" "$N.prof"
  else
    echo "$N: no profile: $(grep -m1 -iE 'error|fail' "$N.gen.log" | cut -c1-110)"
    rm -f "$N.tmp.prof"
  fi
}
r=1
while [ "$r" -le "$NREC" ]; do
  R=$O/rec$r
  mkdir -p "$R/bin"
  cd "$R"
  for B in o2 probe; do
    [ -s "$B.data" ] && continue
    step "recording $r: lbr-record -g --seed $r --period $PERIOD -- $B $TRAIN"
    # shellcheck disable=SC2086
    "$ROOT/utils/lbr-record" -g --seed "$r" --period "$PERIOD" -o "$B.data.tmp" -- \
      "$O/bin/$B" $TRAIN > /dev/null 2> "$B.record.log" || { cat "$B.record.log"; exit 1; }
    mv "$B.data.tmp" "$B.data"
    grep 'lbr-record:' "$B.record.log"
  done
  step "recording $r: profiles"
  for k in $KINDS; do
    # shellcheck disable=SC2086 # L2P_ARGS is a list of options
    case $k in
      lbr2prof-line) gen $k "$LBR2PROF" o2.data --binary "$O/bin/o2" $L2P_ARGS --ignore-stack-samples -o $k.tmp.prof ;;
      lbr2prof-cs) gen $k "$LBR2PROF" o2.data --binary "$O/bin/o2" $L2P_ARGS -o $k.tmp.prof ;;
      lbr2prof-probe) gen $k "$LBR2PROF" probe.data --binary "$O/bin/probe" $L2P_ARGS --ignore-stack-samples -o $k.tmp.prof ;;
      lbr2prof-csspgo) gen $k "$LBR2PROF" probe.data --binary "$O/bin/probe" $L2P_ARGS -o $k.tmp.prof ;;
      profgen-line) gen $k llvm-profgen-19 --binary "$O/bin/o2" --perfdata o2.data --ignore-stack-samples --output $k.tmp.prof ;;
      profgen-cs)
        profgen_script o2.data
        gen $k llvm-profgen-19 --binary "$O/bin/o2" --perfscript o2.data.script --output $k.tmp.prof ;;
      profgen-csspgo)
        profgen_script probe.data
        gen $k llvm-profgen-19 --binary "$O/bin/probe" --perfscript probe.data.script --output $k.tmp.prof ;;
      create_llvm_prof)
        [ -s $k.prof ] && continue
        if create_llvm_prof --binary "$O/bin/o2" --profile o2.data --out $k.raw.txt \
             --format=text > $k.gen.log 2>&1; then
          if llvm-profdata-19 show --sample $k.raw.txt > /dev/null 2> $k.check.log; then
            mv $k.raw.txt $k.prof
          else
            python3 "$HERE/drop-corrupt-callsites.py" $k.raw.txt $k.tmp.prof >> $k.gen.log 2>&1 &&
              mv $k.tmp.prof $k.prof
          fi
        else
          echo "$k: no profile: $(tail -n 1 $k.gen.log | cut -c1-110)"
        fi ;;
    esac
  done
  VARIANTS=""
  for v in ${LBR2PROF_VARIANTS:-}; do
    n=lbr2prof-${v%%:*} rest=${v#*:}
    d=${rest%%:*} a=$(echo "${rest#*:}" | tr , ' ')
    case $d in o2|probe) ;; *) echo "compare.sh: variant $v: want NAME:o2|probe:OPTS" >&2; exit 2 ;; esac
    # shellcheck disable=SC2086
    gen "$n" "$LBR2PROF" $d.data --binary "$O/bin/$d" $L2P_ARGS $a -o $n.tmp.prof
    [ $d = probe ] && PROBE_NAMES="$PROBE_NAMES $n"
    [ -s "$n.prof" ] && VARIANTS="$VARIANTS $n"
  done
  step "recording $r: builds"
  NAMES=""
  for k in $KINDS $VARIANTS; do
    p=$R/$k.prof
    [ -s "$p" ] || continue
    (cd "$O" && build "$k" "$R/bin/$k" "$p")
    NAMES="$NAMES r$r-$k=rec$r/bin/$k"
  done
  cd "$O"
  step "recording $r: callgrind"
  # shellcheck disable=SC2086
  measure $NAMES
  r=$((r + 1))
done
cd "$O"

if [ $TIME = 1 ]; then
  step "wall time: o2, o2-again, instr and recording 1's builds ($ROUNDS rounds)"
  cp bin/o2 bin/o2-again
  N1="o2=$O/bin/o2 o2-again=$O/bin/o2-again instr=$O/bin/instr"
  for b in rec1/bin/*; do
    case $b in *.log|*.tmp*) continue ;; esac
    [ -x "$b" ] && N1="$N1 $(basename "$b")=$O/$b"
  done
  mkdir -p run
  # shellcheck disable=SC2086
  (cd run && sh "$HERE/measure.sh" -r "$ROUNDS" --ref instr --no-callgrind -o "$O/wall" $N1 -- $EVAL)
fi

step "table"
python3 "$HERE/corpus_table.py" "$W" "$PROG" | tee "$O/result.txt"
step "done: $O/result.txt, $O/result.csv"
