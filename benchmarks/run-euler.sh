#!/usr/bin/env bash
# Builds and runs the Euler benchmarks and prints the tables of
# docs/performance.md ("Euler solver"):
#   - bench_euler (Google Benchmark, interleaved repetitions): STREAM triad,
#     residual evaluation, Jacobian face blocks, whole steady solve, on SU2's
#     QuickStart NACA 0012 mesh (M = 0.8, alpha = 1.25 deg), one rank; the
#     first-order residual and face blocks in 3-D on SU2's cylinder (CGNS);
#   - `camber run` on the same case at 1 and 2 ranks, alternated, for the
#     parallel speed-up, Newton steps and peak memory.
#
#   benchmarks/run-euler.sh [build-dir]     (default: build-bench-euler)
#
# Environment: REPS (default 5), ORDER (spatial order of the CLI runs, 1 or 2;
# default 1), JOBS (default 2), MARCH (default x86-64-v3).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench-euler}
reps=${REPS:-5}
jobs=${JOBS:-2}
march=${MARCH:-x86-64-v3}
order=${ORDER:-1}
mesh=$root/../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
[[ -f $mesh ]] || { echo "run-euler.sh: $mesh not found" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-march=$march" \
  -DCAMBER_ENABLE_BENCHMARKS=ON -DCAMBER_ENABLE_TESTS=OFF -DCAMBER_ENABLE_DOCS=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target bench_euler camber_cli >/dev/null

out=$build/bench-results
mkdir -p "$out"
"$build/benchmarks/solvers/bench_euler" --benchmark_repetitions="$reps" \
  --benchmark_min_time=0.3 --benchmark_enable_random_interleaving=true \
  --benchmark_out_format=json --benchmark_out="$out/euler.json" >/dev/null

deck=$out/quickstart.yaml
cat >"$deck" <<DECK
case: quickstart
problem: euler
mesh: {generate: file, file: $mesh}
flow: {mach: 0.8, alpha_deg: 1.25, order: $order}
boundaries: {slip_wall: airfoil, far_field: farfield}
solver: {max_iterations: 200, rel_tolerance: 1.0e-10}
output: {dir: $out/quickstart, paraview: false, hdf5: false}
DECK
: >"$out/cli.txt"
for ((i = 0; i < reps; ++i)); do
  for n in 1 2; do
    mpirun -n "$n" --oversubscribe "$build/bin/camber" run "$deck" --no-timers 2>&1 |
      sed -n "s/^ *\(Newton steps\|wall time\|peak memory\|CL\|CD\) */$n|\1|/p" >>"$out/cli.txt"
  done
done

python3 - "$out" <<'PY'
import json, re, statistics, sys
out = sys.argv[1]
data = json.load(open(f"{out}/euler.json"))
ctx = data["context"]
runs = {}
for b in data["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    runs.setdefault(b["run_name"].split("/")[0], []).append(b)
def stat(name, key="real_time"):
    v = [b[key] for b in runs[name]]
    return min(v), statistics.median(v), max(v)
print(f"# {ctx['date']}  host {ctx['host_name']}  {ctx['num_cpus']} cpus  load {ctx.get('load_avg')}")
print(f"# {len(runs['BM_residual'])} interleaved repetitions; min / median / max\n")
tri = stat("BM_stream_triad", "bytes_per_second")
res_b = stat("BM_residual", "bytes_per_second")
cells = stat("BM_residual", "cells/s")
r = stat("BM_residual"); j = stat("BM_face_jacobians"); s = stat("BM_steady_solve")
steps = runs["BM_steady_solve"][0]["newton_steps"]
print("| quantity | min | median | max |")
print("|---|---|---|---|")
print(f"| STREAM triad, GB/s | {tri[0]/1e9:.1f} | {tri[1]/1e9:.1f} | {tri[2]/1e9:.1f} |")
print(f"| residual, ms | {r[0]:.3f} | {r[1]:.3f} | {r[2]:.3f} |")
print(f"| residual, million cells/s | {cells[0]/1e6:.2f} | {cells[1]/1e6:.2f} | {cells[2]/1e6:.2f} |")
print(f"| residual bandwidth (byte model), GB/s | {res_b[0]/1e9:.2f} | {res_b[1]/1e9:.2f} | {res_b[2]/1e9:.2f} |")
fr = [b["bytes_per_second"] for b in runs["BM_residual"]]
tr = [b["bytes_per_second"] for b in runs["BM_stream_triad"]]
print(f"| residual / triad bandwidth | {min(fr)/max(tr):.3f} | {statistics.median(fr)/statistics.median(tr):.3f} | {max(fr)/min(tr):.3f} |")
print(f"| Jacobian face blocks, ms | {j[0]:.3f} | {j[1]:.3f} | {j[2]:.3f} |")
print(f"| Jacobian blocks / residual | {j[0]/r[2]:.1f} | {j[1]/r[1]:.1f} | {j[2]/r[0]:.1f} |")
print(f"| steady solve (one rank), s | {s[0]/1e3:.2f} | {s[1]/1e3:.2f} | {s[2]/1e3:.2f} |")
print(f"| Newton steps | {steps:.0f} | | |")
r3 = stat("BM_residual_3d"); c3 = stat("BM_residual_3d", "cells/s"); j3 = stat("BM_face_jacobians_3d")
b3 = [b["bytes_per_second"] for b in runs["BM_residual_3d"]]
print("\n| 3-D, SU2's cylinder (27,591 tetrahedra), first order | min | median | max |")
print("|---|---|---|---|")
print(f"| residual, ms | {r3[0]:.3f} | {r3[1]:.3f} | {r3[2]:.3f} |")
print(f"| residual, million cells/s | {c3[0]/1e6:.2f} | {c3[1]/1e6:.2f} | {c3[2]/1e6:.2f} |")
print(f"| residual bandwidth (byte model), GB/s | {min(b3)/1e9:.2f} | {statistics.median(b3)/1e9:.2f} | {max(b3)/1e9:.2f} |")
print(f"| residual / triad bandwidth | {min(b3)/max(tr):.3f} | {statistics.median(b3)/statistics.median(tr):.3f} | {max(b3)/min(tr):.3f} |")
print(f"| Jacobian face blocks, ms | {j3[0]:.3f} | {j3[1]:.3f} | {j3[2]:.3f} |")

cli = {}
for line in open(f"{out}/cli.txt"):
    n, key, val = line.strip().split("|", 2)
    cli.setdefault((int(n), key), []).append(val)
def nums(n, key):
    return [float(re.match(r"[-0-9.e]+", v).group(0)) for v in cli[(n, key)]]
print("\n| camber run, QuickStart mesh | 1 rank (median) | 2 ranks (median) |")
print("|---|---|---|")
for key in ("Newton steps", "CL", "CD", "peak memory"):
    print(f"| {key} | {statistics.median(nums(1, key)):g} | {statistics.median(nums(2, key)):g} |")
t1, t2 = nums(1, "wall time"), nums(2, "wall time")
print(f"| solve wall time, s (min-max) | {statistics.median(t1):.2f} ({min(t1):.2f}-{max(t1):.2f}) "
      f"| {statistics.median(t2):.2f} ({min(t2):.2f}-{max(t2):.2f}) |")
print(f"\nspeed-up 2 ranks / 1: median {statistics.median(t1)/statistics.median(t2):.2f}, "
      f"range {min(t1)/max(t2):.2f}-{max(t1)/min(t2):.2f}")
PY
