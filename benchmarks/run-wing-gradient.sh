#!/usr/bin/env bash
# Checks the adjoint gradient of a 3-D wing's CL and CD with respect to the
# control points of an FFD box against central differences of converged
# solutions (benchmarks/solvers/check_wing_gradient.cpp says what is
# solved), on the ONERA M6 coarse grid that examples/onera_m6/mesh.sh
# writes (meshed here first when missing; needs gmsh). Release.
#
#   benchmarks/run-wing-gradient.sh [build-dir] [-- program options]
#       (default build-bench-eu; e.g. -- --variables 0,7 --step 1e-4)
#
# Environment: JOBS (default 2), MARCH (default x86-64-v3), RANKS (default 1),
# MESH (default out/onera_m6/onera_m6_coarse.su2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/benchmarks/common/bench-script.sh"
mesh=${MESH:-$root/out/onera_m6/onera_m6_coarse.su2}
if [[ ! -f $mesh ]]; then
  (cd "$root" && bash examples/onera_m6/mesh.sh)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

exe=$(build_bench_target "$root" "$build" "$march" "$jobs" check_wing_gradient)
out=$build/bench-results/wing-gradient
mkdir -p "$out"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p'), $ranks rank(s)"
mpirun -n "$ranks" --oversubscribe "$exe" "$mesh" "$@" | tee "$out/check.log"
