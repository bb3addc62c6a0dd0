# Mean wall Cp behind an oblique shock against the theta-beta-M relation
# (weak branch, gamma 1.4): reads a _cp.csv written by camber run and keeps
# the rows with x_min <= $x_col <= x_max (x_col: 1 unless given) and
# lo < $wall_col < hi.
# Variables: mach, theta_deg, cp_col, wall_col, lo, hi, x_min, x_max, tol, x_col.
#   awk -F, -v mach=2 -v theta_deg=10 -v cp_col=3 -v wall_col=2 -v lo=0 -v hi=0.5 \
#       -v x_min=0.8 -v x_max=1.45 -v tol=1e-3 -f oblique_shock.awk wedge_cp.csv
function f(b) { return 2 * cos(b) / sin(b) * (mach * mach * sin(b)^2 - 1) / (mach * mach * (g + cos(2 * b)) + 2) - tan_t }
BEGIN {
  if (x_col == "") x_col = 1
  g = 1.4; pi = atan2(0, -1); t = theta_deg * pi / 180; tan_t = sin(t) / cos(t)
  a = atan2(1 / mach, sqrt(1 - 1 / (mach * mach))); b = 64.0 * pi / 180
  for (i = 0; i < 200; ++i) { m = (a + b) / 2; if (f(a) * f(m) <= 0) b = m; else a = m }
  p21 = 1 + 2 * g / (g + 1) * (mach * mach * sin(a)^2 - 1); exact = (p21 - 1) / (g * mach * mach / 2)
}
NR > 1 && $wall_col > lo && $wall_col < hi && $x_col >= x_min && $x_col <= x_max { s += $cp_col; n++ }
END {
  cp = s / n; err = (cp - exact) / exact
  printf "wall Cp %.6f over %d faces, theta-beta-M %.6f (beta %.3f deg, p2/p1 %.5f): error %.2e\n", cp, n, exact, a * 180 / pi, p21, err
  if (n < 10 || err > tol || err < -tol) { print "FAIL: wall pressure behind the shock"; exit 1 }
}
