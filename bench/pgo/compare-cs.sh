#!/bin/sh
# bench/pgo/compare-cs.sh sqlite|gawk|lua|bzip2|jq|re2 [-r ROUNDS] [--no-callgrind]
#
# Beyond line-based profiles, from one set of measurements: what
# context-sensitive (CS) and pseudo-probe profiles buy, lbr2prof's and
# llvm-profgen's, beside instrumented PGO. In $LBR2PROF_BENCH_DIR/PROGRAM-cs
# (default /tmp/lbr2prof-pgo/PROGRAM-cs):
#
#  1. build o2 (-O2 -g -gdwarf-4 -fdebug-info-for-profiling, as compare.sh)
#     and probe (the same plus -fpseudo-probe-for-profiling);
#  2. record the training run of each with call stacks as well as branch
#     stacks (utils/lbr-record -g, as perf record -b --call-graph fp);
#  3. make the profiles, every one from those two recordings:
#       lbr2prof-line    lbr2prof o2.data --ignore-stack-samples
#       lbr2prof-cs      lbr2prof o2.data            (contexts, pre-inliner)
#       lbr2prof-probe   lbr2prof probe.data --ignore-stack-samples
#                                                     (probes, no contexts)
#       lbr2prof-csspgo  lbr2prof probe.data          (probes + contexts)
#       profgen-line     llvm-profgen-19 --ignore-stack-samples on o2.data
#       profgen-cs       llvm-profgen-19 on o2.data   (CS from hybrid samples)
#       profgen-csspgo   llvm-profgen-19 on probe.data (probes + contexts)
#     (llvm-profgen's CS profiles from a perf script with absolute frames,
#     see perfscript-abs.py)
#     and instrumented PGO (instr-gen run on the training workload);
#  4. build every variant (probe variants with -fpseudo-probe-for-profiling,
#     as the profile needs) and measure them with measure.sh: hyperfine
#     (interleaved rounds, medians) and the callgrind estimate.
#
# Options as compare.sh; LBR2PROF picks the lbr2prof binary (default: the
# tree's build/bin/lbr2prof). Needs bench/pgo/setup.sh's sources and inputs
# (run first if missing).
set -eu
USAGE="usage: compare-cs.sh sqlite|gawk|lua|bzip2|jq|re2 [-r ROUNDS] [--no-callgrind]"
. "$(dirname "$0")/common.sh"
LBR2PROF=${LBR2PROF:-$ROOT/build/bin/lbr2prof}
PROG=${1:-}
[ $# -gt 0 ] && shift
parse_options "$@"
[ -d "$W/src/sqlite" ] && [ -d "$W/src/gawk" ] && [ -d "$W/data/eval" ] ||
  sh "$HERE/setup.sh"
[ -x "$LBR2PROF" ] || (cd "$ROOT" && sh utils/build.sh > /dev/null)
workload "$PROG"
O=$W/$PROG-cs
rm -rf "$O"
mkdir -p "$O/bin"
cd "$O"
PROBE=-fpseudo-probe-for-profiling

step "build o2 and probe"
sh "$HERE/build.sh" "$PROG" o2 -o bin/o2
cp bin/o2 bin/o2-again
PGO_EXTRA_CFLAGS=$PROBE sh "$HERE/build.sh" "$PROG" o2 -o bin/probe

for B in o2 probe; do
  step "record the training run of $B with call stacks (lbr-record -g --period $PERIOD)"
  # shellcheck disable=SC2086
  "$ROOT/utils/lbr-record" -g -o "$B.data" --period "$PERIOD" -- "bin/$B" $TRAIN \
    > "$B.train.out" 2> "$B.record.log" || { cat "$B.record.log"; exit 1; }
  grep 'lbr-record:' "$B.record.log"
done

step "profiles"
gen() { # NAME COMMAND...: runs the generator, keeps the profile if it works
  N=$1; shift
  if "$@" > "$N.gen.log" 2>&1 && [ -s "$N.prof" ]; then
    PROFILES="$PROFILES $N"
  else
    echo "$N: no profile: $(grep -m1 -iE 'error|warn' "$N.gen.log" | cut -c1-110)"
  fi
}
PROFILES=""
gen lbr2prof-line "$LBR2PROF" o2.data --binary bin/o2 -o lbr2prof-line.prof --ignore-stack-samples --stats
gen lbr2prof-cs "$LBR2PROF" o2.data --binary bin/o2 -o lbr2prof-cs.prof --stats
gen lbr2prof-probe "$LBR2PROF" probe.data --binary bin/probe -o lbr2prof-probe.prof --ignore-stack-samples --stats
gen lbr2prof-csspgo "$LBR2PROF" probe.data --binary bin/probe -o lbr2prof-csspgo.prof --stats
gen profgen-line llvm-profgen-19 --binary bin/o2 --perfdata o2.data --output profgen-line.prof --ignore-stack-samples
# perf 6.1 prints call-stack frames relative to their mapping, and
# llvm-profgen then drops every stack: its CS profiles read a perf script
# with the frames made absolute (perfscript-abs.py).
profgen_script o2.data
profgen_script probe.data
gen profgen-cs llvm-profgen-19 --binary bin/o2 --perfscript o2.data.script --output profgen-cs.prof
gen profgen-csspgo llvm-profgen-19 --binary bin/probe --perfscript probe.data.script --output profgen-csspgo.prof
for p in $PROFILES; do
  printf "%-16s %s\n" "$p" "$(llvm-profdata-19 show --sample "$p.prof" 2>&1 | grep -c '^Function: ') top-level profiles, $(wc -c < "$p.prof") bytes"
done

step "build the PGO variants"
for p in $PROFILES; do
  case $p in
    *probe|*csspgo) PGO_EXTRA_CFLAGS=$PROBE sh "$HERE/build.sh" "$PROG" sample-use "$O/$p.prof" -o "bin/$p" ;;
    *) sh "$HERE/build.sh" "$PROG" sample-use "$O/$p.prof" -o "bin/$p" ;;
  esac
done
build_instr

measure_all
cat "$O/result.txt"
step "done: $O/result.txt, $O/result.csv"
