#!/bin/sh
# README command 2: build and run every test (GoogleTest unit tests and the
# lit + FileCheck tool tests) through ctest. Installs missing packages first.
#   --sanitize   build with ASan + UBSan into build-asan and test that
set -eu
cd "$(dirname "$0")/.."
sh utils/install-deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  export BUILD_DIR=${BUILD_DIR:-build-asan}
  sh utils/build.sh -DLBR2PROF_SANITIZE=ON
else
  sh utils/build.sh
fi
B=${BUILD_DIR:-build}
cd "$B"
ctest --output-on-failure -j2 --timeout 1500
