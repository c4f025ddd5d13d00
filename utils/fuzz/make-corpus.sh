#!/bin/sh
# Usage: utils/fuzz/make-corpus.sh OUTDIR
# Makes the fuzzers' seed corpora from the test inputs, into OUTDIR/perfdata,
# OUTDIR/script and OUTDIR/binary:
#   perfdata: every split-file part of test/text2perfdata/*.test and
#             test/PerfData/*.test that text2perfdata accepts, converted (file
#             and pipe mode, plain and compressed, as the parts say);
#   script:   `perf script -F pid,ip,brstack --show-mmap-events` (and with the
#             default fields) of those perf.data files, when perf is installed,
#             and the perf script text parts of the tests;
#   binary:   the C and assembly sources of the tests (test/*/Inputs and
#             split-file parts), built with clang-19 -g at -O0 and -O2, DWARF 4
#             and 5, as executables and as objects, kept if under 64 KiB.
# Uses text2perfdata from ${BUILD_DIR:-build}/bin (sh utils/build.sh first).
set -eu
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
cd "$(dirname "$0")/../.."
SRC=$(pwd)
T2P=${BUILD_DIR:-build}/bin/text2perfdata
if [ ! -x "$T2P" ]; then
  echo "$0: $T2P not built (run utils/build.sh)" >&2
  exit 1
fi
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
mkdir -p "$OUT/perfdata" "$OUT/script" "$OUT/binary"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MAXBIN=65536

# Every split-file part of every test, as TMP/parts/TEST/PART.
for t in test/*/*.test; do
  d=$TMP/parts/$(basename "$(dirname "$t")")-$(basename "$t" .test)
  mkdir -p "$d"
  split-file-19 "$t" "$d" 2>/dev/null || true
done

n=0
for part in $(find "$TMP/parts" -type f | sort); do
  name=$(basename "$(dirname "$part")")-$(basename "$part")
  case $part in
    *.c|*.s|*.S) continue ;;
  esac
  if "$T2P" "$part" -o "$OUT/perfdata/$name.data" >/dev/null 2>&1; then
    n=$((n + 1))
  else
    rm -f "$OUT/perfdata/$name.data"
    # perf script text in a test (lines with 0x.../0x... branch pairs).
    if grep -q '0x[0-9a-f]*/0x[0-9a-f]*/' "$part" 2>/dev/null; then
      head -c 16384 "$part" > "$OUT/script/$name.txt"
    fi
  fi
done
echo "perfdata: $n files"

if command -v perf >/dev/null 2>&1; then
  for f in "$OUT"/perfdata/*.data; do
    b=$(basename "$f" .data)
    perf script -i "$f" -F pid,ip,brstack --show-mmap-events 2>/dev/null \
      | head -c 16384 > "$OUT/script/$b.brstack.txt" || true
    perf script -i "$f" --show-mmap-events 2>/dev/null \
      | head -c 16384 > "$OUT/script/$b.default.txt" || true
  done
fi
find "$OUT/script" -type f -empty -delete
echo "script: $(ls "$OUT/script" | wc -l) files"

# Sources: test inputs and split-file parts.
srcs=$(find test -path '*/Inputs/*' \( -name '*.c' -o -name '*.s' \) | sort)
srcs="$srcs $(find "$TMP/parts" \( -name '*.c' -o -name '*.s' \) | sort)"
for s in $srcs; do
  case $s in
    $TMP/*) b=$(basename "$(dirname "$s")")-$(basename "$s") ;;
    *) b=$(basename "$s") ;;
  esac
  # AArch64 assembly needs a cross target; x86 sources build natively.
  tgt=""
  if grep -qE '^\s*(ldr|str|cbz|cbnz|b\.ne|adrp)\b' "$s" 2>/dev/null; then
    tgt="--target=aarch64-linux-gnu"
  fi
  for opt in "-O0 -gdwarf-5" "-O2 -gdwarf-4" "-O2 -gdwarf-5 -gz=zstd"; do
    o=$(echo "$opt" | tr -d ' =-')
    # shellcheck disable=SC2086
    clang-19 $tgt $opt -c -w "$s" -o "$OUT/binary/$b.$o.o" 2>/dev/null || true
    # shellcheck disable=SC2086
    clang-19 $tgt $opt -w -nostdlib -static -fuse-ld=lld -Wl,--build-id \
      -Wl,-e,0 "$s" -o "$OUT/binary/$b.$o.elf" 2>/dev/null || true
  done
done
# Too big for a seed: drop.
find "$OUT/binary" -type f -size +"$MAXBIN"c -delete
echo "binary: $(ls "$OUT/binary" | wc -l) files"
