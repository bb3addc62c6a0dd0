#!/usr/bin/env bash
# usage: check_restart.sh MPIEXEC CAMBER DECK
# An interrupted run continued with --restart reaches the state one
# uninterrupted run reaches: the small Euler deck stopped after 4 Newton
# steps on 1 rank (exit 1, not converged, state written), continued with
# --restart on 3 ranks (a different partition), must converge and print the
# same CL, CD and CM (6 decimals) as the uninterrupted run on 1 rank.
set -euo pipefail
mpiexec=$1 camber=$2 deck=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
sed 's/  max_iterations: 40/  max_iterations: 4/' "$deck" > interrupted.yaml
grep -q "max_iterations: 4$" interrupted.yaml
set +e
"$camber" run interrupted.yaml --no-timers > first.log 2>&1
first=$?
set -e
[[ $first -eq 1 ]] || { cat first.log; echo "FAIL: the 4-step run exited $first, not 1"; exit 1; }
[[ -f out/euler_small/euler_small.h5 ]] || { echo "FAIL: no state file"; exit 1; }
"$mpiexec" -n 3 --oversubscribe "$camber" run "$deck" --restart --no-timers > restart.log 2>&1 ||
  { cat restart.log; echo "FAIL: the restart failed"; exit 1; }
grep -q "restart from out/euler_small/euler_small.h5" restart.log
grep -q "(converged)" restart.log
mkdir direct && cd direct
"$camber" run "$deck" --no-timers > direct.log 2>&1
forces() { grep -E "^ +(CL|CD|CM) " "$1"; }
if [[ "$(forces direct.log)" != "$(forces ../restart.log)" ]]; then
  echo "FAIL: forces differ"; echo "direct:"; forces direct.log; echo "restart:"; forces ../restart.log
  exit 1
fi
echo "PASS: restart on 3 ranks after 4 steps on 1 gives the direct run's forces:"
forces direct.log
