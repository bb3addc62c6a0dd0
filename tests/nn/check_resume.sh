#!/usr/bin/env bash
# check_resume.sh MPIEXEC NP PROGRAM WORKDIR: an uninterrupted run, a run
# killed after epoch 3's checkpoint, and its resumption must end with the
# same weights, digit for digit.
set -uo pipefail
mpiexec=$1 np=$2 prog=$3 work=$4
rm -rf "$work" && mkdir -p "$work/straight" "$work/killed"
run() { "$mpiexec" --oversubscribe -n "$np" "$prog" "$@"; }
run "$work/straight" > "$work/straight.log" 2>&1 || { echo "FAIL: the uninterrupted run failed"; cat "$work/straight.log"; exit 1; }
run "$work/killed" 3 > "$work/killed.log" 2>&1
rc=$?
[[ $rc != 0 ]] || { echo "FAIL: the run to be killed exited 0"; exit 1; }
[[ -f $work/killed/checkpoint.h5 && ! -f $work/killed/weights.txt ]] || { echo "FAIL: no checkpoint, or the killed run finished"; exit 1; }
run "$work/killed" > "$work/resumed.log" 2>&1 || { echo "FAIL: the resumed run failed"; cat "$work/resumed.log"; exit 1; }
grep -q "resumed from .* after epoch 3" "$work/resumed.log" || { echo "FAIL: did not resume after epoch 3"; cat "$work/resumed.log"; exit 1; }
cmp "$work/straight/weights.txt" "$work/killed/weights.txt" || { echo "FAIL: weights differ"; exit 1; }
echo "PASS: killed after epoch 3 (exit $rc), resumed, $(wc -l < "$work/straight/weights.txt") weights identical"
