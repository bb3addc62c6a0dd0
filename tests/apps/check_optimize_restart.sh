#!/usr/bin/env bash
# usage: check_optimize_restart.sh CAMBER DECK
# `camber optimize` killed (SIGKILL) after its third design evaluation and
# continued with --restart reaches the final design of an uninterrupted
# run, digit for digit (12 significant digits of every design variable):
# the restart replays the checkpointed history without flow solves and
# continues from the checkpointed flow state. Also: the drag of the final
# design is below the baseline's, and the outputs exist.
set -euo pipefail
camber=$1 deck=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir direct killed
(cd direct && "$camber" optimize "$deck" --no-timers > run.log 2>&1) ||
  { cat direct/run.log; echo "FAIL: the uninterrupted run failed"; exit 1; }
for f in optimize_small_final_design.csv optimize_small_final.dat optimize_small_final.su2 \
         optimize_small_optimizer_history.csv; do
  [[ -s direct/out/$f ]] || { echo "FAIL: no $f"; exit 1; }
done
base=$(grep -E "^ +CD " direct/run.log | awk '{print $2}')
final=$(grep -E "^ +CD " direct/run.log | awk '{print $3}')
awk -v b="$base" -v f="$final" 'BEGIN { exit !(f < b) }' ||
  { echo "FAIL: final CD $final not below the baseline's $base"; exit 1; }

cd killed
"$camber" optimize "$deck" --no-timers > first.log 2>&1 &
pid=$!
history=out/optimize_small_optimizer.history
for _ in $(seq 1 1200); do
  if [[ -f $history ]] && (( $(grep -c '^entry' "$history") >= 3 )); then break; fi
  sleep 0.1
done
kill -KILL "$pid" 2> /dev/null || true
wait "$pid" 2> /dev/null || true
n=$(grep -c '^entry' "$history" || true)
(( n >= 3 && n < 6 )) || { cat first.log; echo "FAIL: killed after $n evaluations, wanted 3..5"; exit 1; }
[[ ! -f out/optimize_small_final_design.csv ]] || { echo "FAIL: the killed run finished"; exit 1; }
"$camber" optimize "$deck" --restart --no-timers > restart.log 2>&1 ||
  { cat restart.log; echo "FAIL: the restart failed"; exit 1; }
grep -q "restart: replayed $n evaluations" restart.log ||
  { cat restart.log; echo "FAIL: no replay of $n evaluations"; exit 1; }
if ! diff -u ../direct/out/optimize_small_final_design.csv out/optimize_small_final_design.csv; then
  echo "FAIL: the restarted run's final design differs"; exit 1
fi
echo "PASS: killed after $n evaluations, the restart reaches the uninterrupted final design;"
echo "      CD $base -> $final"
