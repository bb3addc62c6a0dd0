#!/usr/bin/env bash
# Meshes ADODG case 3's wing (wing.geo: NACA 0012 sections, chord 1,
# semi-span 3, a revolved tip) with Gmsh's OpenCASCADE kernel, writing
# SU2 meshes.
#
#   bash examples/adodg_case3/mesh.sh [--levels "coarse medium fine"] [OUT_DIR]
#
# Levels (chords; the leading edge, the trailing edge at 2 h_le, the tip's
# curves at 1.5 h_le, the rest of the wing at h_wall, each growing as
# h + growth d up to 2 chords):
#   coarse  h_le 0.03, h_wall 0.10, growth 0.25  (41,878 tetrahedra)
#   medium  h_le 0.02, h_wall 0.12, growth 0.20  (88,909)
#   fine    h_le 0.0126, h_wall 0.076, growth 0.126 (the medium sizing
#           scaled by 2^(-2/3))
# Default: coarse and medium, which optimize.yaml and evaluate.yaml use.
#
# Needs Debian's gmsh (scripts/setup-debian.sh installs it). Exit 2 for an
# unknown level or option, or when Gmsh fails (naming its log). Prints each
# mesh's tetrahedra, nodes and meshing time.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "mesh.sh: $*" >&2; exit 2; }

levels="coarse medium" args=()
while (($#)); do
  case $1 in
    --levels) (($# > 1)) || die "--levels needs a value"; levels=$2; shift ;;
    -*) die "unknown option '$1'" ;;
    *) args+=("$1") ;;
  esac
  shift
done
((${#args[@]} <= 1)) || die "too many arguments: ${args[*]}"
out=${args[0]:-out/adodg_case3}
grids=()
for level in $levels; do
  case $level in
    coarse) grids+=("coarse|-setnumber h_le 0.03 -setnumber h_wall 0.1 -setnumber growth 0.25") ;;
    medium) grids+=("medium|-setnumber h_le 0.02 -setnumber h_wall 0.12 -setnumber growth 0.2") ;;
    fine) grids+=("fine|-setnumber h_le 0.0126 -setnumber h_wall 0.0756 -setnumber growth 0.126") ;;
    *) die "--levels: '$level' is not a level (coarse, medium, fine)" ;;
  esac
done
command -v gmsh > /dev/null || die "gmsh not found; install it: bash scripts/setup-debian.sh"
mkdir -p "$out"
for grid in "${grids[@]}"; do
  IFS='|' read -r name sizing <<<"$grid"
  mesh=$out/wing_$name.su2
  log=$out/gmsh_$name.log
  start=$SECONDS
  # shellcheck disable=SC2086  # $sizing is a list of gmsh arguments
  if ! gmsh -3 "$here/wing.geo" $sizing -format su2 -o "$mesh" > "$log" 2>&1 ||
     grep -q "^Error" "$log"; then
    echo "mesh.sh: Gmsh could not mesh $here/wing.geo ($name; log $log):" >&2
    { grep "^Error" "$log" || tail -n 3 "$log"; } | head -n 5 >&2 || true
    exit 2
  fi
  echo "$mesh: $(sed -n 's/^NELEM= *//p' "$mesh") tetrahedra, $(sed -n 's/^NPOIN= *//p' "$mesh") nodes ($name; $((SECONDS - start)) s)"
done
