#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite (serial and
# MPI tests at 1, 2 and 4 ranks) with CTest, then the Kokkos backend legs
# (OpenMP tests, CUDA build) and the command line built without the
# optional modules (scripts/test-options.sh).
#
#   bash scripts/test.sh [ctest arguments, e.g. -L mpi or -R heat]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CAMBER_BUILD_DIR:-$root/build}

# The time of each part, printed at the end.
parts=()
timed() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  parts+=("$name $((SECONDS - t0)) s")
}

# Benchmarks are built too (and their set-up checks run as tests), so they
# cannot rot; their timings are not tests.
timed build env CAMBER_BUILD_TARGETS=all bash "$root/scripts/build.sh" -DCAMBER_ENABLE_BENCHMARKS=ON
cd "$build"
# Open MPI refuses root without these; CTest sets them per test as well.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A test that times out runs once more (a rare hang: one 4-rank test once
# in CI). Each test prints its ranks' stacks 20 s before its timeout
# (tests/test_main.cpp), into the watchdog folder as well, which is printed
# here, so a hang that passed when run again still shows where it waited.
watchdog=$build/Testing/watchdog
rm -rf "$watchdog" && mkdir -p "$watchdog"
status=0
CAMBER_TEST_WATCHDOG_DIR=$watchdog timed ctest ctest --output-on-failure --timeout 900 \
  --repeat after-timeout:2 "$@" || status=$?
for f in "$watchdog"/*.txt; do
  [[ -e $f ]] || continue
  echo "== watchdog: $f"
  cat "$f"
done
[[ $status -eq 0 ]] || exit "$status"

# Fuzzing (a short run: 25 s for each of the request parser and the model
# loader, a fixed seed), the Kokkos backends (the Kokkos-only suites run on
# OpenMP with 2 threads; the libraries built for CUDA, no GPU here) and the
# command line without its optional modules. Skipped when the caller
# selects tests.
if [[ $# -eq 0 ]]; then
  timed fuzz env FUZZ_SEED=1 FUZZ_CI=1 bash "$root/scripts/fuzz.sh" 25
  timed backends bash "$root/scripts/test-backends.sh"
  timed options bash "$root/scripts/test-options.sh"
fi
echo "== test.sh: passed; ${parts[*]/%/,} total $SECONDS s"
