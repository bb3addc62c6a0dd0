#!/usr/bin/env bash
# NACA 0012 at alpha = 1.25 deg (M = 0.8 by default), second order, Roe,
# on a sequence of grids, one rank each, beside CFL3D's values on Vassberg
# and Jameson's grids (J. Aircraft 47(4), 2010, Tables 7-8: far field 150
# chords, no vortex correction): the tables in docs/performance.md ("Grid
# study").
#
#   benchmarks/euler-grid-study.sh [camber executable] [sizes...]
#
# Default: build/bin/camber, sizes 64 128 256. Environment:
#   FAMILY    kt (default): Vassberg and Jameson's Karman-Trefftz O-grids,
#             N x N cells (mesh.generate: karman_trefftz_ogrid);
#             ogrid: the project's airfoil_ogrid, N around, NORMAL * N out
#             (NORMAL default 0.5), first cell FIRST / N (FIRST default
#             0.256), far field FARFIELD chords (default 150), NACA 0012
#             with the ADODG sharp trailing edge
#             conformal: the project's conformal_ogrid, N x N, around V&J's
#             airfoil (written here as a 4,001-point Selig file), far field
#             FARFIELD chords (default 150)
#   MACH      free-stream Mach number (0.8; 0.5 for the subsonic case)
#   LIMITER   venkatakrishnan_wang (default), venkatakrishnan or none
#   SHAPE     quads (default) or triangles (each quad split, same nodes)
#   EXTRA     more flow keys, e.g. "wang_epsilon: 0.1"
#   SOLVER    more solver keys, e.g. "newton_operator: assembled"
# The 512^2 grid takes tens of minutes on one core.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
camber=${1:-$root/build/bin/camber}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(64 128 256)
family=${FAMILY:-kt}
mach=${MACH:-0.8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| grid | cells | Newton steps | orders | CL | CD | CM | solve time, s | peak memory, MiB |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
  if [[ $family == kt ]]; then
    mesh="{generate: karman_trefftz_ogrid, cells: $n, cell_shape: ${SHAPE:-quads}}"
    label="$n x $n"
  elif [[ $family == conformal ]]; then
    if [[ ! -f $work/vj.dat ]]; then
      python3 - "$work/vj.dat" <<'PY'
import math, sys
def yt(x):
    return 0.6 * (0.2969 * math.sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x ** 3 - 0.1015 * x ** 4)
lo, hi = 1.0, 1.1
for _ in range(200):
    mid = 0.5 * (lo + hi)
    lo, hi = (mid, hi) if yt(mid) > 0 else (lo, mid)
xte, n = 0.5 * (lo + hi), 4001
x = [xte * 0.5 * (1 - math.cos(math.pi * k / (n - 1))) for k in range(n)]
y = [0.0 if k in (0, n - 1) else yt(x[k]) for k in range(n)]
with open(sys.argv[1], "w") as f:
    f.write("NACA 0012 closed at x_te (Vassberg and Jameson)\n")
    for k in reversed(range(n)):
        f.write(f"{x[k]:.16e} {y[k]:.16e}\n")
    for k in range(1, n):
        f.write(f"{x[k]:.16e} {-y[k]:.16e}\n")
PY
    fi
    mesh="{generate: conformal_ogrid, airfoil_file: $work/vj.dat, cells_around: $n, cells_normal: $n, farfield_chords: ${FARFIELD:-150.0}, cell_shape: ${SHAPE:-quads}}"
    label="$n x $n"
  else
    h=$(python3 -c "print(${FIRST:-0.256} / $n)")
    nn=$(python3 -c "print(int(${NORMAL:-0.5} * $n))")
    mesh="{generate: airfoil_ogrid, naca: \"0012\", cells_around: $n, cells_normal: $nn, first_cell_height: $h, farfield_chords: ${FARFIELD:-150.0}, cell_shape: ${SHAPE:-quads}}"
    label="$n x $nn"
  fi
  cat >"$work/g$n.yaml" <<DECK
case: g$n
problem: euler
mesh: $mesh
flow: {mach: $mach, alpha_deg: 1.25, order: 2, flux: roe, limiter: ${LIMITER:-venkatakrishnan_wang}${EXTRA:+, $EXTRA}}
boundaries: {slip_wall: airfoil, far_field: farfield}
solver: {max_iterations: 400, rel_tolerance: 1.0e-10${SOLVER:+, $SOLVER}}
output: {dir: $work/out, paraview: false, hdf5: false}
DECK
  out=$("$camber" run "$work/g$n.yaml" --no-timers 2>&1 || true)
  get() { sed -n "s/^ *$1 *\([^ ]*\).*/\1/p" <<<"$out" | head -1; }
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$(get cells)" \
    "$(sed -n 's/^ *Newton steps *\(.*\)/\1/p' <<<"$out")" "$(get 'residual drop')" \
    "$(get CL)" "$(get CD)" "$(get CM)" "$(get 'wall time')" "$(get 'peak memory')"
done
if [[ $mach == 0.8 ]]; then
  printf '| CFL3D 256 / 512 / 1024 / 2048 (V&J Tables 7-8) | | | | 0.359073 / 0.357581 / 0.355944 / 0.354593 | | | | |\n'
elif [[ $mach == 0.5 ]]; then
  printf '| CFL3D 256 / 512 / 1024 (V&J Tables 7-8) | | | | 0.178367 / 0.179125 / 0.179488 | | | | |\n'
fi
