#!/bin/sh
# Issue 17's fleet bench: 1,000 recordings to one profile, four ways, in one
# run on this machine, each as a map (per file) and a reduce (all files):
#   fleet    utils/lbr2prof-fleet on a local Dask cluster (map and merge
#            tasks, end to end), and its stages alone: lbr2prof per file
#            (the map a host runs) and one `lbr2prof merge` of the 1,000 raw
#            profiles (the reduce);
#   one      one lbr2prof process reading the 1,000 files;
#   bolt     perf2bolt per file, then merge-fdata of the 1,000 fdata files;
#   profgen  llvm-profgen per file, then llvm-profdata merge --sample.
# Per-file steps run two at a time (xargs -P2, as the 2 local workers).
# Times are wall seconds and CPU seconds (user+sys); memory is peak RSS
# (/usr/bin/time %M; for a per-file step the largest process; for the Dask
# workers, sampled from ps every 0.2 s).
#
# The 1,000 files are NDISTINCT emulated captures (lbr-record, seeds 1..N)
# copied to 1,000 (emulating 1,000 captures is 1,000 qemu runs).
# usage: bench/fleet/run.sh [WORKDIR]   (default bench/results/fleet)
# env: NFILES (1000), NDISTINCT (50), PERIOD (20011), BUILD_DIR (build)
set -eu
cd "$(dirname "$0")/../.."
SRC=$(pwd)
B=$SRC/${BUILD_DIR:-build}/bin
W=${1:-$SRC/bench/results/fleet}
NFILES=${NFILES:-1000}
NDISTINCT=${NDISTINCT:-50}
PERIOD=${PERIOD:-20011}
P2B=/usr/lib/llvm-19/bin/perf2bolt
MERGE_FDATA=/usr/lib/llvm-19/bin/merge-fdata
export PATH="$B:$SRC/utils:$PATH"
T="/usr/bin/time"
rm -rf "$W" && mkdir -p "$W/in" "$W/raw" "$W/fdata" "$W/prof" "$W/t"
R=$W/results.txt
: > "$R"
log() { echo "$*" | tee -a "$R"; }

clang-19 -O2 -g -fPIC -shared -Wl,--emit-relocs test/Profile/Inputs/libhot.c -o "$W/libhot.so"
clang-19 -O2 -g test/Profile/Inputs/usehot.c -L"$W" -lhot -Wl,-rpath,"$W" -o "$W/usehot"
seq 1 "$NDISTINCT" | xargs -P2 -I{} python3 utils/lbr-record -q --seed {} \
  --period "$PERIOD" -o "$W/cap-{}.data" -- "$W/usehot" > /dev/null
i=0
while [ $i -lt "$NFILES" ]; do
  s=$((i % NDISTINCT + 1))
  cp "$W/cap-$s.data" "$W/in/host-$(printf %05d $i).data"
  i=$((i + 1))
done
rm -f "$W"/cap-*.data
log "inputs: $NFILES files ($NDISTINCT distinct captures, period $PERIOD), $(du -sb "$W/in" | cut -f1) bytes"

# stamp NAME CMD...: one process, its wall/user/sys/peak RSS.
stamp() {
  name=$1; shift
  $T -f "$name %e %U %S %M" -a -o "$W/t/stamps" "$@"
}
# each NAME CMD-TEMPLATE: per file, 2 at a time; {} is the file's stem.
each() {
  name=$1; shift
  start=$(date +%s.%N)
  ls "$W/in" | sed 's/\.data$//' | xargs -P2 -I{} \
    $T -f "%e %U %S %M" -a -o "$W/t/$name.each" sh -c "$*"
  end=$(date +%s.%N)
  awk -v n="$name" -v w="$(echo "$end - $start" | bc)" \
    '{u+=$2; s+=$3; if ($4>m) m=$4} END {print n, w, u, s, m}' \
    "$W/t/$name.each" >> "$W/t/stamps"
}

# The fleet, end to end, with the Dask workers' memory sampled.
( while :; do ps -eo rss=,args= | awk '/multiprocessing.spawn|multiprocessing.forkserver/ {print $1}'; sleep 0.2; done ) > "$W/t/worker-rss" 2>/dev/null &
SAMPLER=$!
stamp fleet lbr2prof-fleet --workers 2 "$W/in" -o "$W/fleet.lbrraw"
kill $SAMPLER
stamp fleet-prof lbr2prof "$W/fleet.lbrraw" --binary "$W/libhot.so" -o "$W/fleet.fdata"
# Its stages alone.
each map "lbr2prof $W/in/{}.data -o $W/raw/{}.lbrraw"
stamp merge lbr2prof merge "$W"/raw/*.lbrraw -o "$W/merged.lbrraw"
# One process over every file.
stamp one lbr2prof "$W"/in/*.data -o "$W/one.lbrraw"
stamp one-prof lbr2prof "$W"/in/*.data --binary "$W/libhot.so" -o "$W/one.fdata"
# The peers.
each perf2bolt "$P2B -p $W/in/{}.data -o $W/fdata/{}.fdata $W/libhot.so > /dev/null 2>&1"
stamp merge-fdata sh -c "$MERGE_FDATA $W/fdata/*.fdata > $W/bolt.fdata 2> /dev/null"
each profgen "llvm-profgen-19 --perfdata $W/in/{}.data --binary $W/libhot.so --output $W/prof/{}.prof > /dev/null 2>&1"
stamp profdata llvm-profdata-19 merge --sample "$W"/prof/*.prof -o "$W/profgen.prof"

cmp "$W/fleet.lbrraw" "$W/one.lbrraw"
cmp "$W/merged.lbrraw" "$W/one.lbrraw"
cmp "$W/fleet.fdata" "$W/one.fdata"
log "fleet.lbrraw = merged.lbrraw = one.lbrraw; fleet.fdata = one.fdata"
python3 bench/fleet/report.py "$W" | tee -a "$R"
