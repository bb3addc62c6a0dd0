#!/usr/bin/env bash
# Measures the adjoint and the shape gradient against the primal, for
# docs/performance.md ("Adjoint and shape optimization"):
#   1. SU2's QuickStart NACA 0012 mesh, M = 0.8, alpha = 1.25 deg, second
#      order, one rank: the primal solve from the free stream (`camber run`)
#      and one design evaluation of `camber optimize` with 38 Hicks-Henne
#      bumps (the flow re-solved warm, one adjoint, the shape derivative and
#      the chain to the bumps): times, GMRES iterations, peak memory of each
#      process; REPS repetitions, alternated;
#   2. the gradient's cost for 10, 40 and 160 Hicks-Henne design variables
#      (the same evaluation);
#   3. the README example (examples/naca0012/optimize.yaml) end to end;
#   4. the QuickStart drag minimization (examples/naca0012/quickstart_drag.yaml)
#      and its lift-constrained variant, end to end (about 10 minutes).
#
#   benchmarks/run-optimize.sh [build-dir]     (default: build-bench-eu)
#
# Environment: REPS (default 3), JOBS (default 2), MARCH (default x86-64-v3),
# SECTIONS (default "1 2 3 4").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench-eu}
reps=${REPS:-3}
jobs=${JOBS:-2}
march=${MARCH:-x86-64-v3}
sections=" ${SECTIONS:-1 2 3 4} "
mesh=$root/../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
[[ -f $mesh ]] || { echo "run-optimize.sh: $mesh not found" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-march=$march" \
  -DCAMBER_ENABLE_BENCHMARKS=ON -DCAMBER_ENABLE_TESTS=OFF -DCAMBER_ENABLE_DOCS=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target camber_cli >/dev/null
camber=$build/bin/camber
out=$build/bench-results/optimize
mkdir -p "$out"
cd "$out"

deck() {  # deck NAME BUMPS_PER_SURFACE MAX_EVALUATIONS
  cat <<DECK
case: $1
problem: euler
mesh: {generate: file, file: $mesh}
flow: {mach: 0.8, alpha_deg: 1.25, order: 2}
boundaries: {slip_wall: airfoil, far_field: farfield}
solver: {max_iterations: 300, freeze_limiter_drop: 1.0e-3}
design: {parametrization: hicks_henne, bumps_per_surface: $2, bound: 0.004}
optimizer: {objective: cd, max_iterations: $3, thickness_fraction: 1.0}
output: {dir: out, paraview: false, hdf5: false}
DECK
}
deck primal 19 1 > primal.yaml
for n in 5 19 20 80; do deck grad$n "$n" 1 > grad$n.yaml; done

if [[ $sections == *" 1 "* ]]; then
echo "== 1. primal vs one design evaluation (38 bumps), QuickStart mesh, 1 rank, $reps reps"
printf "%-4s %-12s %-10s %-12s %-12s %-10s %-10s %-12s\n" rep primal_s primal_MiB flow_warm_s adjoint_s adj_its eval_MiB adjoint/primal
for r in $(seq 1 "$reps"); do
  "$camber" run primal.yaml --no-timers > run$r.log 2>&1 || true
  /usr/bin/time -f "%M" -o eval$r.rss "$camber" optimize grad19.yaml --no-timers > eval$r.log 2>&1
  p=$(grep -E "^ +wall time" run$r.log | awk '{print $3}')
  pm=$(grep -E "^ +peak memory" run$r.log | awk '{print $3}')
  line=$(grep -E "^design 1/1" eval$r.log)
  fw=$(sed -E 's/.*flow [0-9]+ steps ([0-9.]+) s.*/\1/' <<<"$line")
  ad=$(sed -E 's/.*adjoint ([0-9]+) its ([0-9.]+) s.*/\2/' <<<"$line")
  ai=$(sed -E 's/.*adjoint ([0-9]+) its.*/\1/' <<<"$line")
  em=$(awk '{printf "%.0f", $1/1024}' eval$r.rss)
  ratio=$(awk -v a="$ad" -v b="$p" 'BEGIN{printf "%.3f", a/b}')
  printf "%-4s %-12s %-10s %-12s %-12s %-10s %-10s %-12s\n" "$r" "$p" "$pm" "$fw" "$ad" "$ai" "$em" "$ratio"
done

fi
if [[ $sections == *" 2 "* ]]; then
echo "== 2. gradient cost (adjoint + shape derivative + chain) vs design variables, 1 rank"
printf "%-10s %-12s %-10s\n" variables adjoint_s adj_its
for n in 5 20 80; do
  for r in $(seq 1 "$reps"); do
    "$camber" optimize grad$n.yaml --no-timers > g$n-$r.log 2>&1
    line=$(grep -E "^design 1/1" g$n-$r.log)
    printf "%-10s %-12s %-10s\n" $((2 * n)) "$(sed -E 's/.*adjoint [0-9]+ its ([0-9.]+) s.*/\1/' <<<"$line")" \
      "$(sed -E 's/.*adjoint ([0-9]+) its.*/\1/' <<<"$line")"
  done
done

fi
summary() { grep -E "^ +(CL|CD|CM|max thickness|evaluations|max violation|stopped|wall time) " "$1"; }
if [[ $sections == *" 3 "* ]]; then
echo "== 3. the README example, 1 rank, $reps reps"
for r in $(seq 1 "$reps"); do
  mkdir -p example$r && (cd example$r && /usr/bin/time -f "%e s, %M KiB" "$camber" optimize \
    "$root/examples/naca0012/optimize.yaml" --no-timers > run.log 2> time.log)
  summary example$r/run.log
  cat example$r/time.log
done
fi
if [[ $sections == *" 4 "* ]]; then
for c in quickstart_drag quickstart_drag_lift; do
  echo "== 4. examples/naca0012/$c.yaml, 1 rank"
  mkdir -p $c && (cd $c && /usr/bin/time -f "%e s, %M KiB" "$camber" optimize \
    "$root/examples/naca0012/$c.yaml" --no-timers > run.log 2> time.log)
  summary $c/run.log
  cat $c/time.log
done
fi
