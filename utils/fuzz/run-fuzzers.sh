#!/bin/sh
# Usage: utils/fuzz/run-fuzzers.sh SECONDS [TARGET...]
# Builds the libFuzzer targets (perfdata-fuzzer, script-fuzzer, binary-fuzzer
# by default) into ${FUZZ_BUILD_DIR:-build-fuzz} with ASan, UBSan and the
# coverage instrumentation in every library, makes the seed corpora if they
# are missing (make-corpus.sh), then runs each target for SECONDS seconds, one
# after the other. The corpus grows in ${FUZZ_WORK:-build-fuzz/work}/TARGET/
# corpus; crashes, leaks, timeouts and out-of-memory inputs are saved in
# .../TARGET/artifacts/ (and fuzzing goes on), the log is appended to
# .../TARGET/log. At the end, executions
# and executions per second are printed per target.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 SECONDS [TARGET...]" >&2
  exit 2
fi
SECS=$1
shift
cd "$(dirname "$0")/../.."
SRC=$(pwd)
B=${FUZZ_BUILD_DIR:-build-fuzz}
W=${FUZZ_WORK:-$B/work}
TARGETS=${*:-perfdata-fuzzer script-fuzzer binary-fuzzer}

if [ ! -f "$B/build.ninja" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link \
    -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
    -DLBR2PROF_FUZZ=ON -DLBR2PROF_SANITIZE=ON -DLBR2PROF_BUILD_TESTS=OFF \
    >/dev/null
fi
# shellcheck disable=SC2086
cmake --build "$B" --target $TARGETS -- -j"$(nproc)"

for T in $TARGETS; do
  case $T in
    perfdata-fuzzer) SEEDS=perfdata MAXLEN=65536 ;;
    script-fuzzer) SEEDS=script MAXLEN=16384 ;;
    binary-fuzzer) SEEDS=binary MAXLEN=65536 ;;
    *) echo "$0: unknown target $T" >&2; exit 2 ;;
  esac
  if [ ! -d "$W/seeds/$SEEDS" ]; then
    sh "$SRC/utils/fuzz/make-corpus.sh" "$W/seeds"
  fi
  mkdir -p "$W/$T/corpus" "$W/$T/artifacts"
  echo "== $T: $SECS s (log: $W/$T/log)"
  # Fork mode: a crash, leak, timeout or out-of-memory input is saved and
  # fuzzing goes on in a new child. Several runs of one target (one per
  # core) may share the corpus.
  START=$(date +%s)
  ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$B/bin/$T" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$SECS" -max_len="$MAXLEN" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$W/$T/artifacts/" \
      "$W/$T/corpus" "$W/seeds/$SEEDS" >"$W/$T/log.$$" 2>&1 || true
  # Progress lines: "#EXECS: cov: ... exec/s: ... time: ...".
  EXECS=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$W/$T/log.$$" | tail -1)
  EXECS=${EXECS:-0}
  cat "$W/$T/log.$$" >>"$W/$T/log"
  rm -f "$W/$T/log.$$"
  # binary-fuzzer's temporary inputs, left by children that crashed.
  for F in /dev/shm/lbr2prof-binary-fuzz-*.elf /tmp/lbr2prof-binary-fuzz-*.elf; do
    [ -e "$F" ] || continue
    P=${F##*-}
    kill -0 "${P%.elf}" 2>/dev/null || rm -f "$F"
  done
  TIME=$(($(date +%s) - START))
  FOUND=$(ls "$W/$T/artifacts" | wc -l)
  echo "$T: $EXECS executions in $TIME s ($((EXECS / (TIME > 0 ? TIME : 1)))" \
       "exec/s), $FOUND artifact(s) in $W/$T/artifacts"
done
