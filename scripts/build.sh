#!/usr/bin/env bash
# Installs the Debian packages Camber needs (idempotent), then configures and
# builds into ./build (or $CAMBER_BUILD_DIR) with ccache.
#
#   bash scripts/build.sh [extra cmake arguments]
#
# Builds what `camber` needs: the libraries and the program. The tests,
# benchmarks and tours are scripts/test.sh's (CAMBER_BUILD_TARGETS=all
# builds everything here too). Release by default (CAMBER_BUILD_TYPE).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CAMBER_BUILD_DIR:-$root/build}
jobs=${CAMBER_JOBS:-2}
targets=${CAMBER_BUILD_TARGETS:-camber_cli}

bash "$root/scripts/setup-debian.sh"

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${CAMBER_BUILD_TYPE:-Release} "$@"
if [[ $targets == all ]]; then
  cmake --build "$build" -j "$jobs"
else
  # shellcheck disable=SC2086
  cmake --build "$build" -j "$jobs" --target $targets
fi
