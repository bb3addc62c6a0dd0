#!/usr/bin/env bash
# usage: check_paraview.sh PARAVIEW_READ MPIEXEC CAMBER DECK
# Runs the deck on 2 ranks, then opens the .pvd with ParaView itself and
# checks the cell count, the field names and the largest temperature.
# DECK is tests/apps/decks/small.yaml: 16 x 12 quads (mesh.generate:
# rectangle), partitioned over the ranks, on [0, 2] x [0, 1] with
# T = 1 + 2 x/Lx - 3 y/Ly, reproduced to round-off; its largest cell-centre
# value is at x = 2 * 15.5/16, y = 1/24: T = 1 + 1.9375 - 0.125 = 2.8125.
set -euo pipefail
reader=$1 mpiexec=$2 camber=$3 deck=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$mpiexec" -n 2 --oversubscribe "$camber" run "$deck" --no-timers
json=$("$reader" out/small.pvd)
echo "$json"
/usr/bin/python3 - "$json" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
assert d["cells"] == 192, d["cells"]
arrays = d["cell_arrays"]
for name in ("Temperature [K]", "Exact temperature [K]", "Error [K]"):
    assert name in arrays, (name, sorted(arrays))
t_max = arrays["Temperature [K]"]["range"][1]
assert abs(t_max - 2.8125) < 1e-9, t_max
print("PASS: ParaView reads 192 cells, max temperature %.12f" % t_max)
PY
