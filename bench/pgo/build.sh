#!/bin/sh
# bench/pgo/build.sh: build one benchmark program with clang-19 in one of
# the PGO variants, straight from the sources setup.sh unpacked (not with
# the Debian packaging).
#
#   build.sh PROGRAM VARIANT [PROFILE] -o OUT
#
# PROGRAM: sqlite (speedtest1 on the amalgamation) | gawk (GNU awk) |
# lua (the lua5.4 interpreter). VARIANT:
#   o2          -O2 plus the debug flags AutoFDO needs: the baseline, and
#               the binary that is recorded for the sample profiles
#   instr-gen   o2 + -fprofile-instr-generate (front-end instrumentation)
#   instr-use   o2 + -fprofile-instr-use=PROFILE (a .profdata: llvm-profdata
#               merge of the .profraw files; a .profraw is merged here)
#   sample-use  o2 + -fprofile-sample-use=PROFILE (text/binary/extbinary)
# Every variant links with --emit-relocs (lets llvm-bolt run on it).
# Compiler diagnostics go to OUT.log; the number of warnings is printed.
# Environment: LBR2PROF_BENCH_DIR (work dir, default /tmp/lbr2prof-pgo),
# PGO_EXTRA_CFLAGS (appended to every compile, e.g. -fsample-profile-use-profi),
# PGO_BASE_CFLAGS (replaces the -O2 and debug flags), PGO_LDFLAGS (replaces
# -Wl,--emit-relocs).
set -eu
usage() { echo "usage: build.sh sqlite|gawk|lua o2|instr-gen|instr-use|sample-use [PROFILE] -o OUT" >&2; exit 2; }
[ $# -ge 4 ] || usage
PROG=$1 VARIANT=$2; shift 2
PROFILE=""
case "$VARIANT" in
  instr-use|sample-use) PROFILE=$1; shift ;;
  o2|instr-gen) ;;
  *) usage ;;
esac
if [ "${1:-}" != -o ] || [ -z "${2:-}" ]; then usage; fi
OUT=$2
W=${LBR2PROF_BENCH_DIR:-/tmp/lbr2prof-pgo}
CC=${CC:-clang-19}

# -gdwarf-4: create_llvm_prof 0.19 cannot read DWARF 5.
# -fdebug-info-for-profiling: discriminators and linkage names in the line
# table, what AutoFDO documents for a profiled build.
BASE=${PGO_BASE_CFLAGS:-"-O2 -g -gdwarf-4 -fdebug-info-for-profiling"}
LDFLAGS=${PGO_LDFLAGS--Wl,--emit-relocs}
case "$VARIANT" in
  o2) PGO="" ;;
  instr-gen) PGO="-fprofile-instr-generate" ;;
  instr-use)
    case "$PROFILE" in
      *.profraw) llvm-profdata-19 merge -o "$OUT.profdata" "$PROFILE"
                 PROFILE=$OUT.profdata ;;
    esac
    PGO="-fprofile-instr-use=$PROFILE" ;;
  sample-use) PGO="-fprofile-sample-use=$PROFILE" ;;
esac
FLAGS="$BASE $PGO ${PGO_EXTRA_CFLAGS:-}"

T=$(mktemp -d "${OUT}.tmp.XXXXXX")
trap 'rm -rf "$T"' EXIT
: > "$OUT.log"
cc() { # object source flags...
  o=$1 s=$2; shift 2
  # shellcheck disable=SC2086
  $CC $FLAGS "$@" -c "$s" -o "$o" 2>> "$OUT.log"
}
case "$PROG" in
  sqlite)
    S=$W/src/sqlite
    DEFS="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_RTREE -I$S"
    # The two translation units in parallel (the machine has 2 cores).
    # shellcheck disable=SC2086
    cc "$T/sqlite3.o" "$S/sqlite3.c" $DEFS &
    # shellcheck disable=SC2086
    cc "$T/speedtest1.o" "$S/speedtest1.c" $DEFS
    wait $!
    OBJS="$T/sqlite3.o $T/speedtest1.o" LIBS="-lm" ;;
  lua|gawk)
    if [ "$PROG" = lua ]; then
      S=$W/src/lua/src
      SRCS=""
      for f in "$S"/*.c; do
        case "$f" in */luac.c) ;; *) SRCS="$SRCS $f" ;; esac
      done
      DEFS="-DLUA_COMPAT_5_3 -DLUA_USE_LINUX"
      LIBS="-lm -ldl"
    else
      # config.h comes from setup.sh's configure run; the file list is
      # gawk's base_sources plus support/ (Makefile.in), no extensions.
      S=$W/src/gawk
      SRCS=""
      for f in array awkgram builtin cint_array command debug eval ext field \
               floatcomp gawkapi gawkmisc int_array io main mpfr msg node \
               profile re replace str_array symbol version; do
        SRCS="$SRCS $S/$f.c"
      done
      for f in dfa getopt getopt1 localeinfo random regex \
               malloc/dynarray_at_failure malloc/dynarray_emplace_enlarge \
               malloc/dynarray_finalize malloc/dynarray_resize \
               malloc/dynarray_resize_clear; do
        SRCS="$SRCS $S/support/$f.c"
      done
      # The quotes are meant to reach clang: the macros are C strings.
      # shellcheck disable=SC2089
      DEFS="-DHAVE_CONFIG_H -DGAWK -DDEFPATH=\".:/usr/local/share/awk\" -DDEFLIBPATH=\"/usr/local/lib/gawk\" -DSHLIBEXT=\"so\" -DLOCALEDIR=\"/usr/local/share/locale\" -I$S -I$S/support"
      LIBS="-lm"
    fi
    # Object names keep the directory (support/ and the top level share none
    # today, but be safe).
    OBJS=""
    for f in $SRCS; do
      OBJS="$OBJS $T/$(echo "${f#"$S"/}" | tr / _ | sed 's/\.c$/.o/')"
    done
    # Two compile streams (the machine has 2 cores): odd and even files.
    half() { # 0|1
      i=0
      for f in $SRCS; do
        i=$((i + 1))
        [ $((i % 2)) = "$1" ] || continue
        # shellcheck disable=SC2086,SC2090
        cc "$T/$(echo "${f#"$S"/}" | tr / _ | sed 's/\.c$/.o/')" "$f" $DEFS
      done
    }
    half 0 &
    half 1
    wait $!
    ;;
  *) usage ;;
esac
for o in $OBJS; do [ -f "$o" ] || { cat "$OUT.log" >&2; echo "build.sh: compile failed" >&2; exit 1; }; done
# shellcheck disable=SC2086
$CC $FLAGS $LDFLAGS $OBJS $LIBS -o "$OUT.tmp" 2>> "$OUT.log" ||
  { cat "$OUT.log" >&2; echo "build.sh: link failed" >&2; exit 1; }
mv "$OUT.tmp" "$OUT"
n=$(grep -c 'warning:' "$OUT.log" || true)
echo "build.sh: $PROG $VARIANT -> $OUT ($n warnings, see $OUT.log)"
