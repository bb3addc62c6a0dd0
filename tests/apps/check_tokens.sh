#!/usr/bin/env bash
# usage: check_tokens.sh CAMBER
# camber token add and revoke run by concurrent processes on one tokens
# file. Each round starts 8 adds at once: every one exits 0, and the file
# holds every printed token's SHA-256 (sha256sum, an outside reference),
# active, under its name. Then 4 revokes and 4 adds at once: every revoke
# that reports success has taken effect (its entry says revoked), every
# add's token is there, active, and nothing else changed. No temporary
# file is left behind.
set -euo pipefail
camber=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
hash_of() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
# expect_entry NAME TOKEN STATE: the file's line for NAME is TOKEN's hash in STATE.
expect_entry() {
  grep -qx "$(hash_of "$2") $1 $3" tokens.txt ||
    { cat tokens.txt; echo "FAIL: tokens.txt has no '$1 $3' line with its token's SHA-256"; exit 1; }
}
for round in 1 2 3; do
  pids=()
  for i in $(seq 1 8); do
    "$camber" token add "r${round}_user$i" --tokens tokens.txt > "add$i.out" 2> "add$i.err" &
    pids+=($!)
  done
  for i in $(seq 1 8); do
    wait "${pids[$((i - 1))]}" || { cat "add$i.err"; echo "FAIL: concurrent add $i of round $round failed"; exit 1; }
  done
  for i in $(seq 1 8); do expect_entry "r${round}_user$i" "$(cat "add$i.out")" active; done
  [[ $(grep -c "^[0-9a-f]\{64\} r${round}_" tokens.txt) == 8 ]] ||
    { cat tokens.txt; echo "FAIL: round $round: not 8 entries"; exit 1; }

  # Revoke users 1-4 while adding 4 more.
  pids=()
  for i in 1 2 3 4; do
    "$camber" token revoke "r${round}_user$i" --tokens tokens.txt > /dev/null 2> "revoke$i.err" &
    pids+=($!)
    "$camber" token add "r${round}_late$i" --tokens tokens.txt > "late$i.out" 2> "late$i.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || { cat revoke*.err late*.err; echo "FAIL: a concurrent revoke or add of round $round failed"; exit 1; }
  done
  for i in 1 2 3 4; do
    expect_entry "r${round}_user$i" "$(cat "add$i.out")" revoked
    expect_entry "r${round}_late$i" "$(cat "late$i.out")" active
  done
  for i in 5 6 7 8; do expect_entry "r${round}_user$i" "$(cat "add$i.out")" active; done
done
[[ $(head -1 tokens.txt) == "camber-tokens 1" && $(wc -l < tokens.txt) == $((1 + 3 * 12)) ]] ||
  { cat tokens.txt; echo "FAIL: tokens.txt is not the header and 36 entries"; exit 1; }
leftover=$(find . -name '*.tmp')
[[ -z $leftover ]] || { echo "FAIL: temporary files left: $leftover"; exit 1; }
echo "PASS: 3 rounds of 8 concurrent token adds, then 4 revokes and 4 adds at once: every printed" \
     "token in tokens.txt under its SHA-256, every reported revocation in effect"
