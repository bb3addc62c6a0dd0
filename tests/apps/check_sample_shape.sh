#!/usr/bin/env bash
# usage: check_sample_shape.sh MPIEXEC CAMBER DECK
# camber sample over shape variables with adjoint gradients: 6 flows of a
# second-order NACA 0012 over Mach, alpha and 4 Hicks-Henne bumps on 2
# ranks (two groups) write a data set whose CSV has every output's
# derivative in every input; a run cut after 2 flows and continued on one
# rank gives the same values (1e-8 relative: its warm starts differ) and
# gradients (1e-6 of each row's largest); the thickness gradient is zero
# in Mach and alpha; a network trains on the values and gradients (2
# ranks) and reports its input Jacobian's error at the validation rows;
# two active-learning rounds are placed alike when continued after one;
# the same design on another grid is refused rather than continued;
# decks whose shape range does not fit the design section, and a gradient
# weight on a data set without gradients, are refused with exit 2 naming
# the key.
set -euo pipefail
mpiexec=$1 camber=$2 deck=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$deck" shapes.yaml
"$mpiexec" -n 2 --oversubscribe "$camber" sample shapes.yaml --no-timers > sample.log 2>&1 ||
  { cat sample.log; echo "FAIL: camber sample failed"; exit 1; }
grep -q "over 6 inputs (4 shape variables, hicks_henne), with adjoint gradients" sample.log &&
  grep -q "wrote out/shapes/shapes_samples.h5 (6 flows, with gradients)" sample.log ||
  { cat sample.log; echo "FAIL: no data set of 6 flows with gradients"; exit 1; }
csv=out/shapes/shapes_samples.csv
sed -n 2p $csv | grep -q "^index,mach,alpha_deg,shape_0,shape_1,shape_2,shape_3,CL,CD,CM,t_max,dCL/dmach,.*,dt_max/dshape_3,converged,iterations$" ||
  { sed -n 2p $csv; echo "FAIL: the CSV's columns"; exit 1; }
cp $csv full.csv
head -n 4 full.csv > $csv   # header, columns, 2 flows
"$camber" sample shapes.yaml --no-timers > resumed.log 2>&1 ||
  { cat resumed.log; echo "FAIL: the continued run failed"; exit 1; }
grep -q "2 done before, 4 to solve" resumed.log || { cat resumed.log; echo "FAIL: not continued"; exit 1; }
/usr/bin/python3 - full.csv $csv <<'PY' || { echo "FAIL: the continued run's flows differ"; exit 1; }
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[2:]
b = list(csv.reader(open(sys.argv[2])))[2:]
head = list(csv.reader(open(sys.argv[1])))[1]
assert len(a) == len(b) == 6, (len(a), len(b))
worst_v = worst_g = 0.0
for ra, rb in zip(a, b):
    va, vb = [float(v) for v in ra[:-2]], [float(v) for v in rb[:-2]]
    assert va[:7] == vb[:7], "inputs differ"
    for k in range(7, 11):
        worst_v = max(worst_v, abs(va[k] - vb[k]) / max(abs(va[k]), 1e-3))
    for o in range(4):
        row_a, row_b = va[11 + 6 * o: 17 + 6 * o], vb[11 + 6 * o: 17 + 6 * o]
        scale = max(abs(v) for v in row_a)
        worst_g = max(worst_g, max(abs(x - y) for x, y in zip(row_a, row_b)) / scale)
    # The thickness does not depend on Mach or alpha.
    assert va[head.index("dt_max/dmach")] == 0.0 and va[head.index("dt_max/dalpha_deg")] == 0.0
    assert ra[-2] == "1", "a flow did not converge"
print(f"continued run: values within {worst_v:.1e} relative, gradients within {worst_g:.1e} of each row's largest")
sys.exit(0 if worst_v < 1e-8 and worst_g < 1e-6 else 1)
PY
# The same design on another grid is not continued from these flows.
sed 's/cells_around: 48/cells_around: 56/' shapes.yaml > regrid.yaml
set +e; "$camber" sample regrid.yaml --no-timers > regrid.log 2>&1; rc=$?; set -e
[[ $rc == 2 ]] && grep -q "shapes_samples.csv holds another design .*cells=1152 .*; remove it or change the case name" regrid.log ||
  { cat regrid.log; echo "FAIL: a continued run on another grid gave exit $rc"; exit 1; }
# Gradient-enhanced training on the data set (2 ranks), and the same deck
# on a data set without gradients refused at training.gradient_weight.
cat > train.yaml <<'DECK'
case: shapes_surrogate
problem: surrogate
data:
  file: out/shapes/shapes_samples.h5
  validation_fraction: 0.34
network:
  hidden: [8]
training:
  epochs: 30
  batch_size: 6
  gradient_weight: 1.0
output:
  dir: out/trained
DECK
"$mpiexec" -n 2 --oversubscribe "$camber" train train.yaml --no-timers > train.log 2>&1 ||
  { cat train.log; echo "FAIL: gradient-enhanced training failed"; exit 1; }
