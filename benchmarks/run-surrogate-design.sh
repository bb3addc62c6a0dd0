#!/usr/bin/env bash
# Surrogate-based against direct adjoint optimization on one problem: the
# lift-constrained drag minimization of
# examples/naca0012/quickstart_drag_lift_surrogate.yaml (SU2's QuickStart
# mesh, M 0.8, 38 bumps, CL >= baseline, largest thickness >= 0.12, smooth
# limiter) solved
#   - directly: the same deck with optimizer.algorithm: slsqp and 30 flows
#     (each flow with its CD and CL adjoints), and
#   - by the trust region on the network ensemble: 15 flows (the deck), once
#     per network seed in SEEDS (the runs differ only in the networks'
#     initialisation);
# one rank each, one after the other. Prints, per run, the final CD, CL
# and largest thickness (from the flow solved at the final design), the
# flows and adjoint solves spent, the wall time, and for the trust region
# the time in the networks.
#
#   benchmarks/run-surrogate-design.sh        (after scripts/build.sh; SEEDS="1 2 3" by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
camber=${CAMBER:-$root/build/bin/camber}
seeds=${SEEDS:-1 2 3}
deck=$root/examples/naca0012/quickstart_drag_lift_surrogate.yaml
work=$root/out/surrogate_design
mkdir -p "$work"
cd "$work"
# The decks live beside the example so its relative mesh path still holds.
ex=$root/examples/naca0012
sed -e 's/^case: .*/case: bench_direct/' -e 's/^  algorithm: trust_region/  algorithm: slsqp/' \
  -e 's/^  max_iterations: 15/  max_iterations: 30/' -e "s|^  dir: .*|  dir: $work/direct|" \
  "$deck" > "$ex/.bench_direct.yaml"
for s in $seeds; do
  sed -e "s/^case: .*/case: bench_tr_$s/" -e "s/^  initial_radius: 0.25/  initial_radius: 0.25\n  seed: $s/" \
    -e "s|^  dir: .*|  dir: $work/tr_$s|" "$deck" > "$ex/.bench_tr_$s.yaml"
done
trap 'rm -f "$ex"/.bench_*.yaml' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$root" rev-parse --short HEAD), $(nproc) cpus, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
row() {  # name log time
  local cd cl t flows failed wall
  cd=$(sed -n 's/^  CD  *[0-9.]*  *\([0-9.]*\)$/\1/p' "$2")
  cl=$(sed -n 's/^  CL  *[0-9.]*  *\([0-9.]*\)$/\1/p' "$2")
  t=$(sed -n 's/^  max thickness  *[0-9.]*  *\([0-9.]*\)$/\1/p' "$2")
  flows=$(sed -n 's/^  evaluations  *\([0-9]*\) .*/\1/p' "$2")
  failed=$(sed -n 's/^  evaluations .* \([0-9]*\) failed)/\1/p' "$2")
  wall=$(sed -n 's/^  wall time  *\([0-9.]*\) s/\1/p' "$2")
  printf "| %s | %s | %s | %s | %s (%s failed) | %s | %s s | %s |\n" "$1" "$cd" "$cl" "$t" "$flows" "$failed" \
    "$((2 * flows))" "$wall" "$(sed -n 's/^ *flows and adjoints .* networks \([0-9.]* s\).*/\1/p' "$2")"
}
echo "| run | final CD | final CL | largest thickness | flows | adjoint solves | wall time | networks |"
echo "|---|---|---|---|---|---|---|---|"
"$camber" optimize "$ex/.bench_direct.yaml" --no-timers > direct.log 2>&1
row "direct (SLSQP)" direct.log
for s in $seeds; do
  rc=0
  "$camber" optimize "$ex/.bench_tr_$s.yaml" --no-timers > "tr_$s.log" 2>&1 || rc=$?
  row "trust region, seed $s$([ $rc -eq 0 ] || echo ", exit $rc")" "tr_$s.log"
done
grep -E "^  baseline|^  +CD " direct.log | head -2 | sed 's/^/# direct: /'
