#!/usr/bin/env bash
# The least-squares stencil and the limiter's threshold on quads and on the
# same nodes split into triangles: transonic NACA 0012 (M 0.8, alpha 1.25
# deg, second order, Roe, Venkatakrishnan-Wang) on Vassberg and Jameson's
# N x N grid, one rank per solve, each to a relative drop of 1e-10 (300
# steps at most). The table in docs/performance.md ("Triangles and the
# gradient stencil").
#
#   benchmarks/euler-stencil-study.sh [camber executable] [N]
#
# Environment: STENCILS (default "faces nodes"), EPSILONS (default
# "0.05 0.1 0.3"), MACH (default 0.8). mixed, the default stencil, is
# nodes on the triangles and faces on the quads.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
camber=${1:-$root/build/bin/camber}
n=${2:-64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| stencil | wang_epsilon | quads CL | steps | triangles CL | steps | triangles / quads - 1 |\n'
printf '|---|---|---|---|---|---|---|\n'
for stencil in ${STENCILS:-faces nodes}; do
  for eps in ${EPSILONS:-0.05 0.1 0.3}; do
    row="| $stencil | $eps"
    cls=()
    for shape in quads triangles; do
      cat >"$work/s.yaml" <<DECK
case: s
problem: euler
mesh: {generate: karman_trefftz_ogrid, cells: $n, cell_shape: $shape}
flow: {mach: ${MACH:-0.8}, alpha_deg: 1.25, order: 2, flux: roe, limiter: venkatakrishnan_wang, wang_epsilon: $eps, gradient_stencil: $stencil}
boundaries: {slip_wall: airfoil, far_field: farfield}
solver: {max_iterations: 300, rel_tolerance: 1.0e-10}
output: {dir: $work/out, paraview: false, hdf5: false}
DECK
      out=$("$camber" run "$work/s.yaml" --no-timers 2>&1 || true)
      cl=$(tail -1 "$work/out/s_history.csv" | cut -d, -f7)
      steps=$(sed -n 's/^ *Newton steps *\(.*\)/\1/p' <<<"$out")
      cls+=("$cl")
      row="$row | $(printf '%.6f' "$cl") | $steps"
    done
    printf '%s | %+.2f%% |\n' "$row" "$(python3 -c "print(100 * (${cls[1]} / ${cls[0]} - 1))")"
  done
done
