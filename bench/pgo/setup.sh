#!/bin/sh
# bench/pgo/setup.sh: fetch the sources of the PGO benchmark programs from
# Debian source packages and unpack them in the work directory.
#
#   sqlite3  (SQL engine): its full source tree; setup builds the
#            amalgamation (sqlite3.c) with the tree's own tool, since
#            test/speedtest1.c is the workload driver.
#   gawk     (interpreter): configured here (config.h; no NLS, MPFR,
#            readline, PMA or extensions); build.sh compiles its sources.
#   lua5.4   (interpreter): src/*.c, built by build.sh as a plain list.
# and writes the gawk workloads' inputs (gen-awk-input.py): data/train
# (scale 2, seed 1) and data/eval (scale 0.5, seed 2).
#
# Debian 12 has no deb-src line by default: this adds one as
# /etc/apt/sources.list.d/lbr2prof-src.sources (same URIs, suites,
# components and key as debian.sources) and installs dpkg-dev (for
# apt-get source), libclang-rt-19-dev (the runtime of
# -fprofile-instr-generate), tcl (sqlite's amalgamation generator is Tcl),
# hyperfine, bc and the peers if missing. Idempotent: a second run only
# checks.
#
# usage: bench/pgo/setup.sh      work dir: ${LBR2PROF_BENCH_DIR:-/tmp/lbr2prof-pgo}
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
W=${LBR2PROF_BENCH_DIR:-/tmp/lbr2prof-pgo}
SRC=/etc/apt/sources.list.d/lbr2prof-src.sources
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

need_update=0
if [ ! -f "$SRC" ]; then
  # Copy every stanza of debian.sources with Types: deb-src.
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
    $SUDO tee "$SRC.tmp" > /dev/null
  $SUDO mv "$SRC.tmp" "$SRC"
  need_update=1
fi
missing=""
for p in dpkg-dev tcl hyperfine valgrind clang-19 libclang-rt-19-dev llvm-19 \
         autofdo qemu-user linux-perf bolt-19 bc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
    missing="$missing $p"
done
if [ -n "$missing" ] || [ $need_update = 1 ] ||
   ! apt-cache showsrc sqlite3 2>/dev/null | grep -q '^Package:'; then
  $SUDO apt-get update -q
fi
if [ -n "$missing" ]; then
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi

mkdir -p "$W/src"
cd "$W/src"
get() { # source-package directory-glob
  # shellcheck disable=SC2086 # $2 is a glob
  if ! ls -d $2 > /dev/null 2>&1; then
    apt-get source -q --download-only "$1"
    # The upstream tree as released, without Debian's patches (changes
    # to the build system for the packaging, plus a few backported fixes):
    # we build by hand, and the benchmark is of upstream's code.
    dpkg-source -x --skip-patches "$1"_*.dsc > /dev/null
  fi
}
get sqlite3 'sqlite3-*/'
get lua5.4 'lua5.4-*/'
get gawk 'gawk-*/'

SQ=$(ls -d "$W"/src/sqlite3-*/ | head -n 1)
LUA=$(ls -d "$W"/src/lua5.4-*/ | head -n 1)
# The amalgamation: one sqlite3.c, as applications embed it.
if [ ! -f "$W/src/sqlite-amalg/sqlite3.c" ]; then
  rm -rf "$W/src/sqlite-amalg.tmp"
  mkdir -p "$W/src/sqlite-amalg.tmp"
  (cd "$W/src/sqlite-amalg.tmp" && "$SQ/configure" -q > configure.log 2>&1 &&
     make -s sqlite3.c > make.log 2>&1)
  mv "$W/src/sqlite-amalg.tmp" "$W/src/sqlite-amalg"
fi
cp "$SQ/test/speedtest1.c" "$W/src/sqlite-amalg/speedtest1.c"
ln -sfn "$W/src/sqlite-amalg" "$W/src/sqlite"
ln -sfn "${LUA%/}" "$W/src/lua"
GAWK=$(ls -d "$W"/src/gawk-*/ | head -n 1)
if [ ! -f "$GAWK/config.h" ]; then
  (cd "$GAWK" && ./configure -q CC=clang-19 --disable-nls --without-mpfr \
     --without-readline --disable-pma --disable-extensions > configure.log 2>&1)
fi
ln -sfn "${GAWK%/}" "$W/src/gawk"
if [ ! -f "$W/data/eval/sales.csv" ]; then
  python3 "$HERE/gen-awk-input.py" "$W/data/train" 2 1
  python3 "$HERE/gen-awk-input.py" "$W/data/eval" 0.5 2
  rm -f "$W/data/train/text.txt" "$W/data/eval/access.log"
fi
echo "setup: sources in $W/src (sqlite, gawk, lua), gawk inputs in $W/data"
