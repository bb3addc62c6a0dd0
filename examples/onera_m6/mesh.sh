#!/usr/bin/env bash
# Meshes the ONERA M6 wing from its CAD file (../shared/data/geometry, an
# IGES file) with Gmsh's OpenCASCADE kernel (onera_m6.geo), writing SU2
# meshes for a sequence of three grids: wall spacing 32, 22 and 15 mm
# (root chord 805.9 mm).
#
#   bash examples/onera_m6/mesh.sh [OUT_DIR] [CAD_FILE]
#
# Needs Debian's gmsh (CAMBER_WITH_GMSH=1 bash scripts/setup-debian.sh
# installs it). Exit 2, naming the file, when the CAD file is missing or
# Gmsh cannot mesh it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-out/onera_m6}
cad=${2:-$here/../../../shared/data/geometry/onera_m6_wing.igs}
command -v gmsh > /dev/null ||
  { echo "mesh.sh: gmsh not found; install it: CAMBER_WITH_GMSH=1 bash scripts/setup-debian.sh" >&2; exit 2; }
[[ -f $cad ]] || { echo "mesh.sh: cannot open the CAD file '$cad'" >&2; exit 2; }
mkdir -p "$out"
for level in "coarse 32" "medium 22" "fine 15"; do
  set -- $level
  mesh=$out/onera_m6_$1.su2
  if ! gmsh -3 "$here/onera_m6.geo" -setstring cad "$cad" -setnumber h_wall "$2" \
       -format su2 -o "$mesh" > "$out/gmsh_$1.log" 2>&1 || grep -q "^Error" "$out/gmsh_$1.log"; then
    echo "mesh.sh: Gmsh could not mesh '$cad' (wall spacing $2 mm; log $out/gmsh_$1.log):" >&2
    { grep "^Error" "$out/gmsh_$1.log" || tail -n 3 "$out/gmsh_$1.log"; } | head -n 5 >&2 || true
    exit 2
  fi
  echo "$mesh: $(sed -n 's/^NELEM= *//p' "$mesh") tetrahedra, $(sed -n 's/^NPOIN= *//p' "$mesh") nodes"
done
