#!/usr/bin/env bash
# usage: check_paraview_euler.sh PARAVIEW_READ MPIEXEC CAMBER DECK
# Runs the small Euler deck (48 x 24 O-grid, M = 0.5) on 2 ranks, then opens
# the flow (.pvd) and the wall (.pvtp) with ParaView itself and checks the
# cell counts, the field names with units, and two physical facts: the
# free-stream density p / (R T) = 101325 / (287.058 * 288.15) = 1.22498
# kg/m^3 lies inside the density range, and the flow accelerates over the
# airfoil and stagnates at its nose (Mach range straddles the free-stream
# 0.5). Also checks the PNG plots exist and are PNG files.
set -euo pipefail
reader=$1 mpiexec=$2 camber=$3 deck=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$mpiexec" -n 2 --oversubscribe "$camber" run "$deck" --no-timers
for png in out/euler_small/euler_small_convergence.png out/euler_small/euler_small_cp.png; do
  head -c 8 "$png" | od -An -c | grep -q 'P   N   G' || { echo "FAIL: $png is not a PNG"; exit 1; }
done
flow=$("$reader" out/euler_small/euler_small.pvd)
wall=$("$reader" out/euler_small/euler_small_airfoil.pvtp)
echo "$flow"
echo "$wall"
/usr/bin/python3 - "$flow" "$wall" <<'PY'
import json, sys
flow, wall = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert flow["cells"] == 48 * 24, flow["cells"]
names = ("Density [kg/m^3]", "Velocity [m/s]", "Pressure [Pa]", "Mach", "Cp",
         "Entropy deviation s/s_inf - 1")
for name in names:
    assert name in flow["cell_arrays"], (name, sorted(flow["cell_arrays"]))
rho = flow["cell_arrays"]["Density [kg/m^3]"]["range"]
assert rho[0] < 101325 / (287.058 * 288.15) < rho[1], rho
mach = flow["cell_arrays"]["Mach"]["range"]
assert mach[0] < 0.5 < mach[1], mach
assert wall["cells"] == 48, wall["cells"]
assert "Cp" in wall["cell_arrays"], sorted(wall["cell_arrays"])
print("PASS: ParaView reads %d flow cells and %d wall faces; density %s, Mach %s"
      % (flow["cells"], wall["cells"], rho, mach))
PY
