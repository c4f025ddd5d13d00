#!/bin/sh
# bench/pgo/compare-gcc.sh: what a GCC AutoFDO profile from lbr2prof buys
# gcc-12 on one program, against gcc-12's instrumented PGO (issue 18), over
# several recordings of its training run.
#
#   compare-gcc.sh PROGRAM [-n RECORDINGS] [--time [-r ROUNDS]] [--fresh]
#
# PROGRAM: sqlite | gawk | lua | bzip2 | jq (the C programs of compare.sh,
# same sources, workloads and periods). In $LBR2PROF_BENCH_DIR/PROGRAM-gcc:
#  1. bin/o2 (gcc-12 -O2 -g: DWARF 5, gcc's default), bin/instr
#     (-fprofile-generate -fprofile-update=single, run natively on the
#     training workload, then -fprofile-use; both compiled in obj-instr/,
#     as gcc finds a .gcda by its object's path);
#  2. for each recording R = 1..RECORDINGS (default 3), in recR/: the
#     training run of o2 under lbr-record --seed R --period P (branch
#     stacks only: a gcov profile has no contexts); lbr2prof.afdo from it
#     and bin/lbr2prof (o2 plus -fauto-profile=); create_gcov 0.19 on the
#     same recording (--gcov_version=2, the version gcc 12 checks), and
#     bin/create_gcov when gcc accepts its file; what gcc says in
#     recR/bin/NAME.log, and whether it says more than for o2;
#  3. one callgrind run of every binary on the evaluation workload
#     (output checked against o2's) -> cg/NAME.cg; with --time also wall
#     time (measure.sh, ROUNDS rounds) of o2, o2-again, instr and
#     recording 1's builds -> wall.txt.
# Every step is skipped when its output exists (--fresh starts over).
# corpus_table.py then writes result.txt and result.csv: estimates and
# shares of instrumented PGO's gain per recording (names r1-lbr2prof, ...).
# Environment: LBR2PROF (default build/bin/lbr2prof; give a copy so that
# rebuilds do not change it mid-run), LBR2PROF_NAME (the name of its
# profile, builds and measurements, default lbr2prof: another name adds a
# second lbr2prof beside the first), LBR2PROF_BENCH_DIR.
set -eu
USAGE="usage: compare-gcc.sh sqlite|gawk|lua|bzip2|jq [-n RECORDINGS] [--time [-r ROUNDS]] [--fresh]"
. "$(dirname "$0")/common.sh"
PROG=${1:-}
[ $# -gt 0 ] && shift
parse_options "$@"
case "$PROG" in sqlite|gawk|lua|bzip2|jq) ;; *) echo "$USAGE" >&2; exit 2 ;; esac
workload "$PROG"
[ -d "$W/src/$PROG" ] && [ -d "$W/data/eval" ] || sh "$HERE/setup.sh"
LBR2PROF=${LBR2PROF:-$ROOT/build/bin/lbr2prof}
K=${LBR2PROF_NAME:-lbr2prof}
O=$W/$PROG-gcc
[ $FRESH = 1 ] && rm -rf "$O"
mkdir -p "$O/bin" "$O/cg"
cd "$O"
echo "lbr2prof: $LBR2PROF ($("$LBR2PROF" --version 2>&1 | head -n 1)); $(gcc-12 --version | head -n 1)"

# gccbuild OUT [OBJDIR] [FLAGS...]: OUT with gcc-12 -O2 -g plus FLAGS
# (build.sh's file lists), objects in OBJDIR when given, unless OUT exists.
gccbuild() {
  out=$1 objdir=$2; shift 2
  [ -x "$out" ] && return
  CC=gcc-12 CXX=g++-12 PGO_BASE_CFLAGS="-O2 -g" PGO_LDFLAGS="" \
    PGO_OBJDIR="$objdir" PGO_EXTRA_CFLAGS="$*" \
    sh "$HERE/build.sh" "$PROG" o2 -o "$out"
}
# said NAME LOG: the lines of LOG that o2's log does not have (gcc's
# messages caused by the profile).
said() {
  sort "$2" > "$2.sorted"
  sort bin/o2.log > bin/o2.log.sorted
  comm -23 "$2.sorted" bin/o2.log.sorted > "$2.new"
  rm -f "$2.sorted"
  echo "$1: gcc said $(grep -c 'warning:' "$2.new" || true) warnings and $(grep -c 'error:' "$2.new" || true) errors more than for o2 ($2.new)"
}

