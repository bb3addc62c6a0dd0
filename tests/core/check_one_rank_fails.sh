#!/usr/bin/env bash
# usage: check_one_rank_fails.sh MPIEXEC PROGRAM
# Runs PROGRAM on 2 ranks where rank 1 fails; passes when the job exits
# non-zero within 30 s and the error is printed exactly once, naming rank 1.
set -u
mpiexec=$1
program=$2
out=$(mktemp)
start=$(date +%s)
timeout 30 "$mpiexec" -n 2 --oversubscribe "$program" >"$out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$out"
count=$(grep -c "camber: error on rank 1: simulated failure on one rank" "$out")
rm -f "$out"
if [ "$rc" -eq 124 ]; then echo "FAIL: job hung (killed after 30 s)"; exit 1; fi
if [ "$rc" -eq 0 ]; then echo "FAIL: job exited 0"; exit 1; fi
if [ "$count" -ne 1 ]; then echo "FAIL: error printed $count times, expected once"; exit 1; fi
echo "PASS: exit status $rc after ${elapsed} s, error printed once"
