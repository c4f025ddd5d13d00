#!/bin/sh
# Configures and builds lbr2prof (Release) into ${BUILD_DIR:-build}.
# Extra arguments go to cmake's configure step (e.g. -DLBR2PROF_SANITIZE=ON).
set -eu
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
if [ ! -f "$B/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 "$@" >/dev/null
fi
cmake --build "$B" -- -j"$(nproc)"