grep -q "wrote out/trained/shapes_surrogate_loss.csv" train.log ||
  { cat train.log; echo "FAIL: no model from the gradient-enhanced training"; exit 1; }
for o in CL CD CM t_max; do
  grep -qE "^validation d$o/d\(inputs\): relative error [0-9.]+e[-+][0-9]+ \(.* over 2 rows\)$" train.log ||
    { cat train.log; echo "FAIL: no input-Jacobian error of $o at the 2 validation rows"; exit 1; }
done
sed '/shape: \[-0.002, 0.002\]/d; s/count: 6/count: 2/; s|dir: out/shapes|dir: out/plain|' shapes.yaml > plain.yaml
"$camber" sample plain.yaml --no-timers > plain.log 2>&1 || { cat plain.log; echo "FAIL: plain sample"; exit 1; }
sed 's|out/shapes/shapes_samples.h5|out/plain/shapes_samples.h5|' train.yaml > train_plain.yaml
set +e; "$camber" train train_plain.yaml --no-timers > bad.log 2>&1; rc=$?; set -e
[[ $rc == 2 ]] && grep -qE "train_plain.yaml:[0-9]+:[0-9]+: .*training\.gradient_weight.*holds no gradients" bad.log ||
  { cat bad.log; echo "FAIL: gradient_weight without gradients gave exit $rc"; exit 1; }
# Active learning: 2 rounds of 2 flows after the 6, where an ensemble
# fitted to the flows so far disagrees most (2 ranks); cut after the first
# round and continued on one rank, the second round lies exactly where the
# uninterrupted run placed it.
sed 's/^  shape: \[-0.002, 0.002\]/  shape: [-0.002, 0.002]\n  active_rounds: 2\n  active_batch: 2\n  active_candidates: 500/; s|dir: out/shapes|dir: out/active|' shapes.yaml > active.yaml
"$mpiexec" -n 2 --oversubscribe "$camber" sample active.yaml --no-timers > active.log 2>&1 ||
  { cat active.log; echo "FAIL: active-learning sample failed"; exit 1; }
[[ $(grep -c "^active round [12]/2: 2 samples where the ensemble disagrees most$" active.log) == 2 ]] &&
  grep -q "wrote out/active/shapes_samples.h5 (10 flows, with gradients)" active.log ||
  { cat active.log; echo "FAIL: no two active rounds of 2 flows"; exit 1; }
cp out/active/shapes_samples.csv active_full.csv
head -n 10 active_full.csv > out/active/shapes_samples.csv   # header, columns, 6 + 2 flows
"$camber" sample active.yaml --no-timers > active_resumed.log 2>&1 ||
  { cat active_resumed.log; echo "FAIL: the continued active run failed"; exit 1; }
grep -q "^active round 1/2: .* (done before)$" active_resumed.log ||
  { cat active_resumed.log; echo "FAIL: the first round was not recognised as done"; exit 1; }
/usr/bin/python3 - active_full.csv out/active/shapes_samples.csv <<'PY' || { echo "FAIL: the continued run placed its flows elsewhere"; exit 1; }
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[2:]
b = list(csv.reader(open(sys.argv[2])))[2:]
assert len(a) == len(b) == 10, (len(a), len(b))
for ra, rb in zip(a, b):
    assert ra[:7] == rb[:7], (ra[:7], rb[:7])
    assert -0.002 <= float(ra[3]) <= 0.002 and 0.4 <= float(ra[1]) <= 0.6, ra[:7]
PY
bad() {  # bad REGEX SED_EXPRESSION: the deck edited so, then refused with exit 2
  sed "$2" shapes.yaml > bad.yaml
  set +e; "$camber" sample bad.yaml --no-timers > bad.log 2>&1; local rc=$?; set -e
  [[ $rc == 2 ]] && grep -qE "$1" bad.log || { cat bad.log; echo "FAIL: '$2' gave exit $rc"; exit 1; }
}
bad "bad.yaml:[0-9]+:[0-9]+: .*sample\.shape.*lies outside \[-design.bound, design.bound\]" 's/shape: \[-0.002, 0.002\]/shape: [-0.01, 0.002]/'
bad "bad.yaml:[0-9]+:[0-9]+: .*sample\.active_batch.*exceed sample\.active_candidates = 4" 's/^  shape: \[-0.002, 0.002\]/  shape: [-0.002, 0.002]\n  active_rounds: 1\n  active_batch: 8\n  active_candidates: 4/'
bad "bad.yaml:[0-9]+:[0-9]+: .*sample\.shape.*is no range" 's/shape: \[-0.002, 0.002\]/shape: [0.002, -0.002]/'
bad "bad.yaml:[0-9]+:[0-9]+: .*design\.parametrization.*2-D meshes" 's/parametrization: hicks_henne/parametrization: ffd_volume/;/bumps_per_surface/d'
echo "PASS: 6 flows over Mach, alpha and 4 shape variables with adjoint gradients on 2 ranks, continued on 1 alike, trained with their gradients, active rounds placed alike when continued, bad shape ranges and a data set without gradients refused"
