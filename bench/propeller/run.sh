#!/bin/sh
# bench/propeller/run.sh: Propeller output against BOLT, with and without
# AutoFDO, on one program (issue 19). Six builds, each from a recording of
# the one before it on the training workload:
#   o2             -O2 -g (bench/pgo/build.sh's o2) + -ffunction-sections
#                  -fbasic-block-address-map -mllvm
#                  -pgo-analysis-map=bb-freq,br-prob (the map also carries
#                  the CFG and static frequencies: lbr2prof re-derives the
#                  blocks clang aligns), linked by ld.lld --emit-relocs
#   o2-bolt        llvm-bolt-19 o2, -data= lbr2prof's fdata of o2's recording
#   o2-prop        o2 rebuilt with lbr2prof's cluster list
#                  (-fbasic-block-sections=list=) and symbol order
#                  (ld.lld --symbol-ordering-file) of o2's recording
#   afdo           o2 + -fprofile-sample-use= lbr2prof's line profile of
#                  o2's recording
#   afdo-bolt      llvm-bolt-19 afdo, fdata of afdo's recording
#   afdo-prop      afdo rebuilt with the cluster list and symbol order of
#                  afdo's recording
# BOLT runs with -reorder-blocks=ext-tsp -reorder-functions=cdsort
# -split-functions (the layout Propeller's files ask for: ext-TSP blocks,
# cold blocks apart, CDS function order); for jq also -skip-funcs=match_at/1.
# Each build runs the evaluation workload natively (its output must equal
# o2's), under lbr-record --truth (exact taken branches: all, and those
# whose source is in the program's own file) and under callgrind
# (bench/pgo/measure.sh --no-time: estcyc).
#
#   run.sh PROGRAM     bzip2 | jq | gawk (bench/pgo's sources and workloads, under
#                      LBR2PROF_BENCH_DIR, default /work/scratch/pgo) |
#                      branchy (test/lbr-record/Inputs/branchy.c; its one
#                      workload trains and evaluates)
# Results: $OUT/PROGRAM/table.md (OUT: PROPELLER_BENCH_OUT, default
# /tmp/lbr2prof-propeller).
# PROPELLER_BENCH_O2_ONLY=1 builds only o2, o2-bolt and o2-prop (jq's six
# builds take about 35 minutes here). PROPELLER_BENCH_BEFORE=LBR2PROF adds
# o2-prop-before: o2 rebuilt with the cluster list and symbol order that
# another lbr2prof (an older commit's) writes from the same recording.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PROG=${1:?usage: run.sh bzip2|jq|gawk|branchy}
export LBR2PROF_BENCH_DIR=${LBR2PROF_BENCH_DIR:-/work/scratch/pgo}
W=$LBR2PROF_BENCH_DIR
O=${PROPELLER_BENCH_OUT:-/tmp/lbr2prof-propeller}/$PROG
L2P=${LBR2PROF:-$ROOT/build/bin/lbr2prof}
MAPFLAGS="-ffunction-sections -fbasic-block-address-map -mllvm -pgo-analysis-map=bb-freq,br-prob"
LD="-fuse-ld=lld -Wl,--emit-relocs"
BOLTOPTS="-reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions"
# llvm-bolt-19 stops on oniguruma's match_at (computed gotos: "unable to get
# new address corresponding to input address"); it is left as it is.
[ "$PROG" = jq ] && BOLTOPTS="$BOLTOPTS -skip-funcs=match_at/1"
export LC_ALL=C
START=$(date +%s)
step() { echo "== [$(( $(date +%s) - START ))s] $*"; }
if [ "$PROG" = branchy ]; then
  TRAIN="" EVAL="" PERIOD=2003
else
  USAGE="usage: run.sh bzip2|jq|gawk|branchy"
  # shellcheck disable=SC1091
  . "$ROOT/bench/pgo/common.sh"
  # The workloads name files beside common.sh.
  HERE=$ROOT/bench/pgo
  workload "$PROG"
  HERE=$ROOT/bench/propeller
fi
mkdir -p "$O/bin" "$O/run"
cd "$O"

