#!/bin/sh
# Issue 19: BOLT YAML on a rebuilt binary. For two programs, record the old
# build (emulated LBR), rebuild it with a statement added to a hot loop and
# a constant changed, and BOLT the new build from: the old fdata, lbr2prof's
# old YAML, perf2bolt -w's old YAML (same perf.data), all with
# -infer-stale-profile, and a fresh lbr2prof YAML of the new build (the
# ceiling). Prints llvm-bolt's stale/inferred lines (via the lit test's
# judge) and the exact taken branches of each BOLTed program in the
# executable (lbr-record --truth), and checks they all print the same.
# usage: bench/bolt-yaml-stale.sh
set -eu
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}/bin
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
BOLTOPTS="-infer-stale-profile -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold"
taken() { # truth binary-name: taken branches whose source is in the binary
  python3 - "$1" "$2" <<'PY'
import re, sys
maps, n = [], 0
for l in open(sys.argv[1]):
    if l.startswith("mapping "):
        m = re.search(r"start (0x\w+) end (0x\w+).* path (\S+)", l)
        if m.group(3).endswith("/" + sys.argv[2]):
            maps.append((int(m.group(1), 16), int(m.group(2), 16)))
    elif l.startswith("branch "):
        f = l.split()
        if any(s <= int(f[1], 16) < e for s, e in maps):
            n += int(f[3])
print(n)
PY
}
one() { # name old.c new-cflags-or-file
  d=$W/$1; mkdir -p "$d"
  clang-19 -O2 -Wl,--emit-relocs "$2" -o "$d/old"
  clang-19 -O2 -Wl,--emit-relocs $3 -o "$d/new"
  utils/lbr-record -q -o "$d/perf.data" --period 100 -- "$d/old" > /dev/null
  "$B/lbr2prof" "$d/perf.data" --binary "$d/old" -o "$d/old.yaml"
  "$B/lbr2prof" "$d/perf.data" --binary "$d/old" -o "$d/old.fdata"
  (cd "$d" && perf2bolt-19 old -p perf.data -w p2b.yaml -o /dev/null > /dev/null 2>&1)
  utils/lbr-record -q -o "$d/new.data" --period 100 -- "$d/new" > "$d/new.out"
  "$B/lbr2prof" "$d/new.data" --binary "$d/new" -o "$d/fresh.yaml"
  echo "== $1"
  python3 test/BoltYaml/Inputs/stale-vs-perf2bolt.py "$d/old.yaml" "$d/p2b.yaml" "$d/old" "$d/new" "$d"
  cp "$d/new" "$d/b-none"
  for p in old.fdata old.yaml p2b.yaml fresh.yaml; do
    llvm-bolt-19 "$d/new" -o "$d/b-$p" -data="$d/$p" $BOLTOPTS > "$d/$p.log" 2>&1
  done
  for p in none old.fdata old.yaml p2b.yaml fresh.yaml; do
    utils/lbr-record -q -o /dev/null --truth "$d/t-$p" --period 100000 -- "$d/b-$p" > "$d/out-$p"
    cmp -s "$d/out-$p" "$d/new.out" || echo "   $p: OUTPUT DIFFERS"
    echo "   taken branches, new build BOLTed from $p: $(taken "$d/t-$p" "b-$p")"
  done
}
one stale test/BoltYaml/Inputs/stale.c "-DV2 test/BoltYaml/Inputs/stale.c"
sed -e 's/    acc = t_switch(v, acc);/    acc = t_switch(v, acc);\n    acc += (int)(v \& 3);/' \
    -e 's/a\[i\] > key + 1000/a[i] > key + 900/' test/lbr-record/Inputs/branchy.c > "$W/branchy-new.c"
one branchy test/lbr-record/Inputs/branchy.c "$W/branchy-new.c"
