#!/usr/bin/env bash
# usage: check_mesh_reorder.sh CAMBER MESH DECK
#
# `camber mesh-reorder` writes the same mesh in another order: SU2's
# QuickStart mesh (made elsewhere) and its reordered copy give the same
# mesh-info report (counts, markers, bounding box, volumes, quality) and the
# same second-order solution of DECK (tests/apps/decks/quickstart_defaults:
# M 0.8, alpha 1.25 deg, converged to a relative 1e-10): CL and CD within
# 1e-8 of each other (the sums run in another order, so the two agree to
# the solver's tolerance, not bit for bit). Prints PASS: or FAIL:.
set -u
camber=$1 mesh=$2 deck=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[[ -f $mesh ]] || fail "missing $mesh (../shared/data)"
"$camber" mesh-reorder "$mesh" "$tmp/ordered.su2" || fail "mesh-reorder exited $?"
"$camber" mesh-info "$mesh" | tail -n +2 > "$tmp/a.txt" || fail "mesh-info of the input failed"
"$camber" mesh-info "$tmp/ordered.su2" | tail -n +2 > "$tmp/b.txt" || fail "mesh-info of the copy failed"
diff "$tmp/a.txt" "$tmp/b.txt" || fail "mesh-info reports differ"
grep -q "10216 cells" "$tmp/b.txt" || fail "the copy does not have the 10216 cells"
# The first lines of the two files' cell sections differ (a reorder).
[[ $(grep -m1 -A1 NELEM "$mesh" | tail -1) != $(grep -m1 -A1 NELEM "$tmp/ordered.su2" | tail -1) ]] ||
  fail "the first cell is the same: nothing was reordered"

# solve NAME MESH: "CL CD"
solve() {
  sed -e "s#^  file: .*#  file: $2#" -e "s#^  dir: .*#  dir: $tmp/$1#" "$deck" > "$tmp/$1.yaml"
  "$camber" run "$tmp/$1.yaml" > "$tmp/$1.log" 2>&1 || { tail -n 20 "$tmp/$1.log"; fail "camber run $1 failed"; }
  grep -q "Newton steps .*(converged)" "$tmp/$1.log" || { tail -n 20 "$tmp/$1.log"; fail "$1 did not converge"; }
  # Full precision: the last row of the history (the summary rounds).
  local history
  history=$(ls "$tmp/$1"/*_history.csv 2>/dev/null | head -n 1)
  [[ -n $history ]] || fail "$1 wrote no history"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i } END { print $col["CL"], $col["CD"] }' "$history"
}
read -r cl_a cd_a < <(solve input "$mesh")
read -r cl_b cd_b < <(solve ordered "$tmp/ordered.su2")
echo "input order: CL $cl_a CD $cd_a; locality order: CL $cl_b CD $cd_b"
awk -v a="$cl_a" -v b="$cl_b" -v c="$cd_a" -v d="$cd_b" \
  'BEGIN { exit !(a != "" && (a - b) ^ 2 <= 1e-16 && (c - d) ^ 2 <= 1e-16) }' ||
  fail "the reordered mesh's solution differs"
echo "PASS: the reordered mesh is the same mesh with the same solution"
