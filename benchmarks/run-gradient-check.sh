#!/usr/bin/env bash
# Checks the shape gradient `camber optimize` computes on its QuickStart deck
# (examples/naca0012/quickstart_drag.yaml: SU2's QuickStart NACA 0012 mesh,
# M = 0.8, alpha = 1.25 deg, second order, 38 Hicks-Henne bumps) against
# central differences with the baseline's limiter frozen, at a few bumps and
# steps, and times the adjoint gradient (benchmarks/solvers/
# check_quickstart_gradient.cpp says what is solved). One rank, Release.
#
#   benchmarks/run-gradient-check.sh [build-dir] [-- program options]
#       (default build-bench-eu; e.g. -- --bumps 3,11 --steps 1e-4)
#
# Environment: JOBS (default 2), MARCH (default x86-64-v3), RANKS (default 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-bench-eu
if [[ $# -gt 0 && $1 != -- ]]; then build=$1; shift; fi
[[ ${1:-} == -- ]] && shift
jobs=${JOBS:-2}
march=${MARCH:-x86-64-v3}
ranks=${RANKS:-1}
mesh=$root/../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
[[ -f $mesh ]] || { echo "run-gradient-check.sh: $mesh not found" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-march=$march" \
  -DCAMBER_ENABLE_BENCHMARKS=ON -DCAMBER_ENABLE_TESTS=OFF -DCAMBER_ENABLE_DOCS=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target check_quickstart_gradient >/dev/null
exe=$(find "$build/benchmarks" -name check_quickstart_gradient -type f -perm -u+x | head -1)
out=$build/bench-results/gradient-check
mkdir -p "$out"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p'), $ranks rank(s)"
if [[ $ranks -gt 1 ]]; then
  mpirun -n "$ranks" --oversubscribe "$exe" "$@" | tee "$out/check.log"
else
  "$exe" "$@" | tee "$out/check.log"
fi
