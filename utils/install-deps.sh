#!/bin/sh
# Installs the Debian 12 packages lbr2prof builds, tests and benchmarks with.
# Idempotent: does nothing when everything is present. Needs root (uses sudo
# when not root).
set -eu
PKGS="cmake ninja-build pkg-config python3 llvm-19-dev clang-19 lld-19 bolt-19
llvm-19-tools libzstd-dev libcli11-dev libgtest-dev qemu-user linux-perf
autofdo valgrind hyperfine zstd file binutils make libclang-rt-19-dev
libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
chromium"
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
