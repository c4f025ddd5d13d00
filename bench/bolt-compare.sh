#!/bin/sh
# Issue 4 comparison: for three programs (loops/switch/indirect calls/
# recursion as non-PIE and PIE, and a shared library), record an emulated
# LBR capture with exact truth, make fdata with lbr2prof and with perf2bolt
# from the same perf.data, run llvm-bolt on each, check the BOLTed program
# prints the same, and grade both profiles against the truth.
# usage: bench/bolt-compare.sh [PERIOD]   (default 100: ~20k samples)
set -eu
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}/bin
P2B=/usr/lib/llvm-19/bin/perf2bolt
PERIOD=${1:-100}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
BOLTOPTS="-reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions"
run() { # name binary-to-profile program...
  name=$1 bin=$2; shift 2
  utils/lbr-record -q -o "$W/$name.data" --truth "$W/$name.truth" \
    --period "$PERIOD" -- "$@" > "$W/$name.out"
  "$B/lbr2prof" "$W/$name.data" --binary "$bin" -o "$W/$name.ours.fdata" \
    --dump=cfg > "$W/$name.cfg"
  $P2B -p "$W/$name.data" -o "$W/$name.p2b.fdata" "$bin" > "$W/$name.p2b.log" 2>&1
  echo "== $name ($(grep -o 'read [0-9]* samples' "$W/$name.p2b.log"))"
  grep -E 'mismatching|out of range' "$W/$name.p2b.log" | sed 's/^/   perf2bolt: /'
  for k in ours p2b; do
    extra=""
    case "$bin" in *.so) ;; *) extra="-reorder-functions=cdsort";; esac
    llvm-bolt-19 "$bin" -o "$W/$name.$k.bolt" -data="$W/$name.$k.fdata" \
      -reorder-blocks=ext-tsp -split-functions $extra > "$W/$name.$k.bolt.log" 2>&1
    echo "   $k: $(grep -E 'have non-empty execution profile' "$W/$name.$k.bolt.log" | sed 's/BOLT-INFO: //')"
    grep -E 'stale|mismatch|ignored' "$W/$name.$k.bolt.log" | sed "s/^/   $k: /" || true
  done
  python3 utils/profile-overlap.py --binary "$bin" --truth "$W/$name.truth" \
    --cfg "$W/$name.cfg" lbr2prof="$W/$name.ours.fdata" \
    perf2bolt="$W/$name.p2b.fdata" | sed 's/^/   /'
}
clang-19 -O2 -fno-pie -no-pie -Wl,--emit-relocs test/lbr-record/Inputs/branchy.c -o "$W/branchy"
clang-19 -O2 -fPIE -pie -Wl,--emit-relocs test/lbr-record/Inputs/branchy.c -o "$W/branchy-pie"
clang-19 -O2 -fPIC -shared -Wl,--emit-relocs test/Profile/Inputs/libhot.c -o "$W/libhot.so"
clang-19 -O2 test/Profile/Inputs/usehot.c -L"$W" -lhot -Wl,-rpath,"$W" -o "$W/usehot"
run branchy "$W/branchy" "$W/branchy"
run branchy-pie "$W/branchy-pie" "$W/branchy-pie"
run libhot "$W/libhot.so" "$W/usehot"
