#!/bin/sh
# bench/pgo/compare-gcc.sh: what a GCC AutoFDO profile from lbr2prof buys
# gcc-12 on sqlite (speedtest1), against gcc-12's instrumented PGO (issue 18).
#
#   compare-gcc.sh [-r ROUNDS] [--no-callgrind]
#
# In $LBR2PROF_BENCH_DIR/sqlite-gcc (default /tmp/lbr2prof-pgo; setup.sh
# must have unpacked sqlite): builds with gcc-12 -O2 -g (o2, and o2-again,
# a copy measured as another binary: the noise), records the training run
# of o2 under utils/lbr-record, writes lbr2prof.afdo (LBR2PROF, default
# build/bin/lbr2prof), tries create_gcov 0.19 on the same recording (with
# --gcov_version=2, the version gcc 12 checks), builds -fauto-profile
# variants from the profiles gcc accepts, and instr (-fprofile-generate,
# run natively on the training workload, -fprofile-use); then measure.sh on
# the evaluation workload, speedups as shares of instr's. The objects are
# compiled in fixed directories: gcc finds a .gcda by the object's path.
set -eu
USAGE="usage: compare-gcc.sh [-r ROUNDS] [--no-callgrind]"
. "$(dirname "$0")/common.sh"
parse_options "$@"
[ -d "$W/src/sqlite" ] || sh "$HERE/setup.sh"
PROG=sqlite
workload sqlite
O=$W/sqlite-gcc
rm -rf "$O"
mkdir -p "$O/bin"
cd "$O"
S=$W/src/sqlite
DEFS="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_RTREE -I$S"

# gccbuild NAME FLAGS...: bin/NAME from the two translation units, compiled
# side by side in obj-NAME/; gcc's messages in bin/NAME.log.
gccbuild() {
  n=$1; shift
  mkdir -p "obj-$n"
  : > "bin/$n.log"
  # shellcheck disable=SC2086
  gcc-12 -O2 -g "$@" $DEFS -c "$S/sqlite3.c" -o "obj-$n/sqlite3.o" 2>> "bin/$n.log" &
  # shellcheck disable=SC2086
  gcc-12 -O2 -g "$@" $DEFS -c "$S/speedtest1.c" -o "obj-$n/speedtest1.o" 2>> "bin/$n.log"
  wait $!
  gcc-12 -O2 "$@" "obj-$n/sqlite3.o" "obj-$n/speedtest1.o" -lm -o "bin/$n" 2>> "bin/$n.log"
  echo "$n: $(grep -c . "bin/$n.log" || true) lines of compiler output"
}

step "build o2 (gcc-12 -O2 -g)"
gccbuild o2
cp bin/o2 bin/o2-again

step "record the training run: lbr-record --period $PERIOD -- o2 $TRAIN"
# shellcheck disable=SC2086
"$ROOT/utils/lbr-record" -o train.data --period "$PERIOD" -- bin/o2 $TRAIN \
  > train.out 2> record.log || { cat record.log; exit 1; }
grep 'lbr-record:' record.log

step "profiles"
LBR2PROF=${LBR2PROF:-$ROOT/build/bin/lbr2prof}
PROFILES=""
if "$LBR2PROF" train.data --binary bin/o2 -o lbr2prof.afdo > lbr2prof.gen.log 2>&1; then
  PROFILES="lbr2prof"
else
  echo "lbr2prof: $(head -n 1 lbr2prof.gen.log)"
fi
if create_gcov --binary=bin/o2 --profile=train.data --gcov=create_gcov.afdo \
     --gcov_version=2 > create_gcov.gen.log 2>&1; then
  PROFILES="$PROFILES create_gcov"
else
  echo "create_gcov failed: $(tail -n 1 create_gcov.gen.log | cut -c1-100)"
fi

step "build the -fauto-profile variants and instr"
for p in $PROFILES; do
  if gccbuild "$p" "-fauto-profile=$O/$p.afdo" && [ ! -s "bin/$p.log" ]; then
    :
  else
    echo "$p: gcc said: $(head -n 1 "bin/$p.log" | cut -c1-120)"
    [ -x "bin/$p" ] || PROFILES=$(echo "$PROFILES" | sed "s/\b$p\b//")
  fi
done
gccbuild instr-gen "-fprofile-generate" "-fprofile-update=single"
# shellcheck disable=SC2086
(cd "$O" && bin/instr-gen $TRAIN > /dev/null)
rm -f train.db
mkdir -p obj-instr
for f in sqlite3 speedtest1; do
  cp "obj-instr-gen/$f.gcda" "obj-instr/$f.gcda"
done
gccbuild instr "-fprofile-use" "-Wno-missing-profile"

measure_all
