#!/bin/sh
# README command 1: install the Debian packages, build a Release build, and
# run lbr2prof on the bundled example (examples/loop.perf.txt, turned into a
# real perf.data by text2perfdata).
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
