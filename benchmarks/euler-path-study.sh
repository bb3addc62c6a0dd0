#!/usr/bin/env bash
# Does the converged second-order solution depend on the solver's path?
# Solves one case (NACA 0012, alpha 1.25 deg, M 0.8, second order, Roe, the
# Venkatakrishnan-Wang limiter) along several Newton paths, each to a
# relative drop of 1e-10, and prints the converged CL of each: a unique
# discrete solution gives the same CL to about 1e-10 on every converged
# path. The table in docs/performance.md ("Is the discrete solution
# unique?").
#
#   benchmarks/euler-path-study.sh [camber executable]
#
# Environment:
#   MESH     the deck's mesh section as a flow-style map (default: Vassberg
#            and Jameson's 128^2 grid, {generate: karman_trefftz_ogrid,
#            cells: 128}); e.g. {generate: file, file: /path/to/mesh.su2}
#   EPSILON  wang_epsilon (default 0.05)
#   RANKS    the rank count of the last path (default 2)
# The paths differ in solver keys only:
#   A  assembled, first_order_drop 1e-3, second_order_cfl_growth 4
#   B  A with max_update 0 (no cap on the change per step)
#   C  assembled, first_order_drop 1e-2, second_order_cfl_growth 10
#   D  matrix_free, first_order_drop 1e-3, second_order_cfl_growth 4
#   E  A with cfl_start 100
#   F  D on RANKS ranks
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
camber=${1:-$root/build/bin/camber}
mesh=${MESH:-"{generate: karman_trefftz_ogrid, cells: 128}"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
common="max_iterations: 400, rel_tolerance: 1.0e-10"
declare -A keys=(
  [A]="newton_operator: assembled, first_order_drop: 1.0e-3, second_order_cfl_growth: 4"
  [B]="newton_operator: assembled, first_order_drop: 1.0e-3, second_order_cfl_growth: 4, max_update: 0"
  [C]="newton_operator: assembled, first_order_drop: 1.0e-2, second_order_cfl_growth: 10"
  [D]="newton_operator: matrix_free, first_order_drop: 1.0e-3, second_order_cfl_growth: 4"
  [E]="newton_operator: assembled, first_order_drop: 1.0e-3, second_order_cfl_growth: 4, cfl_start: 100"
  [F]="newton_operator: matrix_free, first_order_drop: 1.0e-3, second_order_cfl_growth: 4"
)
printf '| path | ranks | Newton steps | orders | CL | CD | CM | solve time, s |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for p in A B C D E F; do
  cat >"$work/$p.yaml" <<DECK
case: p$p
problem: euler
mesh: $mesh
flow: {mach: 0.8, alpha_deg: 1.25, order: 2, flux: roe, limiter: venkatakrishnan_wang, wang_epsilon: ${EPSILON:-0.05}}
boundaries: {slip_wall: airfoil, far_field: farfield}
solver: {$common, ${keys[$p]}}
output: {dir: $work/out, paraview: false, hdf5: false}
DECK
  ranks=1
  if [[ $p == F ]]; then
    ranks=${RANKS:-2}
    out=$(mpirun --oversubscribe -n "$ranks" "$camber" run "$work/$p.yaml" --no-timers 2>&1 || true)
  else
    out=$("$camber" run "$work/$p.yaml" --no-timers 2>&1 || true)
  fi
  get() { sed -n "s/^ *$1 *\([^ ]*\).*/\1/p" <<<"$out" | head -1; }
  # The forces at full precision: the history's last row.
  last=$(tail -1 "$work/out/p${p}_history.csv" 2>/dev/null || true)
  force() { cut -d, -f"$1" <<<"$last"; }
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$ranks" \
    "$(sed -n 's/^ *Newton steps *\(.*\)/\1/p' <<<"$out")" "$(get 'residual drop')" \
    "$(force 7)" "$(force 8)" "$(force 9)" "$(get 'wall time')"
done
