#!/usr/bin/env bash
# usage: check_paraview_optimize.sh PARAVIEW_READ MPIEXEC CAMBER DECK
# Runs two designs of the small optimization deck on 2 ranks with ParaView
# output, then opens the designs' series (.pvd) and a design's wall
# (.pvtp) with ParaView itself: the series has one time per design, the
# cells of the mesh (64 x 20), the flow fields and the adjoint fields (the
# adjoint of CD with 4 components, the surface sensitivity), and the
# surface sensitivity is not zero on the wall.
set -euo pipefail
reader=$1 mpiexec=$2 camber=$3 deck=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
sed -e 's/  max_iterations: 6/  max_iterations: 2/' -e 's/  paraview: false/  paraview: true/' "$deck" > two.yaml
grep -q "paraview: true" two.yaml
"$mpiexec" -n 2 --oversubscribe "$camber" optimize two.yaml --no-timers > run.log 2>&1 ||
  { cat run.log; echo "FAIL: camber optimize failed"; exit 1; }
series=$("$reader" out/optimize_small_designs.pvd)
wall=$("$reader" out/optimize_small_wall_0002.pvtp)
echo "$series"
echo "$wall"
/usr/bin/python3 - "$series" "$wall" <<'PY'
import json, sys
series, wall = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert series["cells"] == 64 * 20, series["cells"]
assert series["timesteps"] == [1.0, 2.0], series["timesteps"]
adjoint = "Adjoint of cd (mass, x-momentum, y-momentum, energy)"
sensitivity = "Surface sensitivity dcd/dn [1/m]"
for name in ("Density [kg/m^3]", "Mach", "Cp", adjoint, sensitivity):
    assert name in series["cell_arrays"], (name, sorted(series["cell_arrays"]))
assert series["cell_arrays"][adjoint]["components"] == 4
assert wall["cells"] == 64, wall["cells"]
lo, hi = wall["cell_arrays"][sensitivity]["range"]
assert max(abs(lo), abs(hi)) > 1e-3, (lo, hi)
print("PASS: ParaView opens the designs' series and walls with the adjoint fields")
PY
