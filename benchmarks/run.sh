#!/usr/bin/env bash
# Builds and runs the autodiff benchmarks and prints the ratio table of
# docs/performance.md.
#
#   benchmarks/run.sh [build-dir]        (default: build-bench in the repo root)
#
# Environment: REPS (repetitions, default 7), MIN_TIME (seconds per
# repetition of one case, default 0.3), JOBS (build jobs, default 2),
# MARCH (default x86-64-v3; never "native", see docs/performance.md).
# Takes about 3-4 minutes on the 2-core reference machine, build included.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
reps=${REPS:-7}
min_time=${MIN_TIME:-0.3}
jobs=${JOBS:-2}
march=${MARCH:-x86-64-v3}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="-march=$march" \
  -DCAMBER_ENABLE_BENCHMARKS=ON -DCAMBER_ENABLE_TESTS=OFF \
  -DCAMBER_ENABLE_IO=OFF -DCAMBER_ENABLE_PETSC=OFF -DCAMBER_ENABLE_DECK=OFF \
  -DCAMBER_ENABLE_APPS=OFF -DCAMBER_ENABLE_ONNX=OFF -DCAMBER_ENABLE_SERVE=OFF -DCAMBER_ENABLE_SUNDIALS=OFF >/dev/null
targets=(--target bench_graph --target bench_nn --target nn_scaling)
[[ -f "$build/benchmarks/compare/Makefile" || -d "$build/benchmarks/compare/CMakeFiles" ]] &&
  targets+=(--target bench_peers)
cmake --build "$build" -j"$jobs" "${targets[@]}"

# bench_graph starts camber::Runtime, hence MPI: Open MPI refuses root
# without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

out=$build/bench-results
mkdir -p "$out"
common=(--benchmark_repetitions="$reps" --benchmark_min_time="$min_time"
        --benchmark_enable_random_interleaving=true
        --benchmark_out_format=json)
# Interleaved repetitions: every case of one binary sees the same machine
# load on average, so ratios within a binary are meaningful on a shared host.
"$build/benchmarks/autodiff/bench_graph" "${common[@]}" --benchmark_out="$out/graph.json" >/dev/null
"$build/benchmarks/autodiff/bench_graph" --memory >"$out/memory.txt"
"$build/benchmarks/nn/bench_nn" "${common[@]}" --benchmark_out="$out/nn.json" >/dev/null
# Data-parallel scaling: separate processes at 1 and 2 ranks, alternated
# three times so a load change hits both rank counts.
: >"$out/scaling.txt"
for round in 1 2 3; do
  for np in 1 2; do
    mpirun -n "$np" --oversubscribe "$build/benchmarks/nn/nn_scaling" --raw --reps 3 \
      >>"$out/scaling.txt"
  done
done
peers=0
if [[ -x "$build/benchmarks/compare/bench_peers" ]]; then
  "$build/benchmarks/compare/bench_peers" "${common[@]}" --benchmark_out="$out/peers.json" >/dev/null
  peers=1
fi

python3 - "$out" "$peers" <<'EOF'
import json, statistics, sys
out, peers = sys.argv[1], sys.argv[2] == "1"

def load(path):
    runs = {}
    ctx = None
    with open(path) as f:
        data = json.load(f)
    ctx = data["context"]
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"].replace("/real_time", "")
        runs.setdefault(name, []).append(b["real_time"])  # ms
    return {k: (min(v), statistics.median(v), v) for k, v in runs.items()}, ctx

g, ctx = load(f"{out}/graph.json")
print(f"# {ctx['date']}  host {ctx['host_name']}  {ctx['num_cpus']} cpus  "
      f"load {ctx.get('load_avg')}")
print(f"# times: real time, ms; ratio min = min/min, median = median/median over "
      f"{len(next(iter(g.values()))[2])} interleaved repetitions; spread = range of the "
      f"ratio of repetition k of the numerator to repetition k of the denominator; a "
      f"target is met or missed only when the median is outside the spread's distance "
      f"from it, otherwise 'within spread'\n")

def spread(num, den, scale_num=1.0):
    r = [a * scale_num / b for a, b in zip(num[2], den[2])]
    return min(r), max(r)

def row(label, num, den, target=None, scale_num=1.0, t=None):
    (a0, a1, _), (b0, b1, _) = num, den
    r0, r1 = a0 * scale_num / b0, a1 * scale_num / b1
    lo, hi = spread(num, den, scale_num)
    if target is None:
        tgt = ""
    elif max(abs(r1 - lo), abs(hi - r1)) >= abs(r1 - target):
        tgt = f"within spread (<= {target})"
    else:
        tgt = ("met" if r1 <= target else "MISSED") + f" (<= {target})"
    print(f"| {label:<46} | {a1*scale_num:10.2f} | {b1:10.2f} | {r0:7.2f} | {r1:7.2f} | "
          f"{lo:6.2f}-{hi:<6.2f} | {tgt:24} |")

