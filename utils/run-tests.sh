#!/bin/sh
# README command 2: build and run every test (GoogleTest unit tests and the
# lit + FileCheck tool tests) through ctest. Installs missing packages first:
# the test set (install-deps.sh --tests), and configures with the tests
# required, so a missing test tool is an error rather than a skipped suite.
#   --sanitize   build with ASan + UBSan into build-asan and test that
set -eu
cd "$(dirname "$0")/.."
sh utils/install-deps.sh --tests
if [ "${1:-}" = "--sanitize" ]; then
  export BUILD_DIR=${BUILD_DIR:-build-asan}
  sh utils/build.sh -DLBR2PROF_SANITIZE=ON -DLBR2PROF_BUILD_TESTS=ON
else
  sh utils/build.sh -DLBR2PROF_BUILD_TESTS=ON
fi
B=${BUILD_DIR:-build}
cd "$B"
ctest --output-on-failure -j2 --timeout 1500
