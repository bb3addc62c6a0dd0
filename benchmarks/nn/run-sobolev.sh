#!/usr/bin/env bash
# Gradient-enhanced (Sobolev) against value-only training on one flow
# budget: samples examples/surrogate/naca0012_shape_sample.yaml (96
# second-order flows over 10 Hicks-Henne bumps, Mach and alpha, each with
# the adjoint gradients of CL, CD and CM), trains
# examples/surrogate/naca0012_shape_train.yaml's network twice on it, with
# training.gradient_weight 1 and 0 (the same network, seeds, steps and
# validation rows: the last 32 flows), and prints both validation errors
# per output with the relative error of each network's input Jacobian
# against the adjoint gradients at those flows, and the grid's spurious
# drag (CD of the baseline at M 0.5, alpha 0, from camber run).
#
#   benchmarks/nn/run-sobolev.sh              (after scripts/build.sh; RANKS=2 by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
camber=${CAMBER:-$root/build/bin/camber}
ranks=${RANKS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root"
ex=examples/surrogate
out=out/surrogate_shape
mkdir -p $out
t0=$(date +%s.%N)
mpirun -n "$ranks" --oversubscribe "$camber" sample $ex/naca0012_shape_sample.yaml --no-timers > $out/sample.log 2>&1
t1=$(date +%s.%N)
sed 's/^case: naca0012_shape_surrogate/case: naca0012_shape_values/; s/^  gradient_weight: 1.0/  gradient_weight: 0.0/' \
  $ex/naca0012_shape_train.yaml > $out/values_train.yaml
"$camber" train $ex/naca0012_shape_train.yaml --no-timers > $out/sobolev.log 2>&1
t2=$(date +%s.%N)
"$camber" train $out/values_train.yaml --no-timers > $out/values.log 2>&1
t3=$(date +%s.%N)
"$camber" run $ex/naca0012_shape_sample.yaml --no-timers > $out/baseline.log 2>&1
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E "^wrote" $out/sample.log
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v r="$ranks" \
  'BEGIN { printf "sampling: %.0f s on %s ranks; training: %.0f s (gradients), %.0f s (values)\n", b - a, r, c - b, d - c }'
echo "baseline at M 0.5, alpha 0 (the spurious drag is its CD): $(grep -E '^  (CL|CD) ' $out/baseline.log | tr -s ' ' | tr '\n' ' ')"
table() {  # TITLE SED_PATTERN(o): a row per output, values-only network against Sobolev
  echo "| output | $1, values only | with gradients | ratio |"
  echo "|---|---|---|---|"
  for o in CL CD CM t_max; do
    v=$(sed -n "${2//%s/$o}" $out/values.log)
    s=$(sed -n "${2//%s/$o}" $out/sobolev.log)
    awk -v o="$o" -v v="$v" -v s="$s" 'BEGIN { printf "| %s | %s | %s | %.2f |\n", o, v, s, v / s }'
  done
}
table "validation RMSE" 's/^validation %s: RMSE \([0-9.e+-]*\) .*/\1/p'
table "input-Jacobian error at the validation flows" 's|^validation d%s/d(inputs): relative error \([0-9.e+-]*\) .*|\1|p'