print(f"| {'ratio':<46} | {'num ms':>10} | {'den ms':>10} | {'min':>7} | {'median':>7} | "
      f"{'spread':13} | {'target':24} |")
print(f"|{'-'*48}|{'-'*12}|{'-'*12}|{'-'*9}|{'-'*9}|{'-'*15}|{'-'*26}|")
row("(a) MLP grad / primal", g["BM_mlp_grad"], g["BM_mlp_primal"], 2.5)
row("(a) MLP hvp / primal", g["BM_mlp_hvp"], g["BM_mlp_primal"], 8)
row("(a) MLP float32 grad / primal", g["BM_mlp_grad_f32"], g["BM_mlp_primal_f32"], 2.5)
row("(a) MLP ad primal / Eigen forward", g["BM_mlp_primal"], g["BM_mlp_eigen_forward"])
row("(a) MLP float32 ad primal / Eigen forward", g["BM_mlp_primal_f32"], g["BM_mlp_eigen_forward_f32"])
row("(a) MLP float32 / float64 ad primal", g["BM_mlp_primal_f32"], g["BM_mlp_primal"])
row("(b) chain grad / primal", g["BM_chain_grad"], g["BM_chain_primal"], 2.5)
row("(b) chain ad primal / Tensor primal", g["BM_chain_primal"], g["BM_chain_primal_tensor"])
row("(b) chain grad / Tensor primal", g["BM_chain_grad"], g["BM_chain_primal_tensor"])
row("(c) Rosenbrock grad / primal", g["BM_rosenbrock_grad"], g["BM_rosenbrock_primal"], 3)
row("(c) Rosenbrock hvp / primal", g["BM_rosenbrock_hvp"], g["BM_rosenbrock_primal"], 8)
row("(c) Rosenbrock ad primal / hand loop", g["BM_rosenbrock_primal"], g["BM_rosenbrock_primal_loop"], 2)

if peers:
    p, _ = load(f"{out}/peers.json")
    print("\n# peers: their derivative / their own double primal, and Camber time / theirs")
    print("# (separate process, run right after; x10: measured at n = 1e5, scaled to 1e6)\n")
    print(f"| {'ratio':<46} | {'num ms':>10} | {'den ms':>10} | {'min':>7} | {'median':>7} | "
          f"{'spread':13} | {'':24} |")
    print(f"|{'-'*48}|{'-'*12}|{'-'*12}|{'-'*9}|{'-'*9}|{'-'*15}|{'-'*26}|")
    cp = p["BM_chain_primal_double/100000"]
    cp6 = p["BM_chain_primal_double/1000000"]
    rp = p["BM_rosenbrock_primal_double"]
    row("(b) ADOL-C grad / double primal", p["BM_chain_grad_adolc"], cp)
    row("(b) ADOL-C grad, stored tape / double primal", p["BM_chain_grad_adolc_reuse"], cp)
    row("(b) Sacado Rad grad / double primal", p["BM_chain_grad_sacado_rad"], cp)
    row("(b) Sacado SFad grad / double primal", p["BM_chain_grad_sacado_fad"], cp6)
    row("(c) ADOL-C grad / double primal", p["BM_rosenbrock_grad_adolc"], rp)
    row("(c) ADOL-C grad, stored tape / double primal", p["BM_rosenbrock_grad_adolc_reuse"], rp)
    row("(c) Sacado Rad grad / double primal", p["BM_rosenbrock_grad_sacado_rad"], rp)
    row("(c) Sacado SFad grad / double primal", p["BM_rosenbrock_grad_sacado_fad"], rp)
    row("(c) ADOL-C hvp / double primal", p["BM_rosenbrock_hvp_adolc"], rp)
    row("(c) Sacado SFad<SFad> hvp / double primal", p["BM_rosenbrock_hvp_sacado_fad"], rp)
    print()
    def vs(label, ours, theirs, scale=1.0):
        (a0, a1, _), (b0, b1, _) = ours, theirs
        lo, hi = spread(ours, (None, None, [b * scale for b in theirs[2]]))
        print(f"| {label:<46} | {a1:10.2f} | {b1*scale:10.2f} | {a0/(b0*scale):7.2f} | "
              f"{a1/(b1*scale):7.2f} | {lo:6.2f}-{hi:<6.2f} | {'':24} |")
    vs("(b) Camber grad / ADOL-C grad (x10)", g["BM_chain_grad"], p["BM_chain_grad_adolc"], 10)
    vs("(b) Camber grad / ADOL-C stored tape (x10)", g["BM_chain_grad"], p["BM_chain_grad_adolc_reuse"], 10)
    vs("(b) Camber grad / Sacado Rad grad (x10)", g["BM_chain_grad"], p["BM_chain_grad_sacado_rad"], 10)
    vs("(b) Camber grad / Sacado SFad grad", g["BM_chain_grad"], p["BM_chain_grad_sacado_fad"])
    vs("(c) Camber grad / ADOL-C grad", g["BM_rosenbrock_grad"], p["BM_rosenbrock_grad_adolc"])
    vs("(c) Camber grad / ADOL-C stored tape", g["BM_rosenbrock_grad"], p["BM_rosenbrock_grad_adolc_reuse"])
    vs("(c) Camber grad / Sacado Rad grad", g["BM_rosenbrock_grad"], p["BM_rosenbrock_grad_sacado_rad"])
    vs("(c) Camber grad / Sacado SFad grad", g["BM_rosenbrock_grad"], p["BM_rosenbrock_grad_sacado_fad"])
    vs("(c) Camber hvp / ADOL-C hvp", g["BM_rosenbrock_hvp"], p["BM_rosenbrock_hvp_adolc"])
    vs("(c) Camber hvp / Sacado SFad<SFad> hvp", g["BM_rosenbrock_hvp"], p["BM_rosenbrock_hvp_sacado_fad"])

