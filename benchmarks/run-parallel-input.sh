#!/usr/bin/env bash
# Parallel mesh input at scale: the ONERA M6 (examples/onera_m6) on a grid
# of about a million tetrahedra, read and distributed by `camber run` at 1,
# 2 and 4 ranks (each rank reads its share of the .su2 file; PT-Scotch
# partitions the face graph held in pieces; no rank holds the whole mesh).
# Prints, per rank count: the read time (timer "mesh": every rank's chunk
# of the file), the distribution time (timer "partition": face matching,
# PT-Scotch, cell migration, ghost layer), the peak resident memory of
# every rank (GNU time's maximum RSS, the whole run: mesh, geometry,
# Jacobian, PETSc's ILU and Krylov space) and its ratio to one rank's.
# The runs stop after STEPS Newton steps (the memory peak is reached in the
# first: Jacobian and preconditioner are built then).
#
#   benchmarks/run-parallel-input.sh [build-dir] [h_wall_mm]
#
# Defaults: build-dir build-bench-input, h_wall 6 (mm on the wing; 6 gives
# about a million tetrahedra, meshed by examples/onera_m6/onera_m6.geo with
# Gmsh once and kept in the build folder). Environment: STEPS (default 1),
# RANKS (default "1 2 4"), JOBS (default 2).
#
# Then scale on paper: the memory per local cell K and the fixed memory B
# of a rank come from one-rank runs on this grid and on the 32 mm grid
# (RSS = B + K cells); halo_on_paper partitions the grid into 64 to 1024
# parts and prints each part count's owned and ghost cells, neighbours,
# halo bytes and the busiest part's memory B + K (owned + ghosts).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench-input}
h_wall=${2:-6}
steps=${STEPS:-1}
ranks=${RANKS:-1 2 4}
jobs=${JOBS:-2}
cad=$root/../shared/data/geometry/onera_m6_wing.igs
[[ -f $cad ]] || { echo "run-parallel-input.sh: $cad not found" >&2; exit 2; }
command -v gmsh >/dev/null ||
  { echo "run-parallel-input.sh: needs gmsh (bash scripts/setup-debian.sh)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "run-parallel-input.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCAMBER_ENABLE_TESTS=OFF -DCAMBER_ENABLE_BENCHMARKS=ON \
  -DCAMBER_ENABLE_DOCS=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target camber_cli halo_on_paper >/dev/null
camber=$build/bin/camber

out=$build/parallel-input
mkdir -p "$out"
# The M6 grid of wall spacing $1 mm (meshed once) and a deck that runs it.
grid() {
  local m=$out/onera_m6_h$1.su2
  if [[ ! -f $m ]]; then
    gmsh -3 "$root/examples/onera_m6/onera_m6.geo" -setstring cad "$cad" \
      -setnumber h_wall "$1" -format su2 -o "$m" >"$out/gmsh_h$1.log" 2>&1
  fi
  sed -e "s|^  file: .*|  file: $m|" -e "s|^  max_iterations: .*|  max_iterations: $steps|" \
    -e "s|^  dir: .*|  dir: $out/run|" -e '/^wing:/,/^  stations:/d' \
    "$root/examples/onera_m6/onera_m6.yaml" >"$out/m6_h$1.yaml"
  echo "$m"
}
# Peak RSS in KiB of every rank of a run: "max min".
peak_rss() {
  awk '/^maxrss_kib/ { v = $2; if (hi == "" || v > hi) hi = v; if (lo == "" || v < lo) lo = v }
       END { print hi, lo }' "$1"
}
# `camber run` on n ranks under GNU time, its output in a log. Stopping
# after STEPS Newton steps unconverged (exit 1, "not converged") is the
# intended end.
run() {
  mpirun --oversubscribe -n "$1" /usr/bin/time -f "maxrss_kib %M" "$camber" run "$2" >"$3" 2>&1 ||
    grep -q "not converged after" "$3" || { echo "run at $1 ranks failed; see $3" >&2; exit 1; }
}
mesh=$(grid "$h_wall")
deck=$out/m6_h$h_wall.yaml
cells=$(sed -n 's/^NELEM= *//p' "$mesh")
echo "mesh: $mesh, $cells tetrahedra, $(stat -c %s "$mesh") bytes"

printf '%-6s %10s %12s %14s %14s %10s\n' ranks "read s" "partition s" "max RSS MiB" "min RSS MiB" "ratio"
one=""
for n in $ranks; do
  log=$out/run_np$n.log
  run "$n" "$deck" "$log"
  read -r hi lo < <(peak_rss "$log")
  t_read=$(awk '$1 == "mesh" && NF >= 7 { print $3 }' "$log" | tail -n 1)
  t_part=$(awk '$1 == "partition" && NF >= 7 { print $3 }' "$log" | tail -n 1)
  [[ -n $one ]] || one=$hi
  printf '%-6s %10.3g %12.3g %14.0f %14.0f %10.3f\n' "$n" "$t_read" "$t_part" \
    "$(echo "$hi / 1024" | bc -l)" "$(echo "$lo / 1024" | bc -l)" "$(echo "$hi / $one" | bc -l)"
done

# Scale on paper.
small=$(grid 32)
small_cells=$(sed -n 's/^NELEM= *//p' "$small")
run 1 "$out/m6_h32.yaml" "$out/run_small.log"
read -r small_rss _ < <(peak_rss "$out/run_small.log")
kib=$(echo "($one - $small_rss) / ($cells - $small_cells)" | bc -l)
base=$(echo "($small_rss - $kib * $small_cells) / 1024" | bc -l)
printf 'one rank: %.0f MiB for %d cells, %.0f MiB for %d cells: K = %.3f KiB per local cell, B = %.0f MiB\n' \
  "$(echo "$one / 1024" | bc -l)" "$cells" "$(echo "$small_rss / 1024" | bc -l)" "$small_cells" "$kib" "$base"
"$build/benchmarks/solvers/halo_on_paper" "$mesh" --kib-per-cell "$kib" --base-mib "$base"
