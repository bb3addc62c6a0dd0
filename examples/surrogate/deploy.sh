#!/usr/bin/env bash
# From training to service, on the NACA 0012 surrogate of this folder:
# sample the flows, train the network, print its model card, predict a CSV,
# export to ONNX and check ONNX Runtime against Camber, quantize to int8;
# sign both files, register them in a model registry, promote the float
# model to prod and the int8 one to staging, predict by stage, serve both
# stages from one server (KServe/Triton v2 protocol, signature gate on),
# put a short load on it, then stop it with SIGTERM. Run from the
# repository root after scripts/build.sh:
#
#   bash examples/surrogate/deploy.sh
#
# Environment: CAMBER_BUILD (default build), ONNX_RUN (default
# ../shared/tools/onnx-run; the ONNX Runtime step is skipped without it).
set -euo pipefail
build=${CAMBER_BUILD:-build}
camber=$build/bin/camber
onnx_run=${ONNX_RUN:-../shared/tools/onnx-run}
out=out/surrogate
model=$out/naca0012_surrogate_model.h5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
step() { echo; echo "== $*"; }

step "sample 120 flows and train (examples/surrogate/*.yaml)"
"$camber" -q sample examples/surrogate/naca0012_sample.yaml
"$camber" train --no-timers examples/surrogate/naca0012_train.yaml | grep -E "^(validation|wrote)"

step "the model card"
"$camber" model-info "$model" | sed -n '1,12p'

step "batch prediction of a CSV"
printf 'mach,alpha_deg [deg]\n0.45,0.0\n0.5,2.0\n0.58,3.5\n' > $out/points.csv
"$camber" infer "$model" $out/points.csv -o $out/points_predicted.csv | tail -1
cat $out/points_predicted.csv

step "ONNX export, checked by onnx.checker and ONNX Runtime"
"$camber" export "$model" -o $out/naca0012.onnx
/usr/bin/python3 -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True); print('onnx.checker: ok')" $out/naca0012.onnx
if [[ -x $onnx_run ]]; then
  echo '{"inputs": {"dims": [3, 2], "data": [0.45, 0.0, 0.5, 2.0, 0.58, 3.5], "type": "float64"}}' > $out/points.json
  "$onnx_run" $out/naca0012.onnx $out/points.json 2>/dev/null | /usr/bin/python3 -c "
import csv, json, sys
ort = json.load(sys.stdin)['outputs']['data']
ours = [float(v) for r in list(csv.reader(open('$out/points_predicted.csv')))[1:] for v in r[2:]]
print('ONNX Runtime vs camber infer: max |difference|', max(abs(a - b) for a, b in zip(ort, ours)))"
fi

step "int8 quantization"
"$camber" quantize "$model" $out/naca0012_samples.h5 -o $out/naca0012_int8.h5 | grep quantize:

step "sign, register, promote (a registry of its own under $out)"
registry=$out/registry
rm -rf "$registry" $out/deploy_key.key $out/deploy_key.pub
export CAMBER_REGISTRY=$registry
"$camber" -q keygen $out/deploy_key
# The models and the data set they were trained on (registering records
# the data set's sample deck, read through the same gate).
for f in "$model" $out/naca0012_int8.h5 $out/naca0012_samples.h5; do
  "$camber" -q sign "$f" -k $out/deploy_key.key
done
# From here on, a model or data set must carry a signature by this key to
# be loaded.
export CAMBER_TRUSTED_KEYS=$out/deploy_key.pub
"$camber" -q models register "$model" --name naca0012
"$camber" -q models register $out/naca0012_int8.h5 --name naca0012
"$camber" -q models promote naca0012@1 prod
"$camber" -q models promote naca0012@2 staging
"$camber" -q models list

step "predict by stage"
"$camber" -q infer naca0012@prod $out/points.csv -o $out/points_prod.csv
"$camber" -q infer naca0012@staging $out/points.csv -o $out/points_staging.csv
paste -d, $out/points_prod.csv $out/points_staging.csv | cut -d, -f1-5,8-10

step "serve prod and staging, load, SIGTERM"
"$camber" serve naca0012@prod naca0012@staging --port 0 > $out/serve.log 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "on http://" $out/serve.log && break; sleep 0.1; done
port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\) .*|\1|p' $out/serve.log)
/usr/bin/python3 -c "
import json, urllib.request
url = 'http://127.0.0.1:$port'
print('GET /v2/models/naca0012 ->', urllib.request.urlopen(url + '/v2/models/naca0012').read().decode()[:120], '...')
body = json.dumps({'inputs': [{'name': 'mach', 'shape': [2], 'datatype': 'FP64', 'data': [0.45, 0.5]},
                              {'name': 'alpha_deg', 'shape': [2], 'datatype': 'FP64', 'data': [0.0, 2.0]}],
                   'outputs': [{'name': 'CL'}, {'name': 'CD'}]}).encode()
for v in ('1', '2'):
    req = urllib.request.Request(url + '/v2/models/naca0012/versions/' + v + '/infer', data=body, method='POST')
    print('POST /v2/models/naca0012/versions/' + v + '/infer ->', urllib.request.urlopen(req).read().decode())"
if [[ -x $build/benchmarks/nn/serve_load ]]; then
  "$build/benchmarks/nn/serve_load" --port "$port" --clients 8 --requests 5000 --seconds 10
fi
curl -s "http://127.0.0.1:$port/metrics" | grep '^camber_model_requests_total'
kill -TERM $server
wait $server
tail -1 $out/serve.log