step "build o2 and instr (gcc-12)"
gccbuild bin/o2 ""
if [ ! -x bin/instr ]; then
  rm -rf obj-instr instr-run
  gccbuild bin/instr-gen "$O/obj-instr" -fprofile-generate -fprofile-update=single
  mkdir -p instr-run
  # shellcheck disable=SC2086
  (cd instr-run && "$O/bin/instr-gen" $TRAIN > /dev/null)
  gccbuild bin/instr "$O/obj-instr" -fprofile-use -Wno-missing-profile
fi

# cg NAME BINARY: callgrind on the evaluation workload in its own directory.
cg() {
  [ -s "cg/$1.cg" ] && return
  mkdir -p "cg/$1.run"
  # shellcheck disable=SC2086
  (cd "cg/$1.run" &&
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
      --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
      --callgrind-out-file="$O/cg/$1.cg.tmp" "$2" $EVAL > "$O/cg/$1.out" 2> "$O/cg/$1.cg.log" &&
    mv "$O/cg/$1.cg.tmp" "$O/cg/$1.cg" && rm -rf "$O/cg/$1.run") ||
    echo "compare-gcc.sh: callgrind of $1 failed (see cg/$1.cg.log)"
}
# measure NAME=BINARY...: the callgrind runs not done yet, two at a time,
# then each output against o2's (speedtest1's own timings stripped).
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
    if [ "$(sed -E 's/ *[0-9]+\.[0-9]+s$//' "cg/$n.out" | md5sum)" != \
         "$(sed -E 's/ *[0-9]+\.[0-9]+s$//' cg/o2.out | md5sum)" ]; then
      echo "compare-gcc.sh: warning: $n prints something else than o2 (cg/$n.out)"
    fi
  done
}
step "callgrind of o2 and instr on the evaluation workload: $EVAL"
measure o2=bin/o2 instr=bin/instr

r=1
while [ "$r" -le "$NREC" ]; do
  R=$O/rec$r
  mkdir -p "$R/bin"
  cd "$R"
  if [ ! -s o2.data ]; then
    step "recording $r: lbr-record --seed $r --period $PERIOD -- o2 $TRAIN"
    # shellcheck disable=SC2086
    "$ROOT/utils/lbr-record" --seed "$r" --period "$PERIOD" -o o2.data.tmp -- \
      "$O/bin/o2" $TRAIN > /dev/null 2> record.log || { cat record.log; exit 1; }
    mv o2.data.tmp o2.data
    grep 'lbr-record:' record.log
  fi
  step "recording $r: profiles and builds"
  if [ ! -s $K.afdo ]; then
    "$LBR2PROF" o2.data --binary "$O/bin/o2" --stats -o $K.tmp.afdo \
      > $K.gen.log 2>&1 && mv $K.tmp.afdo $K.afdo ||
      echo "$K: no profile: $(head -n 1 $K.gen.log)"
  fi
  NAMES=""
  if [ -s $K.afdo ]; then
    (cd "$O" && gccbuild "$R/bin/$K" "" "-fauto-profile=$R/$K.afdo")
    (cd "$O" && said $K "$R/bin/$K.log")
    NAMES="r$r-$K=rec$r/bin/$K"
  fi
  if [ ! -e create_gcov.tried ]; then
    create_gcov --binary="$O/bin/o2" --profile=o2.data --gcov=create_gcov.afdo \
      --gcov_version=2 > create_gcov.gen.log 2>&1 ||
      echo "create_gcov failed: $(tail -n 1 create_gcov.gen.log | cut -c1-100)"
    if [ -s create_gcov.afdo ]; then
      (cd "$O" && gccbuild "$R/bin/create_gcov" "" "-fauto-profile=$R/create_gcov.afdo") ||
        echo "create_gcov: gcc failed: $(grep -m1 -E 'error|internal' "$R/bin/create_gcov.log" | cut -c1-160)"
    fi
    touch create_gcov.tried
  fi
  if [ -x bin/create_gcov ]; then
    (cd "$O" && said create_gcov "$R/bin/create_gcov.log")
    NAMES="$NAMES r$r-create_gcov=rec$r/bin/create_gcov"
  fi
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
  for b in rec1/bin/$K rec1/bin/create_gcov; do
    [ -x "$b" ] && N1="$N1 $(basename "$b")=$O/$b"
  done
  mkdir -p run
  # shellcheck disable=SC2086
  (cd run && sh "$HERE/measure.sh" -r "$ROUNDS" --ref instr --no-callgrind -o "$O/wall" $N1 -- $EVAL)
fi

step "table"
python3 "$HERE/corpus_table.py" "$W" "$PROG-gcc" | tee "$O/result.txt"
step "done: $O/result.txt, $O/result.csv"
