#!/usr/bin/env bash
# usage: check_wedge.sh MPIEXEC CAMBER SU2_DECK CGNS_DECK
# SU2's supersonic wedge read from its SU2 file and from its CGNS file:
# - the two runs print the same Newton steps, CL, CD and CM and write the
#   same wall pressures (byte for byte), at 1 rank and again at 2 ranks;
# - on the ramp, behind the oblique shock, Cp matches the theta-beta-M
#   relation (M 2, 10 deg: p2/p1 = 1.70662) within 0.1%.
set -euo pipefail
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
# against the weak oblique shock of theta = 10 deg at M = 2 (gamma 1.4).
awk -F, '
  function f(b) { return 2 * cos(b) / sin(b) * (M * M * sin(b)^2 - 1) / (M * M * (g + cos(2 * b)) + 2) - tan_t }
  BEGIN { M = 2; g = 1.4; pi = atan2(0, -1); tan_t = sin(10 * pi / 180) / cos(10 * pi / 180)
          lo = atan2(1 / M, sqrt(1 - 1 / (M * M))); hi = 64.0 * pi / 180   # weak branch
          for (i = 0; i < 200; ++i) { mid = (lo + hi) / 2; if (f(lo) * f(mid) <= 0) hi = mid; else lo = mid }
          p21 = 1 + 2 * g / (g + 1) * (M * M * sin(lo)^2 - 1); exact = (p21 - 1) / (g * M * M / 2) }
  NR > 1 && $2 > 0 && $2 < 0.5 && $1 >= 0.8 && $1 <= 1.45 { s += $3; n++ }
  END { cp = s / n; err = (cp - exact) / exact
        printf "ramp Cp %.6f over %d faces, theta-beta-M %.6f (beta %.3f deg, p2/p1 %.5f): error %.2e\n", cp, n, exact, lo * 180 / pi, p21, err
        if (n < 10 || err > 1e-3 || err < -1e-3) { print "FAIL: ramp pressure"; exit 1 } }
' np2/out/wedge/wedge_cp.csv
echo "PASS: the wedge from SU2 and from CGNS gives the same flow at 1 and 2 ranks:"
summary np2/cgns.log
