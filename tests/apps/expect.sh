#!/usr/bin/env bash
# usage: expect.sh EXIT_CODE REGEX COUNT -- COMMAND...
# Runs COMMAND (with a 120 s limit) and passes when it exits with EXIT_CODE
# and its combined output has exactly COUNT lines matching the extended
# regular expression REGEX (COUNT "any": at least one).
set -u
want_rc=$1 regex=$2 count=$3
shift 3
[ "$1" = "--" ] && shift
out=$(mktemp)
timeout 120 "$@" >"$out" 2>&1
rc=$?
cat "$out"
matches=$(grep -cE -- "$regex" "$out")
rm -f "$out"
echo "---- exit code $rc (want $want_rc); $matches line(s) match /$regex/ (want $count)"
[ "$rc" -eq 124 ] && { echo "FAIL: timed out"; exit 1; }
[ "$rc" -ne "$want_rc" ] && { echo "FAIL: exit code"; exit 1; }
if [ "$count" = "any" ]; then
  [ "$matches" -ge 1 ] || { echo "FAIL: no line matches"; exit 1; }
else
  [ "$matches" -eq "$count" ] || { echo "FAIL: match count"; exit 1; }
fi
echo PASS