print("\n# memory (Kokkos allocation callbacks; bench_graph --memory)")
print(open(f"{out}/memory.txt").read())

# Training throughput (bench_nn): samples/s of a training step, Camber
# against the hand-written Eigen step, interleaved in one process.
nn_runs, _ = load(f"{out}/nn.json")
print("| training step (batch 256) | Camber us | Eigen us | Camber samples/s | Eigen samples/s | "
      "Camber / Eigen time (median) | spread |")
print("|---|---|---|---|---|---|---|")
for dt in ("double", "float"):
    for width in (64, 256):
        c = nn_runs[f"BM_camber<{dt}>/{width}"]
        e = nn_runs[f"BM_eigen<{dt}>/{width}"]
        lo, hi = spread(c, e)
        print(f"| MLP 4x{width}, {'float64' if dt == 'double' else 'float32'} | {c[1]:.1f} | "
              f"{e[1]:.1f} | {256e6 / c[1]:.0f} | {256e6 / e[1]:.0f} | {c[1] / e[1]:.2f} | "
              f"{lo:.2f}-{hi:.2f} |")

print()
print("| inference | rows | engine us | Surrogate us | Eigen us | Surrogate samples/s | "
      "engine / Eigen (spread) | Surrogate / Eigen (spread) |")
print("|---|---|---|---|---|---|---|---|")
for dt in ("double", "float"):
    for rows in (1, 1024):
        for width in (64, 256):
            c = nn_runs[f"BM_camber_infer<{dt}>/{width}/{rows}"]
            s = nn_runs[f"BM_surrogate_infer<{dt}>/{width}/{rows}"]
            e = nn_runs[f"BM_eigen_infer<{dt}>/{width}/{rows}"]
            lo, hi = spread(c, e)
            slo, shi = spread(s, e)
            print(f"| MLP 4x{width}, {'float64' if dt == 'double' else 'float32'} | {rows} | "
                  f"{c[1]:.1f} | {s[1]:.1f} | {e[1]:.1f} | {rows * 1e6 / s[1]:.0f} | "
                  f"{c[1] / e[1]:.2f} ({lo:.2f}-{hi:.2f}) | {s[1] / e[1]:.2f} ({slo:.2f}-{shi:.2f}) |")

# Scaling (nn_scaling): median ms per step over 3 rounds x 3 repetitions.
raw = {}
for line in open(f"{out}/scaling.txt"):
    if line.startswith("raw "):
        _, case, np_, ms = line.split()
        raw.setdefault((case, int(np_)), []).append(float(ms))
print()
print("| data-parallel step (global batch) | 1 rank ms | 2 ranks ms | 1 rank samples/s | "
      "2 ranks samples/s | efficiency t1/(2 t2) | efficiency range |")
print("|---|---|---|---|---|---|---|")
def order(c):
    net, dt, b = c.split("/")
    return (dt != "f64", int(net[5:]), int(b[5:]))
for case in sorted({c for c, _ in raw}, key=order):
    t1, t2 = raw[(case, 1)], raw[(case, 2)]
    m1, m2 = statistics.median(t1), statistics.median(t2)
    batch = int(case.split("batch")[1])
    print(f"| {case} | {m1:.2f} | {m2:.2f} | {batch * 1e3 / m1:.0f} | {batch * 1e3 / m2:.0f} | "
          f"{m1 / (2 * m2):.2f} | {min(t1) / (2 * max(t2)):.2f}-{max(t1) / (2 * min(t2)):.2f} |")
EOF