# build VARIANT OUT [PROFILE] [EXTRA-CFLAGS] [EXTRA-LDFLAGS]
build() {
  v=$1 out=$2 prof=${3:-} cf=${4:-} lf=${5:-}
  if [ "$PROG" = branchy ]; then
    pgo=""
    [ "$v" = sample-use ] && pgo="-fprofile-sample-use=$prof"
    # shellcheck disable=SC2086
    clang-19 -O2 -g -gdwarf-4 -fdebug-info-for-profiling $pgo $MAPFLAGS $cf \
      $LD $lf "$ROOT/test/lbr-record/Inputs/branchy.c" -o "$out" 2> "$out.log"
    echo "branchy $v -> $out ($(grep -c 'warning:' "$out.log" || true) warnings)"
  else
    if [ "$v" = sample-use ]; then set -- "$prof"; else set --; fi
    PGO_EXTRA_CFLAGS="$MAPFLAGS $cf" PGO_LDFLAGS="$LD $lf" \
      sh "$ROOT/bench/pgo/build.sh" "$PROG" "$v" "$@" -o "$out"
  fi
}

# record NAME: NAME.data from bin/NAME on the training workload.
record() {
  step "record $1 ($TRAIN, period $PERIOD)"
  # shellcheck disable=SC2086
  "$ROOT/utils/lbr-record" -q --period "$PERIOD" -o "$1.data" -- \
    "bin/$1" $TRAIN > /dev/null
}

# layouts NAME: NAME.fdata, NAME.propeller and NAME.symorder, and
# NAME-bolt (BOLTed bin/NAME).
layouts() {
  "$L2P" "$1.data" --binary "bin/$1" -o "$1.fdata" 2> "$1.fdata.log"
  "$L2P" "$1.data" --binary "bin/$1" -o "$1.propeller" --stats \
    > /dev/null 2> "$1.propeller.log"
  grep '^propeller:' "$1.propeller.log"
  # shellcheck disable=SC2086
  llvm-bolt-19 "bin/$1" -o "bin/$1-bolt" -data="$1.fdata" $BOLTOPTS \
    > "$1-bolt.log" 2>&1
  grep -E 'have non-empty execution profile' "$1-bolt.log" | sed 's/^/   /'
}

step "o2"
build o2 bin/o2
record o2
layouts o2
"$L2P" o2.data --binary bin/o2 -o o2.prof 2> o2.prof.log
step "o2-prop"
build o2 bin/o2-prop "" "-fbasic-block-sections=list=$O/o2.propeller" \
  "-Wl,--symbol-ordering-file=$O/o2.symorder"
NAMES="o2 o2-bolt o2-prop"
if [ -n "${PROPELLER_BENCH_BEFORE:-}" ]; then
  step "o2-prop-before ($PROPELLER_BENCH_BEFORE)"
  "$PROPELLER_BENCH_BEFORE" o2.data --binary bin/o2 -o o2-before.propeller \
    --stats > /dev/null 2> o2-before.propeller.log
  grep '^propeller:' o2-before.propeller.log
  build o2 bin/o2-prop-before "" \
    "-fbasic-block-sections=list=$O/o2-before.propeller" \
    "-Wl,--symbol-ordering-file=$O/o2-before.symorder"
  NAMES="$NAMES o2-prop-before"
fi
if [ -z "${PROPELLER_BENCH_O2_ONLY:-}" ]; then
step "afdo"
build sample-use bin/afdo "$O/o2.prof"
record afdo
layouts afdo
step "afdo-prop"
build sample-use bin/afdo-prop "$O/o2.prof" \
  "-fbasic-block-sections=list=$O/afdo.propeller" \
  "-Wl,--symbol-ordering-file=$O/afdo.symorder"
NAMES="$NAMES afdo afdo-bolt afdo-prop"
fi

step "outputs on the evaluation workload"
for n in $NAMES; do
  # shellcheck disable=SC2086
  (cd run && "$O/bin/$n" $EVAL > "../$n.out")
  if ! cmp -s o2.out "$n.out"; then
    echo "$n: output differs from o2's" >&2
    exit 1
  fi
done
echo "   all print the same ($(wc -c < o2.out) bytes)"

step "taken branches (lbr-record --truth on the evaluation workload)"
: > branches.txt
for n in $NAMES; do
  # shellcheck disable=SC2086
  (cd run && "$ROOT/utils/lbr-record" -q --period 1000003 -o "../$n.eval.data" \
    --truth "../$n.truth" -- "$O/bin/$n" $EVAL > /dev/null)
  python3 "$HERE/taken.py" "$n.truth" "$O/bin/$n" "$n" >> branches.txt
  rm -f "$n.eval.data"
done
cat branches.txt

step "callgrind (measure.sh --no-time)"
ARGS=""
for n in $NAMES; do ARGS="$ARGS $n=$O/bin/$n"; done
# shellcheck disable=SC2086
(cd run && sh "$ROOT/bench/pgo/measure.sh" --no-time -o "$O/result" $ARGS -- $EVAL)
python3 "$HERE/table.py" "$O/result.csv" branches.txt "$PROG" > table.md
cat table.md
step "done"
