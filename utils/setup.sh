#!/bin/sh
# README command 1: install the Debian packages, build a Release build, and
# run lbr2prof on the bundled examples: examples/loop.perf.txt (turned into
# a real perf.data by text2perfdata), and examples/hot.c, compiled, run
# under the emulated LBR (utils/lbr-record) and turned into a sample
# profile (read back by llvm-profdata-19), a BOLT .fdata and a report.
# Installs only what building and running lbr2prof needs; the tests' tools
# come with utils/run-tests.sh (install-deps.sh --tests).
set -eu
cd "$(dirname "$0")/.."
sh utils/install-deps.sh
sh utils/build.sh
B=${BUILD_DIR:-build}
"$B/bin/text2perfdata" examples/loop.perf.txt -o "$B/example.data"
echo "== lbr2prof dump --summary $B/example.data"
"$B/bin/lbr2prof" dump --summary "$B/example.data"
echo "== lbr2prof dump --show-mmap-events $B/example.data"
"$B/bin/lbr2prof" dump --show-mmap-events "$B/example.data"
E="$B/example"
mkdir -p "$E"
clang-19 -O2 -g examples/hot.c -o "$E/hot"
echo "== utils/lbr-record -o $E/hot.data -- $E/hot"
utils/lbr-record -q -o "$E/hot.data" --period 20011 -- "$E/hot"
echo "== lbr2prof $E/hot.data --binary $E/hot -o $E/hot.prof --stats"
"$B/bin/lbr2prof" "$E/hot.data" --binary "$E/hot" -o "$E/hot.prof" --stats
echo "== llvm-profdata-19 show --sample $E/hot.prof (what clang -fprofile-sample-use reads)"
llvm-profdata-19 show --sample --function=main "$E/hot.prof"
echo "== lbr2prof $E/hot.data --binary $E/hot -o $E/hot.fdata (for llvm-bolt -data=)"
"$B/bin/lbr2prof" "$E/hot.data" --binary "$E/hot" -o "$E/hot.fdata"
head -5 "$E/hot.fdata"
echo "== lbr2prof report $E/hot.data --binary $E/hot --top 5 --html $E/hot.html"
"$B/bin/lbr2prof" report "$E/hot.data" --binary "$E/hot" --top 5 --html "$E/hot.html"
