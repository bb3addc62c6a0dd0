#!/usr/bin/env bash
# Load test of `camber serve` on 127.0.0.1: the surrogate example's model
# (examples/surrogate: sampled and trained first when missing), served with
# the default options, under 1, 8 and 64 concurrent clients (serve_load:
# single-row requests, keep-alive connections, at most REQUESTS requests or
# SECONDS seconds per level). Prints serve_load's lines and the server's
# batch-size histogram; the figures of docs/performance.md. MODEL serves
# another model file instead (serve_load takes its inputs from GET /model),
# e.g. the shape surrogate of benchmarks/nn/run-sobolev.sh:
#
#   benchmarks/nn/run-serve-load.sh [build-dir]      (default: build)
#   MODEL=out/surrogate_shape/naca0012_shape_surrogate_model.h5 benchmarks/nn/run-serve-load.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
requests=${REQUESTS:-20000}
seconds=${SECONDS_PER_LEVEL:-10}
camber=$build/bin/camber
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root"
model=${MODEL:-out/surrogate/naca0012_surrogate_model.h5}
if [[ -z ${MODEL:-} && ! -f $model ]]; then
  "$camber" -q sample examples/surrogate/naca0012_sample.yaml
  "$camber" -q train examples/surrogate/naca0012_train.yaml
fi
log=$(mktemp)
"$camber" serve "$model" --port 0 > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "on http://" "$log" && break; sleep 0.1; done
port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\) .*|\1|p' "$log")
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
for clients in 1 8 64; do
  "$build/benchmarks/nn/serve_load" --port "$port" --clients "$clients" --requests "$requests" \
    --seconds "$seconds"
done
/usr/bin/python3 - "$port" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
print("\n".join(l for l in text.splitlines() if l.startswith(("camber_batch_rows", "camber_request_errors"))))
PY
kill -TERM $server
wait $server
