#!/bin/sh
# README command 2: build and run every test (GoogleTest unit tests and the
# lit + FileCheck tool tests) through ctest. Installs missing packages first.
set -eu
cd "$(dirname "$0")/.."
sh utils/install-deps.sh
sh utils/build.sh "$@"
B=${BUILD_DIR:-build}
cd "$B"
ctest --output-on-failure -j2 --timeout 1500
