#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite (serial and
# MPI tests at 1, 2 and 4 ranks) with CTest.
#
#   bash scripts/test.sh [ctest arguments, e.g. -L mpi or -R heat]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CAMBER_BUILD_DIR:-$root/build}

bash "$root/scripts/build.sh"
cd "$build"
# Open MPI refuses root without these; CTest sets them per test as well.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --output-on-failure --timeout 900 "$@"
