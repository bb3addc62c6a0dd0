#!/usr/bin/env bash
# Inference: Camber (Surrogate::predict, the engine's forward, a
# hand-written Eigen forward; bench_nn from the Release benchmark build)
# against ONNX Runtime (onnxruntime-node 1.20.1, one intra-op thread) on the
# same networks exported to ONNX, run back to back; prints the table of
# docs/performance.md.
#
#   benchmarks/nn/run-inference.sh          (after benchmarks/run.sh built build-bench)
#
# Environment: REPS (default 7), MIN_TIME (seconds per repetition, 0.3),
# ONNX_RUN (default ../shared/tools/onnx-run: installs ONNX Runtime once).
#
# Both sides compute on one thread: ONNX Runtime with one intra-op thread,
# and Camber's oneDNN products (OpenMP) with OMP_NUM_THREADS=1 (predict()
# holds oneDNN to the calling thread anyway; this makes it explicit).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${REPS:-7}
min_time=${MIN_TIME:-0.3}
onnx_run=${ONNX_RUN:-$root/../shared/tools/onnx-run}
out=$root/build-bench/bench-results
mkdir -p "$out/models"
cmake --build "$root/build" -j2 --target export_bench_models > /dev/null
cmake --build "$root/build-bench" -j2 --target bench_nn > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
"$root/build/benchmarks/nn/export_bench_models" "$out/models" > /dev/null
# onnx-run installs ONNX Runtime on first use; run it once on a model.
echo '{"inputs": {"dims": [1, 16], "data": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], "type": "float64"}}' > "$out/models/probe.json"
"$onnx_run" "$out/models/mlp4x64_float64.onnx" "$out/models/probe.json" > /dev/null 2>&1
cache=${CAMBER_ORT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/camber-onnxruntime}

"$root/build-bench/benchmarks/nn/bench_nn" --benchmark_filter='infer' \
  --benchmark_repetitions="$reps" --benchmark_min_time="$min_time" \
  --benchmark_enable_random_interleaving=true --benchmark_out_format=json \
  --benchmark_out="$out/infer.json" > /dev/null
NODE_PATH="$cache/node_modules" node "$root/benchmarks/nn/ort_inference.js" "$out/models" \
  "$reps" "$min_time" 1 > "$out/ort.json"

python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
data = json.load(open(f"{out}/infer.json"))
runs = {}
for b in data["benchmarks"]:
    if b.get("run_type") == "iteration":
        runs.setdefault(b["run_name"].replace("/real_time", ""), []).append(b["real_time"] * 1e-6)
ort = json.load(open(f"{out}/ort.json"))
ctx = data["context"]
print(f"# {ctx['date']}  host {ctx['host_name']}  {ctx['num_cpus']} cpus  load {ctx.get('load_avg')}")
print("| net | rows | Surrogate us | ONNX Runtime us | Eigen us | engine us | Surrogate / ORT throughput (median) | range |")
print("|---|---|---|---|---|---|---|---|")
for dt, t in (("float64", "double"), ("float32", "float"), ("int8", None)):
    for rows in (1, 1024):
        for width in (64, 256):
            if t is None:  # int8: no engine or Eigen counterpart
                s = runs[f"BM_surrogate_infer_int8/{width}/{rows}"]
                e = c = None
            else:
                s = runs[f"BM_surrogate_infer<{t}>/{width}/{rows}"]
                e = runs[f"BM_eigen_infer<{t}>/{width}/{rows}"]
                c = runs[f"BM_camber_infer<{t}>/{width}/{rows}"]
            o = ort[f"mlp4x{width}_{dt}/{rows}"]
            ms, mo = statistics.median(s), statistics.median(o)
            lo, hi = min(o) / max(s), max(o) / min(s)
            fmt = lambda r: "-" if r is None else f"{statistics.median(r)*1e6:.1f}"
            print(f"| MLP 4x{width} {dt} | {rows} | {ms*1e6:.1f} | {mo*1e6:.1f} | "
                  f"{fmt(e)} | {fmt(c)} | {mo/ms:.2f} | {lo:.2f}-{hi:.2f} |")
# int8 against float32 in Camber (same binary, interleaved repetitions).
print()
print("| net | rows | int8 / float32 throughput (median) | range |")
print("|---|---|---|---|")
for rows in (1, 1024):
    for width in (64, 256):
        f = runs[f"BM_surrogate_infer<float>/{width}/{rows}"]
        q = runs[f"BM_surrogate_infer_int8/{width}/{rows}"]
        print(f"| MLP 4x{width} | {rows} | {statistics.median(f)/statistics.median(q):.2f} | "
              f"{min(f)/max(q):.2f}-{max(f)/min(q):.2f} |")
PY
