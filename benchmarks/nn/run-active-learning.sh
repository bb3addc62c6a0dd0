#!/usr/bin/env bash
# Active learning against a Latin hypercube on one flow budget: the shape
# flows of examples/surrogate/naca0012_shape_sample.yaml (12 inputs: Mach,
# alpha, ten Hicks-Henne bumps; each flow with its adjoint gradients),
#   - 48 flows of a Latin hypercube (seed 1), against
#   - 24 flows of a Latin hypercube (seed 1) then 3 active rounds of 8
#     (sample.active_rounds: each round where an ensemble fitted to the
#     flows so far disagrees most among 2,000 candidates),
# each trained with examples/surrogate/naca0012_shape_train.yaml's network
# and Sobolev loss on all its flows, and both scored on the same 32
# held-out flows (a Latin hypercube of seed 7) by camber infer: the RMSE
# per output.
#
#   benchmarks/nn/run-active-learning.sh      (after scripts/build.sh; RANKS=2 by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
camber=${CAMBER:-$root/build/bin/camber}
ranks=${RANKS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root"
ex=examples/surrogate
out=out/active_learning
mkdir -p $out
sample_deck() {  # case count seed [extra sample keys]
  sed -e "s/^case: .*/case: $1/" -e "s/^  count: .*/  count: $2/" -e "s/^  seed: .*/  seed: $3/" \
    -e "s|^  dir: .*|  dir: $out|" -e "s/^  shape: \\[-0.002, 0.002\\]/  shape: [-0.002, 0.002]$4/" \
    $ex/naca0012_shape_sample.yaml > $out/$1.yaml
}
sample_deck al_held 32 7 ""
sample_deck al_lhs 48 1 ""
sample_deck al_active 24 1 "\\n  active_rounds: 3\\n  active_batch: 8\\n  active_candidates: 2000"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
for c in al_held al_lhs al_active; do
  t0=$(date +%s.%N)
  mpirun -n "$ranks" --oversubscribe "$camber" sample $out/$c.yaml --no-timers > $out/$c.log 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v c="$c" 'BEGIN { printf "%s: sampled in %.0f s\n", c, b - a }'
  grep -E "^wrote" $out/$c.log
done
for c in al_lhs al_active; do
  sed -e "s/^case: .*/case: ${c}_net/" -e "s|^  file: .*|  file: $out/${c}_samples.h5|" \
    -e "s/^  validation_fraction: .*/  validation_fraction: 0.0/" -e "s|^  dir: .*|  dir: $out|" \
    $ex/naca0012_shape_train.yaml > $out/${c}_train.yaml
  "$camber" train $out/${c}_train.yaml --no-timers > $out/${c}_train.log 2>&1
  "$camber" infer $out/${c}_net_model.h5 $out/al_held_samples.h5 -o $out/${c}_held.csv > /dev/null 2>&1
done
/usr/bin/python3 - $out <<'PY'
import csv, math, sys
out = sys.argv[1]
rows = list(csv.reader(open(f"{out}/al_held_samples.csv")))
head = rows[1]
truth = [r for r in rows[2:] if r[head.index("converged")] == "1"]
names = ["CL", "CD", "CM", "t_max"]
def rmse(path):
    pred = list(csv.reader(open(path)))
    cols = [c.split(" [")[0] for c in pred[0]]
    pred = pred[1:]
    assert len(pred) == len(truth), (len(pred), len(truth))
    return [math.sqrt(sum((float(p[cols.index(n)]) - float(t[head.index(n)])) ** 2
                          for p, t in zip(pred, truth)) / len(truth)) for n in names]
a, b = rmse(f"{out}/al_lhs_held.csv"), rmse(f"{out}/al_active_held.csv")
print(f"| output | held-out RMSE ({len(truth)} flows), 48 Latin hypercube | 24 + 3 x 8 active | ratio |")
print("|---|---|---|---|")
for n, x, y in zip(names, a, b):
    print(f"| {n} | {x:.3e} | {y:.3e} | {x / y:.2f} |")
PY
