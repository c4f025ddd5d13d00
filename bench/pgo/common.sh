# bench/pgo/common.sh: what compare.sh and compare-cs.sh share, sourced by
# both after setting USAGE (their usage line): the options, the workloads,
# the progress lines and the instrumented-PGO build.
#
#   parse_options "$@"     -r ROUNDS, --no-callgrind -> ROUNDS, CGOPT;
#                          -n N, -k KINDS, --time, --fresh -> NREC, KINDS,
#                          TIME, FRESH (compare.sh only)
#   workload PROGRAM       -> TRAIN, EVAL (argument lists), PERIOD (for
#                          lbr-record: 50k-100k samples of the training run)
#   step TEXT              a progress line with the seconds since START
#   profgen_script DATA    DATA.script: perf script of DATA as llvm-profgen
#                          reads it, call-stack frames made absolute
#                          (perfscript-abs.py says why)
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
  ROUNDS=15 CGOPT="" NREC=3 KINDS="" TIME=0 FRESH=0
  while [ $# -gt 0 ]; do
    case "$1" in
      -r) ROUNDS=$2; shift 2 ;;
      --no-callgrind) CGOPT=--no-callgrind; shift ;;
      -n) NREC=$2; shift 2 ;;
      -k) KINDS=$2; shift 2 ;;
      --time) TIME=1; shift ;;
      --fresh) FRESH=1; shift ;;
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
    bzip2)
      # Compression only (one bzip2 run does one thing): 8 MB of prose,
      # C-like source and a numeric CSV with 900k blocks; then 2.5 MB of
      # log lines, JSON lines and long runs (fallbackSort) with 600k blocks.
      T=$W/data/bzip2/train E=$W/data/bzip2/eval
      TRAIN="-c -9 $T/prose.txt $T/source.c $T/numbers.csv"
      EVAL="-c -6 $E/access.log $E/records.json $E/runs.bin"
      PERIOD=30011 ;;
    jq)
      TRAIN="-r -f $D/jq-train.jq $W/data/jq/train/orders.json"
      EVAL="-n -r -f $D/jq-eval.jq $W/data/jq/eval/events.jsonl"
      PERIOD=30011 ;;
    re2)
      TRAIN="$D/re2-train.txt $W/data/re2/train/text.txt"
      EVAL="$D/re2-eval.txt $W/data/re2/eval/text.txt"
      PERIOD=30011 ;;
    *) echo "$USAGE" >&2; exit 2 ;;
  esac
}

profgen_script() {
  [ -s "$1.script" ] && return
  perf script -i "$1" --show-mmap-events -F ip,dso,brstack 2> /dev/null |
    python3 "$HERE/perfscript-abs.py" > "$1.script.tmp" 2> "$1.script.log"
  mv "$1.script.tmp" "$1.script"
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
