#!/usr/bin/env bash
# usage: check_wedge.sh MPIEXEC CAMBER SU2_DECK CGNS_DECK
# SU2's supersonic wedge read from its SU2 file and from its CGNS file:
# - the two runs print the same Newton steps, CL, CD and CM and write the
#   same wall pressures (byte for byte), at 1 rank and again at 2 ranks;
# - on the ramp, behind the oblique shock, Cp matches the theta-beta-M
#   relation (M 2, 10 deg: p2/p1 = 1.70662) within 0.1%.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpiexec=$1 camber=$2 su2=$3 cgns=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
summary() { grep -E "^ +(Newton steps|residual drop|CL|CD|CM) " "$1"; }
for ranks in 1 2; do
  mkdir -p "np$ranks" && cd "np$ranks"
  "$mpiexec" -n "$ranks" --oversubscribe "$camber" run "$su2" --no-timers > su2.log 2>&1 ||
    { cat su2.log; echo "FAIL: the SU2 run failed at $ranks ranks"; exit 1; }
  "$mpiexec" -n "$ranks" --oversubscribe "$camber" run "$cgns" --no-timers > cgns.log 2>&1 ||
    { cat cgns.log; echo "FAIL: the CGNS run failed at $ranks ranks"; exit 1; }
  grep -q "(converged)" su2.log
  if [[ "$(summary su2.log)" != "$(summary cgns.log)" ]]; then
    echo "FAIL: at $ranks ranks the summaries differ"; summary su2.log; summary cgns.log; exit 1
  fi
  cmp out/wedge/wedge_cp.csv out/wedge_cgns/wedge_cgns_cp.csv ||
    { echo "FAIL: the wall pressures differ at $ranks ranks"; exit 1; }
  cd ..
done
# Mean Cp on the ramp (y > 0 on the lower wall) for 0.8 <= x <= 1.45,
# against the weak oblique shock of theta = 10 deg at M = 2.
awk -F, -v mach=2 -v theta_deg=10 -v cp_col=3 -v wall_col=2 -v lo=0 -v hi=0.5 -v x_min=0.8 \
    -v x_max=1.45 -v tol=1e-3 -f "$here/oblique_shock.awk" np2/out/wedge/wedge_cp.csv
echo "PASS: the wedge from SU2 and from CGNS gives the same flow at 1 and 2 ranks:"
summary np2/cgns.log
