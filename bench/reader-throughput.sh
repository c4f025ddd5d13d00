#!/bin/sh
# Reader throughput (issue 2): lbr2prof dump --summary against
# `perf script -F ip,brstack > /dev/null` and `cat FILE > /dev/null` on the
# same perf.data (page cache warm), in one run. Prints MB/s and ratios and
# writes bench/results/reader-throughput.csv.
#
# usage: bench/reader-throughput.sh [FILE]   (default: makes a 720 MB file)
# env:   RUNS (default 3), BUILD_DIR (default build)
set -eu
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
RUNS=${RUNS:-3}
F=${1:-}
if [ -z "$F" ]; then
  F=${TMPDIR:-/tmp}/lbr2prof-bench-720M.data
  [ -f "$F" ] || python3 bench/make-big-perfdata.py -o "$F" --size 720
fi
MB=$(stat -c %s "$F" | awk '{printf "%.1f", $1/1e6}')
cat "$F" > /dev/null
mkdir -p bench/results
CSV=bench/results/reader-throughput.csv
echo "tool,run,seconds,max_rss_kb,mb_per_s" > "$CSV"
measure() { # name cmd...
  name=$1; shift
  for r in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o /tmp/lbr2prof-time.$$ sh -c "$* > /dev/null 2>&1"
    read -r secs rss < /tmp/lbr2prof-time.$$
    mbs=$(awk -v m="$MB" -v s="$secs" 'BEGIN{printf "%.0f", (s>0? m/s : 0)}')
    echo "$name,$r,$secs,$rss,$mbs" >> "$CSV"
  done
}
measure cat cat "$F"
measure lbr2prof "$B/bin/lbr2prof" dump --summary "$F"
measure perf-script perf script -F ip,brstack -i "$F"
rm -f /tmp/lbr2prof-time.$$
echo "file: $F ($MB MB)"
python3 - "$CSV" "$MB" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
mb = float(sys.argv[2])
med = {}
for k in ("cat", "lbr2prof", "perf-script"):
    ts = [float(r["seconds"]) for r in rows if r["tool"] == k]
    rss = max(int(r["max_rss_kb"]) for r in rows if r["tool"] == k)
    med[k] = (statistics.median(ts), min(ts), max(ts), rss)
print("%-12s %9s %15s %9s %10s %12s" % ("tool", "median_s", "min..max", "MB/s", "rss_kb", "time/lbr2prof"))
for k, (m, lo, hi, rss) in med.items():
    print("%-12s %9.3f %7.3f..%-7.3f %9.0f %10d %11.1fx" % (k, m, lo, hi, mb / max(m, 1e-9), rss, m / max(med["lbr2prof"][0], 1e-9)))
PY
