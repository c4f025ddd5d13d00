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
#   bzip2    (compressor): its eight .c files, built by build.sh.
#   jq       (JSON processor, a parser and bytecode interpreter) 1.6 with
#            oniguruma (regex library) from the libonig source package:
#            jq's generated parser and lexer come in its tarball; setup
#            writes jq's builtin.inc and version.h as its Makefile would,
#            and oniguruma's config.h (what its configure finds on
#            Debian 12 amd64).
#   re2      (C++ regex library, templates) 20220601, which needs no
#            abseil: setup generates its Unicode tables from Debian's
#            unicode-data (Debian's own patch) and perl_groups.cc;
#            re2-bench.cc here is the workload driver.
# and writes the workloads' inputs: gawk's (gen-awk-input.py) in
# data/train (scale 2, seed 1) and data/eval (scale 0.5, seed 2); bzip2's,
# jq's and re2's (gen-corpus-input.py) in data/PROGRAM/train (odd seed)
# and data/PROGRAM/eval (even seed).
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
         autofdo qemu-user linux-perf bolt-19 bc \
         unicode-data python3-six; do
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
    # The newest version first; an older one if its files are gone from
    # the mirror (jq 1.6-2.1+deb12u3 was listed but 404 on 2026-11-25).
    for v in $(apt-cache showsrc "$1" | awk '/^Version:/ {print $2}' | sort -r -V); do
      apt-get source -q --download-only "$1=$v" > /dev/null 2>&1 && break
      rm -f "$1"_*
    done
    # The upstream tree as released, without Debian's patches (changes
    # to the build system for the packaging, plus a few backported fixes):
    # we build by hand, and the benchmark is of upstream's code.
    dpkg-source -x --skip-patches "$1"_*.dsc > /dev/null
  fi
}
get sqlite3 'sqlite3-*/'
get lua5.4 'lua5.4-*/'
get gawk 'gawk-*/'
get bzip2 'bzip2-*/'
get jq 'jq-*/'
get libonig 'libonig-*/'
get re2 're2-*/'

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
ln -sfn "$(ls -d "$W"/src/bzip2-*/ | head -n 1 | sed 's:/$::')" "$W/src/bzip2"
ONIG=$(ls -d "$W"/src/libonig-*/ | head -n 1 | sed 's:/$::')
ln -sfn "$ONIG" "$W/src/onig"
if [ ! -f "$ONIG/src/config.h" ]; then
  # What oniguruma's configure writes on Debian 12 amd64 (the tarball has
  # configure.ac only); oniguruma reads nothing else from it.
  cat > "$ONIG/src/config.h" <<'EOF'
#define HAVE_ALLOCA 1
#define HAVE_ALLOCA_H 1
#define HAVE_STDINT_H 1
#define HAVE_SYS_TIMES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_INTTYPES_H 1
#define PACKAGE "onig"
#define PACKAGE_VERSION "6.9.8"
#define VERSION "6.9.8"
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_VOIDP 8
EOF
fi
JQ=$(ls -d "$W"/src/jq-*/ | head -n 1 | sed 's:/$::')
ln -sfn "$JQ" "$W/src/jq"
if [ ! -f "$JQ/src/builtin.inc" ]; then
  # As jq's Makefile.am makes them.
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' \
    "$JQ/src/builtin.jq" > "$JQ/src/builtin.inc.tmp"
  mv "$JQ/src/builtin.inc.tmp" "$JQ/src/builtin.inc"
  echo '#define JQ_VERSION "1.6"' > "$JQ/src/version.h"
fi
RE2=$(ls -d "$W"/src/re2-*/ | head -n 1 | sed 's:/$::')
ln -sfn "$RE2" "$W/src/re2"
if [ ! -f "$RE2/re2/unicode_groups.cc" ]; then
  (cd "$RE2" &&
    { grep -q '"/usr/share/unicode"' re2/unicode.py ||
        patch -s -p1 < debian/patches/debian-unicode-data.patch; } &&
    perl re2/make_perl_groups.pl > re2/perl_groups.cc &&
    python3 re2/make_unicode_casefold.py > re2/unicode_casefold.cc.tmp &&
    mv re2/unicode_casefold.cc.tmp re2/unicode_casefold.cc &&
    python3 re2/make_unicode_groups.py > re2/unicode_groups.cc.tmp &&
    mv re2/unicode_groups.cc.tmp re2/unicode_groups.cc)
fi
# PROGRAM:TRAINING-SCALE:EVALUATION-SCALE, each run 0.3-0.7 s natively.
for s in bzip2:2:1 jq:2:1 re2:12:8; do
  p=${s%%:*} ts=$(echo "$s" | cut -d: -f2) es=${s##*:}
  if [ ! -d "$W/data/$p/eval" ]; then
    rm -rf "$W/data/$p"
    python3 "$HERE/gen-corpus-input.py" "$p" "$W/data/$p/train.tmp" "$ts" 1
    python3 "$HERE/gen-corpus-input.py" "$p" "$W/data/$p/eval.tmp" "$es" 2
    mv "$W/data/$p/train.tmp" "$W/data/$p/train"
    mv "$W/data/$p/eval.tmp" "$W/data/$p/eval"
  fi
done
echo "setup: sources in $W/src (sqlite, gawk, lua, bzip2, jq + onig, re2), inputs in $W/data"
