# bench/pgo/common.sh: what compare.sh and compare-cs.sh share, sourced by
# both after setting USAGE (their usage line): the options, the workloads,
# the progress lines and the instrumented-PGO build.
#
#   parse_options "$@"     -r ROUNDS, --no-callgrind -> ROUNDS, CGOPT
#   workload PROGRAM       -> TRAIN, EVAL (argument lists), PERIOD (for
#                          lbr-record: 50k-100k samples of the training run)
#   step TEXT              a progress line with the seconds since START
#   build_instr            bin/instr: instr-gen run on TRAIN, merged, used
#   measure_all            measure.sh on EVAL in $O/run: o2, o2-again, instr
#                          and bin/P for each P of PROFILES -> $O/result.*
# HERE (this folder), ROOT (the tree) and W (the bench directory) are set.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${LBR2PROF_BENCH_DIR:-/tmp/lbr2prof-pgo}
export LC_ALL=C
START=$(date +%s)

step() { echo "== [$(( $(date +%s) - START ))s] $*"; }

parse_options() {
  ROUNDS=15 CGOPT=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -r) ROUNDS=$2; shift 2 ;;
      --no-callgrind) CGOPT=--no-callgrind; shift ;;
      *) echo "$(basename "$0"): unknown option $1" >&2; echo "$USAGE" >&2; exit 2 ;;
    esac
  done
}

# Training (recorded, and run by the instrumented build) and evaluation
# (measured) differ in code paths and data.
workload() {
  D=$HERE
  case "$1" in
    sqlite)
      TRAIN="--memdb --size 50 --testset main,orm,fp train.db"
      EVAL="--memdb --size 20 --primarykey --testset main,cte eval.db"
      PERIOD=200003 ;;
    gawk)
      TRAIN="-f $D/awk-train.awk $W/data/train/access.log $W/data/train/sales.csv"
      EVAL="-f $D/awk-eval.awk $W/data/eval/text.txt $W/data/eval/sales.csv"
      PERIOD=50021 ;;
    lua)
      TRAIN="$D/lua-train.lua 3"
      EVAL="$D/lua-eval.lua"
      PERIOD=50021 ;;
    *) echo "$USAGE" >&2; exit 2 ;;
  esac
}

# In the current directory: bin/instr-gen, its profile of the training run
# (instr.profdata), bin/instr.
build_instr() {
  sh "$HERE/build.sh" "$PROG" instr-gen -o bin/instr-gen
  # shellcheck disable=SC2086
  LLVM_PROFILE_FILE=$PWD/instr-%p.profraw bin/instr-gen $TRAIN > /dev/null
  llvm-profdata-19 merge -o instr.profdata instr-*.profraw
  sh "$HERE/build.sh" "$PROG" instr-use instr.profdata -o bin/instr
}

# The whole comparison's measurement, speedups as shares of instr's.
measure_all() {
  step "measure on the evaluation workload: $EVAL"
  NAMES="o2=$O/bin/o2 o2-again=$O/bin/o2-again instr=$O/bin/instr"
  for p in $PROFILES; do NAMES="$NAMES $p=$O/bin/$p"; done
  mkdir -p "$O/run"
  # shellcheck disable=SC2086
  (cd "$O/run" &&
    sh "$HERE/measure.sh" -r "$ROUNDS" --ref instr $CGOPT -o "$O/result" $NAMES -- $EVAL)
}
