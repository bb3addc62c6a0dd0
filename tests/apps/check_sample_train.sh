#!/usr/bin/env bash
# usage: check_sample_train.sh MPIEXEC CAMBER SAMPLE_DECK TRAIN_DECK
# camber sample on 2 ranks (two groups of one rank) writes a data set of 8
# flows; cut back to 3 finished flows (an interrupted run), a run on 1 rank
# continues with the other 5 and ends with the same results, digit for
# digit; camber train on 2 ranks fits it and reports the validation error
# per output; --restart continues from the training checkpoint; camber
# optimize minimizes CD over the network with CL >= 0.1 and solves the flow
# at the optimum.
set -euo pipefail
mpiexec=$1 camber=$2 sample=$3 train=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$mpiexec" -n 2 --oversubscribe "$camber" sample "$sample" --no-timers > sample.log 2>&1 ||
  { cat sample.log; echo "FAIL: camber sample failed"; exit 1; }
grep -q "wrote out/sampled/tiny_samples.h5 (8 flows)" sample.log ||
  { cat sample.log; echo "FAIL: no data set of 8 flows"; exit 1; }
cp out/sampled/tiny_samples.csv full.csv
head -n 5 full.csv > out/sampled/tiny_samples.csv   # header, columns, 3 flows
"$camber" sample "$sample" --no-timers > resumed.log 2>&1 ||
  { cat resumed.log; echo "FAIL: the continued sample run failed"; exit 1; }
grep -q "3 done before, 5 to solve" resumed.log || { cat resumed.log; echo "FAIL: did not continue"; exit 1; }
cmp full.csv out/sampled/tiny_samples.csv || { echo "FAIL: the continued run's flows differ"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$camber" train "$train" --no-timers > train.log 2>&1 ||
  { cat train.log; echo "FAIL: camber train failed"; exit 1; }
for out in CL CD CM; do
  grep -q "validation $out: RMSE" train.log || { cat train.log; echo "FAIL: no validation error for $out"; exit 1; }
done
grep -q "epoch 20/20" train.log || { echo "FAIL: no progress line of epoch 20"; exit 1; }
[[ $(wc -l < out/trained/tiny_surrogate_loss.csv) == 21 ]] || { echo "FAIL: the loss curve has not 20 epochs"; exit 1; }
sed 's/epochs: 20/epochs: 25/' "$train" > longer.yaml
"$camber" train longer.yaml --restart --no-timers > restart.log 2>&1 ||
  { cat restart.log; echo "FAIL: camber train --restart failed"; exit 1; }
grep -q "restart from out/trained/tiny_surrogate_checkpoint.h5 after epoch 20" restart.log ||
  { cat restart.log; echo "FAIL: did not restart after epoch 20"; exit 1; }
grep -q "epoch 21/25" restart.log && ! grep -q "epoch 20/25" restart.log ||
  { cat restart.log; echo "FAIL: the restart did not begin at epoch 21"; exit 1; }
"$camber" optimize "$train" --no-timers > optimize.log 2>&1 ||
  { cat optimize.log; echo "FAIL: camber optimize on the surrogate failed"; exit 1; }
grep -q "surrogate optimum after" optimize.log && grep -q "solver at the optimum .*converged" optimize.log &&
  grep -q "  CD: solver .* surrogate .* error" optimize.log ||
  { cat optimize.log; echo "FAIL: no surrogate optimum re-checked by the solver"; exit 1; }
if command -v gnuplot > /dev/null; then
  [[ -s out/trained/tiny_surrogate_loss.png ]] || { echo "FAIL: no loss curve PNG"; exit 1; }
fi
echo "PASS: 8 flows sampled on 2 ranks, continued after 3 identically, trained on 2 ranks, restarted:"
grep "validation" train.log
grep -A4 "surrogate optimum" optimize.log
