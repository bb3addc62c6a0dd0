#!/usr/bin/env bash
# Meshes the ONERA M6 wing from its CAD file (../shared/data/geometry, an
# IGES file) with Gmsh's OpenCASCADE kernel (onera_m6.geo), writing SU2
# meshes.
#
#   bash examples/onera_m6/mesh.sh [OUT_DIR] [CAD_FILE]
#   bash examples/onera_m6/mesh.sh --production [--levels "1 2 3 4"] [--h-le MM]
#                                  [--max-cells N] [OUT_DIR] [CAD_FILE]
#
# By default, the example grids of onera_m6.yaml: onera_m6_coarse, _medium
# and _fine.su2, a uniform wall spacing of 32, 22 and 15 mm (root chord
# 805.9 mm) graded linearly to 160 times it at 12 chords (12k, 31k and 90k
# tetrahedra).
#
# --production: the production sequence onera_m6_p1.su2 (coarsest) to
# onera_m6_p4.su2 (finest): 90k, 170k, 324k and 624k tetrahedra, sized by
# the wing's features: on level 4 the leading edge at h_le = 1.9 mm (0.24%
# of the root chord), the trailing edge at 2 h_le, the rounded tip at 1.5
# h_le and the rest of the wing at 8 h_le, the size growing from each of
# them as h = h_k + 0.17 d up to 850 mm. Level k scales that whole size
# field by 2^((4 - k)/3), so each level has about twice the cells of the
# one before and level 1 has h_le = 3.8 mm (0.47% of the root chord).
# Meshing the four took 7.2 minutes (2.2 of CPU) and at most 1.1 GB on a
# loaded 2-core machine (docs/performance.md, "Production grids").
#   --levels "K ..."  which levels to mesh (default "1 2 3 4"); levels 0,
#                     -1 and -2 continue the family downwards (50k, 28k and
#                     17k tetrahedra, leading edge 4.8, 6.0 and 7.6 mm) for
#                     checks at CI size (tests/apps/check_onera_m6_drag.sh)
#   --h-le MM         level 4's leading-edge size (default 1.9)
#   --max-cells N     refuse a level whose estimated tetrahedra exceed N
#                     (default 5000000): the estimate, made before
#                     meshing, is the regular tetrahedra of the size field
#                     summed over its features (overlaps counted twice;
#                     2.3-2.6 times what Gmsh makes).
#
# Needs Debian's gmsh (scripts/setup-debian.sh installs it). Exit 2, naming the file, when the CAD file is missing or
# Gmsh cannot mesh it, and naming the option and the estimate when a
# level's sizing exceeds --max-cells. Prints each mesh's tetrahedra, nodes
# and meshing time.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "mesh.sh: $*" >&2; exit 2; }
number() { [[ $2 =~ ^[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$ ]] || die "$1 '$2' is not a positive number"; }

production=0 levels="1 2 3 4" h_le=1.9 max_cells=5000000 args=()
while (($#)); do
  case $1 in
    --production) production=1 ;;
    --levels) (($# > 1)) || die "--levels needs a value"; levels=$2; shift ;;
    --h-le) (($# > 1)) || die "--h-le needs a value"; h_le=$2; shift ;;
    --max-cells) (($# > 1)) || die "--max-cells needs a value"; max_cells=$2; shift ;;
    -*) die "unknown option '$1'" ;;
    *) args+=("$1") ;;
  esac
  shift
done
((${#args[@]} <= 2)) || die "too many arguments: ${args[*]}"
out=${args[0]:-out/onera_m6}
cad=${args[1]:-$here/../../../shared/data/geometry/onera_m6_wing.igs}
number --h-le "$h_le"
awk -v h="$h_le" 'BEGIN { exit !(h > 0) }' || die "--h-le '$h_le' must be positive"
[[ $max_cells =~ ^[0-9]+$ ]] || die "--max-cells '$max_cells' is not a whole number"
for k in $levels; do [[ $k =~ ^(-?[0-2]|[34])$ && $k != -0 ]] || die "--levels: '$k' is not a level (-2 to 4)"; done

[[ -f $cad ]] || die "cannot open the CAD file '$cad'"

# name and gmsh sizing arguments of each grid; for production levels the
# estimated tetrahedra are checked against --max-cells first.
grids=()
if ((production)); then
  for k in $levels; do
    # The sizes of level k (mm), then the estimate: 6 sqrt(2) / h^3 (the
    # regular tetrahedra) integrated for h = h_k + g d outside each
    # feature: the wing's 1.556 m^2 of faces (A / (2 g h_wall^2)), the
    # leading edge (1381 mm), trailing edge (1243 mm) and tip curves
    # (about 1400 mm) (pi L / (g^2 h_k) each), and the box of 21 x 12 x
    # 20 root chords at h_far.
    read -r sizes estimate < <(awk -v k="$k" -v h="$h_le" 'BEGIN {
      s = 2 ^ ((4 - k) / 3); le = h * s; te = 2 * le; tip = 1.5 * le; wall = 8 * le
      g = 0.17 * s; far = 850 * s; pi = atan2(0, -1); c = 805.9
      sum = 1.556e6 / (2 * g * wall ^ 2) + pi * (1381 / le + 1243 / te + 1400 / tip) / g ^ 2 \
            + 21 * 12 * 20 * c ^ 3 / far ^ 3
      printf "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g %.0f\n", le, te, tip, wall, g, far, 6 * sqrt(2) * sum }')
    awk -v e="$estimate" -v m="$max_cells" 'BEGIN { exit !(e <= m) }' ||
      die "--h-le $h_le gives about $estimate tetrahedra (estimated) on production level $k, more than --max-cells $max_cells; raise --h-le or --max-cells"
    IFS=, read -r le te tip wall g far <<<"$sizes"
    grids+=("p$k|leading-edge size $le mm, estimate $estimate tetrahedra|-setnumber h_le $le -setnumber h_te $te -setnumber h_tip $tip -setnumber h_wall $wall -setnumber growth $g -setnumber h_far $far")
  done
else
  for level in "coarse 32" "medium 22" "fine 15"; do
    set -- $level
    grids+=("$1|wall spacing $2 mm|-setnumber h_wall $2")
  done
fi

command -v gmsh > /dev/null ||
  die "gmsh not found; install it: bash scripts/setup-debian.sh"
mkdir -p "$out"
for grid in "${grids[@]}"; do
  IFS='|' read -r name what sizing <<<"$grid"
  mesh=$out/onera_m6_$name.su2
  log=$out/gmsh_$name.log
  start=$SECONDS
  # shellcheck disable=SC2086  # $sizing is a list of gmsh arguments
  if ! gmsh -3 "$here/onera_m6.geo" -setstring cad "$cad" $sizing \
       -format su2 -o "$mesh" > "$log" 2>&1 || grep -q "^Error" "$log"; then
    echo "mesh.sh: Gmsh could not mesh '$cad' ($what; log $log):" >&2
    { grep "^Error" "$log" || tail -n 3 "$log"; } | head -n 5 >&2 || true
    exit 2
  fi
  echo "$mesh: $(sed -n 's/^NELEM= *//p' "$mesh") tetrahedra, $(sed -n 's/^NPOIN= *//p' "$mesh") nodes ($what; $((SECONDS - start)) s)"
done
