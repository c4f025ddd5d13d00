#!/usr/bin/env bash
# Measures how much slower a CPU-bound program runs under utils/lbr-record
# than natively, and how that splits between QEMU itself and the LBR plugin.
# The workload (written below) mixes libc qsort with its indirect comparator
# calls, a branchy hash loop and a switch, so that taken branches are dense.
#
# Usage: bench/lbr-record-slowdown.sh [ROUNDS] [PERIOD]
#   ROUNDS  workload size (default 30; about 0.5 s natively)
#   PERIOD  lbr-record --period (default 100003, its default)
# Prints one line per configuration (best of 3 wall-clock runs) and the
# slowdown factors. The target is under 30x native for lbr-record.
set -euo pipefail

ROUNDS=${1:-30}
PERIOD=${2:-100003}
HERE=$(cd "$(dirname "$0")" && pwd)
LBR_RECORD="$HERE/../utils/lbr-record"
CC=${CC:-clang-19}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lbr-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cat > "$WORK/bench.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

static unsigned Seed = 1;
static unsigned rnd(void) { Seed = Seed * 1103515245u + 12345u; return Seed >> 8; }

static int cmp(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

static unsigned long mix(unsigned long h, unsigned v) {
  switch (v & 3) {
  case 0: return h * 31 + v;
  case 1: return (h ^ v) * 17;
  case 2: return h + (v << 3);
  default: return h - v;
  }
}

#define N 200000
static unsigned A[N];

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 30;
  unsigned long h = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < N; i++)
      A[i] = rnd();
    qsort(A, N, sizeof A[0], cmp);
    for (int i = 0; i < N; i++) {
      h = mix(h, A[i]);
      if (A[i] & 1)
        h ^= h >> 7;
    }
  }
  printf("%lu\n", h);
  return 0;
}
EOF
"$CC" -O2 -o "$WORK/bench" "$WORK/bench.c"

# Best wall-clock seconds of 3 runs of "$@" (bash's time keyword).
best_of_3() {
  local best="" t TIMEFORMAT=%R
  for _ in 1 2 3; do
    t=$( { time "$@" > /dev/null 2>&1; } 2>&1 )
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

# Build the plugin (and warm the cache) before timing anything.
"$LBR_RECORD" -q -o "$WORK/warm.data" -- "$WORK/bench" 1 > /dev/null

native=$(best_of_3 "$WORK/bench" "$ROUNDS")
qemu=$(best_of_3 qemu-x86_64 -cpu max "$WORK/bench" "$ROUNDS")
record=$(best_of_3 "$LBR_RECORD" -q -o "$WORK/perf.data" --period "$PERIOD" \
  --truth "$WORK/truth.txt" -- "$WORK/bench" "$ROUNDS")
sum() { awk -v k="$1" '$1 == k { s += $2 } END { printf "%.0f", s }' "$WORK/truth.txt"; }
insns=$(sum instructions)
branches=$(sum taken_branches)
samples=$(sum samples)

echo "workload: $ROUNDS rounds, $insns instructions, $branches taken branches"
echo "native:             ${native} s"
echo "qemu-x86_64 alone:  ${qemu} s  ($(ratio "$qemu" "$native")x native)"
echo "lbr-record:         ${record} s  ($(ratio "$record" "$native")x native, $samples samples, period $PERIOD)"
echo "plugin over qemu:   $(ratio "$record" "$qemu")x"
