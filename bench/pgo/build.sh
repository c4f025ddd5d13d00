#!/bin/sh
# bench/pgo/build.sh: build one benchmark program with clang-19 in one of
# the PGO variants, straight from the sources setup.sh unpacked (not with
# the Debian packaging).
#
#   build.sh PROGRAM VARIANT [PROFILE] -o OUT
#
# PROGRAM: sqlite (speedtest1 on the amalgamation) | gawk (GNU awk) |
# lua (the lua5.4 interpreter) | bzip2 (the bzip2 command) | jq (jq 1.6
# with oniguruma compiled in) | re2 (re2 with bench/pgo/re2-bench.cc as
# its driver; C++17). VARIANT:
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
# -Wl,--emit-relocs), PGO_OBJDIR (compile into this directory and keep
# it, instead of a temporary one), CC and CXX (default clang-19, clang++-19;
# compare-gcc.sh gives gcc-12 and g++-12).
set -eu
usage() { echo "usage: build.sh sqlite|gawk|lua|bzip2|jq|re2 o2|instr-gen|instr-use|sample-use [PROFILE] -o OUT" >&2; exit 2; }
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
CXX=${CXX:-clang++-19}

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

if [ -n "${PGO_OBJDIR:-}" ]; then
  # A fixed object directory, kept: gcc names a .gcda after its object's
  # path, so -fprofile-use finds -fprofile-generate's data only there.
  T=$PGO_OBJDIR
  mkdir -p "$T"
else
  T=$(mktemp -d "${OUT}.tmp.XXXXXX")
  trap 'rm -rf "$T"' EXIT
fi
: > "$OUT.log"
cc() { # object source flags...
  o=$1 s=$2; shift 2
  # C++ (re2) as C++17 with threads.
  # shellcheck disable=SC2086
  case "$s" in
    *.cc) $CXX $FLAGS -std=c++17 -pthread "$@" -c "$s" -o "$o" 2>> "$OUT.log" ;;
    *) $CC $FLAGS "$@" -c "$s" -o "$o" 2>> "$OUT.log" ;;
  esac
}
LINK=$CC
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
  lua|gawk|bzip2|jq|re2)
    if [ "$PROG" = bzip2 ]; then
      # The bzip2 command and libbz2, as its Makefile lists them.
      S=$W/src/bzip2
      SRCS=""
      for f in blocksort huffman crctable randtable compress decompress bzlib bzip2; do
        SRCS="$SRCS $S/$f.c"
      done
      DEFS="-D_FILE_OFFSET_BITS=64"
      LIBS=""
    elif [ "$PROG" = jq ]; then
      # jq 1.6's libjq and main (Makefile.am), its pre-generated parser.c
      # and lexer.c, and oniguruma's library without its POSIX API and
      # without the encodings jq never asks for.
      S=$W/src
      SRCS=""
      for f in builtin bytecode compile execute jq_test jv jv_alloc jv_aux \
               jv_dtoa jv_file jv_parse jv_print jv_unicode linker locfile \
               util parser lexer main; do
        SRCS="$SRCS $S/jq/src/$f.c"
      done
      for f in regparse regcomp regexec regenc regerror regext regsyntax \
               regtrav regversion st reggnu unicode unicode_unfold_key \
               unicode_fold1_key unicode_fold2_key unicode_fold3_key ascii \
               utf8 utf16_be utf16_le utf32_be utf32_le euc_jp euc_jp_prop \
               sjis sjis_prop iso8859_1 iso8859_2 iso8859_3 iso8859_4 \
               iso8859_5 iso8859_6 iso8859_7 iso8859_8 iso8859_9 iso8859_10 \
               iso8859_11 iso8859_13 iso8859_14 iso8859_15 iso8859_16 euc_tw \
               euc_kr big5 gb18030 koi8_r cp1251 onig_init; do
        SRCS="$SRCS $S/onig/src/$f.c"
      done
      # What jq's configure finds in glibc (libm.h's functions but pow10,
      # which glibc 2.36 no longer declares).
      DEFS="-DIEEE_8087 -DHAVE_LIBONIG -I$S/jq -I$S/jq/src -I$S/onig/src"
      for f in ACOS ACOSH ASIN ASINH ATAN ATAN2 ATANH CBRT CEIL COPYSIGN COS \
               COSH DREM ERF ERFC EXP EXP10 EXP2 EXPM1 FABS FDIM FLOOR FMA \
               FMAX FMIN FMOD FREXP GAMMA HYPOT J0 J1 JN LDEXP LGAMMA \
               LGAMMA_R LOG LOG10 LOG1P LOG2 LOGB MODF NEARBYINT NEXTAFTER \
               NEXTTOWARD POW REMAINDER RINT ROUND SCALB SCALBLN SIGNIFICAND \
               SIN SINH SQRT TAN TANH TGAMMA TRUNC Y0 Y1 YN \
               ALLOCA ALLOCA_H ATEXIT GETTIMEOFDAY GMTIME GMTIME_R ISATTY \
               LOCALTIME_R MEMMEM MKSTEMP PTHREAD_KEY_CREATE PTHREAD_ONCE \
               STRFTIME STRPTIME TIMEGM TM_TM_GMT_OFF __THREAD; do
        DEFS="$DEFS -DHAVE_$f=1"
      done
      LIBS="-lm -lpthread"
    elif [ "$PROG" = re2 ]; then
      # re2's OFILES (its Makefile), the generated tables from setup.sh,
      # and the driver.
      S=$W/src
      SRCS="$S/re2/util/rune.cc $S/re2/util/strutil.cc"
      for f in bitstate compile dfa filtered_re2 mimics_pcre nfa onepass \
               parse perl_groups prefilter prefilter_tree prog re2 regexp \
               set simplify stringpiece tostring unicode_casefold \
               unicode_groups; do
        SRCS="$SRCS $S/re2/re2/$f.cc"
      done
      SRCS="$SRCS $(cd "$(dirname "$0")" && pwd)/re2-bench.cc"
      DEFS="-I$S/re2 -DNDEBUG"
      LIBS="-pthread"
      LINK=$CXX
    elif [ "$PROG" = lua ]; then
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
    obj() { echo "$T/$(echo "${1#"$S"/}" | tr / _ | sed 's/\.cc*$/.o/')"; }
    OBJS=""
    for f in $SRCS; do
      OBJS="$OBJS $(obj "$f")"
    done
    # Two compile streams (the machine has 2 cores): odd and even files.
    half() { # 0|1
      i=0
      for f in $SRCS; do
        i=$((i + 1))
        [ $((i % 2)) = "$1" ] || continue
        # shellcheck disable=SC2086,SC2090
        cc "$(obj "$f")" "$f" $DEFS
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
$LINK $FLAGS $LDFLAGS $OBJS $LIBS -o "$OUT.tmp" 2>> "$OUT.log" ||
  { cat "$OUT.log" >&2; echo "build.sh: link failed" >&2; exit 1; }
mv "$OUT.tmp" "$OUT"
n=$(grep -c 'warning:' "$OUT.log" || true)
echo "build.sh: $PROG $VARIANT -> $OUT ($n warnings, see $OUT.log)"
