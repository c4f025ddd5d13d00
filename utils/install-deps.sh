#!/bin/sh
# Installs the Debian 12 packages lbr2prof needs. Idempotent: does nothing
# when everything is present. Needs root (uses sudo when not root).
#   install-deps.sh           build, run and package lbr2prof, and run the
#                             bundled examples (utils/setup.sh)
#   install-deps.sh --tests   that, plus what the unit and lit tests and the
#                             benchmarks use (utils/run-tests.sh)
set -eu
# Build: compilers, LLVM 19's libraries, CLI11, zstd. Run: qemu-user, make
# and a C compiler for utils/lbr-record's plugin (built on first use from
# the source tree); llvm-19 (with llvm-19-dev) gives llvm-profdata-19 for
# the example. Package: dpkg-dev (dpkg-shlibdeps, for cpack -G DEB).
# libdebuginfod1: elfutils' debuginfod client, which lbr2prof opens when
# DEBUGINFOD_URLS is set (nothing is linked for it). python3-distributed
# and python3-dask: Dask, on which utils/lbr2prof-fleet runs the map and
# merge tasks (docs/fleet.md).
PKGS="cmake ninja-build pkg-config python3 llvm-19-dev clang-19 libzstd-dev
libcli11-dev qemu-user make libc6-dev dpkg-dev libdebuginfod1
python3-distributed python3-dask"
# Tests and benchmarks: GoogleTest; lit and FileCheck (llvm-19-tools);
# ld.lld-19 and the sanitizer runtimes for test programs; perf, AutoFDO,
# BOLT, valgrind and hyperfine as judges and baselines; the AArch64 cross
# sysroot; chromium for the HTML report's screenshot; man-db and bash for
# the package test; gcc-12 and g++-12, the judges of the .afdo output;
# debuginfod, elfutils' server, which serves the debug files of
# test/DebugFile; matplotlib for bench/scale's plots.
TEST_PKGS="libgtest-dev llvm-19-tools lld-19 bolt-19 libclang-rt-19-dev gcc-12 g++-12 debuginfod
linux-perf autofdo valgrind hyperfine zstd file binutils python3-matplotlib
libc6-dev-arm64-cross libgcc-12-dev-arm64-cross chromium man-db bash"
case "${1:-}" in
  "") ;;
  --tests) PKGS="$PKGS $TEST_PKGS" ;;
  *) echo "usage: install-deps.sh [--tests]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
