#!/usr/bin/env bash
# Installs the Debian packages Camber needs (idempotent), then configures and
# builds into ./build (or $CAMBER_BUILD_DIR) with ccache.
#
#   bash scripts/build.sh [extra cmake arguments]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CAMBER_BUILD_DIR:-$root/build}
jobs=${CAMBER_JOBS:-2}

bash "$root/scripts/setup-debian.sh"

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${CAMBER_BUILD_TYPE:-RelWithDebInfo} "$@"
cmake --build "$build" -j "$jobs"
