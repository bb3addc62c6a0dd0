#!/usr/bin/env bash
# Checks the shape gradient `camber optimize` computes on the chain of its
# QuickStart deck (examples/naca0012/quickstart_drag.yaml, built from library
# calls: SU2's QuickStart NACA 0012 mesh, M = 0.8, alpha = 1.25 deg, second
# order, 38 Hicks-Henne bumps) against
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
. "$root/benchmarks/common/bench-script.sh"
mesh=$root/../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
[[ -f $mesh ]] || { echo "run-gradient-check.sh: $mesh not found" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

exe=$(build_bench_target "$root" "$build" "$march" "$jobs" check_quickstart_gradient)
out=$build/bench-results/gradient-check
mkdir -p "$out"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p'), $ranks rank(s)"
if [[ $ranks -gt 1 ]]; then
  mpirun -n "$ranks" --oversubscribe "$exe" "$@" | tee "$out/check.log"
else
  "$exe" "$@" | tee "$out/check.log"
fi
