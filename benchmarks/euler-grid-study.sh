#!/usr/bin/env bash
# Transonic NACA 0012 (M = 0.8, alpha = 1.25 deg, second order, Roe,
# Venkatakrishnan K = 5) on a sequence of O-grids (far field 50 chords,
# first cell height 0.256 / cells_around), one rank each, and the
# grid-converged values of Vassberg and Jameson (2010) beside them: the
# table in docs/performance.md ("Grid study").
#
#   benchmarks/euler-grid-study.sh [camber executable] [sizes...]
#   (default: build-bench-eu/bin/camber, sizes 64 128 256; cells_normal =
#   cells_around / 2). The 256 x 128 grid takes minutes on one core.
#   Environment: FARFIELD (chords, default 50), K (Venkatakrishnan's
#   constant, default 5; LIMITER=none for the unlimited scheme), FLUX (roe
#   or hllc), FREEZE (solver.freeze_limiter_drop, default: never frozen),
#   FIRST (first cell height times cells_around, default 0.256), NORMAL
#   (cells_normal as a multiple of cells_around, default 0.5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
camber=${1:-$root/build-bench-eu/bin/camber}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(64 128 256)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| grid | cells | Newton steps | CL | CD | CM | solve time, s |\n|---|---|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
  h=$(python3 -c "print(${FIRST:-0.256} / $n)")
  nn=$(python3 -c "print(int(${NORMAL:-0.5} * $n))")
  freeze=${FREEZE:+, freeze_limiter_drop: $FREEZE}
  cat >"$work/g$n.yaml" <<DECK
case: g$n
problem: euler
mesh: {generate: airfoil_ogrid, naca: "0012", cells_around: $n, cells_normal: $nn, first_cell_height: $h, farfield_chords: ${FARFIELD:-50.0}}
flow: {mach: 0.8, alpha_deg: 1.25, order: 2, flux: ${FLUX:-roe}, limiter: ${LIMITER:-venkatakrishnan}, venkatakrishnan_k: ${K:-5.0}}
boundaries: {slip_wall: airfoil, far_field: farfield}
solver: {max_iterations: 400, rel_tolerance: 1.0e-10$freeze}
output: {dir: $work/out, paraview: false, hdf5: false}
DECK
  out=$("$camber" run "$work/g$n.yaml" --no-timers 2>&1 || true)
  get() { sed -n "s/^ *$1 *\([^ ]*\).*/\1/p" <<<"$out" | head -1; }
  steps=$(sed -n 's/^ *Newton steps *\(.*\)/\1/p' <<<"$out")
  printf '| %d x %d | %d | %s | %s | %s | %s | %s |\n' "$n" "$nn" $((n * nn)) \
    "$steps" "$(get CL)" "$(get CD)" "$(get CM)" "$(get 'wall time')"
done
printf '| Vassberg & Jameson (2010), grid-converged | | | 0.3474 | 0.0221 | | |\n'
