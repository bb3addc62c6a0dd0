#!/usr/bin/env bash
# usage: check_ramp3d.sh MPIEXEC CAMBER DECK [PARAVIEW_READ]
# camber run on a 3-D mesh (tests/apps/decks/euler_ramp3d.yaml at first
# order, euler_ramp3d_order2.yaml at second; the case is named as the deck
# file) at 2 ranks: converges; writes x, y, z, Cp of the wall faces (and
# the station y = 0.5 of them), whose mean Cp for 1.2 <= x <= 1.9 is the
# theta-beta-M value for M 3 and 5 deg within 0.5% (first order: the
# smeared shock's overshoot near the corner, 16% at x = 0.4, has decayed to
# -0.3% there); with PARAVIEW_READ, ParaView opens the 3-D field (14,079
# cells) and the wall (741 faces).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpiexec=$1 camber=$2 deck=$3 paraview_read=${4:-}
name=$(basename "$deck" .yaml)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$mpiexec" -n 2 --oversubscribe "$camber" run "$deck" --no-timers > run.log 2>&1 ||
  { cat run.log; echo "FAIL: the run failed"; exit 1; }
grep -q "(converged)" run.log || { cat run.log; echo "FAIL: not converged"; exit 1; }
out=out/$name
[[ "$(head -1 $out/${name}_cp.csv)" == "x,y,z,Cp" ]] || { echo "FAIL: Cp header"; exit 1; }
awk -F, -v mach=3 -v theta_deg=5 -v cp_col=4 -v wall_col=3 -v lo=-1e-9 -v hi=1e-9 -v x_min=1.2 \
    -v x_max=1.9 -v tol=5e-3 -f "$here/oblique_shock.awk" $out/${name}_cp.csv
# The station y = 0.5 (wing.stations: [0.5]) cuts the wall's 39 faces along
# x: x/c from 0 to 1, all on the upper side (the body is below the wall),
# and the same pressure behind the shock (x/c >= 0.6 is x >= 1.2).
st=$out/${name}_stations.csv
[[ "$(head -1 $st)" == "eta,x_over_c,x,z,Cp,side" ]] || { echo "FAIL: stations header"; exit 1; }
awk -F, 'NR > 1 { n++; if ($1 != 0.5 || $6 != 1) bad++; if (NR == 2) first = $2; last = $2 }
         END { if (n != 39 || bad || first != 0 || last != 1) { print "FAIL: stations: " n " rows, " bad " off the station or side, x/c from " first " to " last; exit 1 } }' $st
awk -F, -v mach=3 -v theta_deg=5 -v cp_col=5 -v wall_col=6 -v lo=0 -v hi=2 -v x_col=3 -v x_min=1.2 \
    -v x_max=1.9 -v tol=5e-3 -f "$here/oblique_shock.awk" $st
if [[ -n "$paraview_read" ]]; then
  "$paraview_read" $out/$name.pvd > pv.log 2>&1 || { cat pv.log; echo "FAIL: ParaView"; exit 1; }
  "$paraview_read" $out/${name}_z_m.pvtp >> pv.log 2>&1 || { cat pv.log; echo "FAIL: ParaView wall"; exit 1; }
  grep -q '"cells": 14079' pv.log && grep -q '"cells": 741' pv.log ||
    { cat pv.log; echo "FAIL: ParaView's cell counts"; exit 1; }
  echo "ParaView opens the field (14079 cells) and the wall (741 faces)"
fi
echo "PASS: 3-D compression corner at 2 ranks ($name):"
grep -E "^ +(Newton steps|residual drop|CL|CD) " run.log
