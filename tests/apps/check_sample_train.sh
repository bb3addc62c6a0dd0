#!/usr/bin/env bash
# usage: check_sample_train.sh MPIEXEC CAMBER SAMPLE_DECK TRAIN_DECK [SERVE_LOAD]
# camber sample on 2 ranks (two groups of one rank) writes a data set of 8
# flows; cut back to 3 finished flows (an interrupted run), a run on 1 rank
# continues with the other 5 and ends with the same results, digit for
# digit; camber train on 2 ranks fits it and reports the validation error
# per output, the same under parallel: model and auto; --restart continues from the training checkpoint; camber
# optimize minimizes CD over the network with CL >= 0.1 and solves the flow
# at the optimum. The model file train writes: model-info prints its card
# (the data set's SHA-256 as coreutils computes it), infer predicts the data
# set's rows on 1 and 2 ranks with the same digits, and a cut, changed or
# appended-to model file, a bad input CSV, or a row outside the training
# range the card records, exits with code 2 naming the fault. export writes ONNX that ONNX Runtime evaluates as infer does;
# quantize writes an int8 model (reporting size and error), whose QDQ export
# ONNX Runtime also evaluates as infer does.
# camber serve answers a bounded load (1 and 8 clients, SERVE_LOAD) with no
# failed request, rejects bad requests with 4xx (an input outside the
# training range with 422) and keeps serving, counts
# them in /metrics, and stops on SIGTERM with exit code 0.
set -euo pipefail
mpiexec=$1 camber=$2 sample=$3 train=$4 serve_load=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$mpiexec" -n 2 --oversubscribe "$camber" sample "$sample" --no-timers > sample.log 2>&1 ||
  { cat sample.log; echo "FAIL: camber sample failed"; exit 1; }
grep -q "wrote out/sampled/tiny_samples.h5 (8 flows)" sample.log ||
  { cat sample.log; echo "FAIL: no data set of 8 flows"; exit 1; }
cp out/sampled/tiny_samples.csv full.csv
head -n 5 full.csv > out/sampled/tiny_samples.csv   # header, columns, 3 flows
"$camber" sample "$sample" --no-timers > resumed.log 2>&1 ||
  { cat resumed.log; echo "FAIL: the continued sample run failed"; exit 1; }
grep -q "3 done before, 5 to solve" resumed.log || { cat resumed.log; echo "FAIL: did not continue"; exit 1; }
cmp full.csv out/sampled/tiny_samples.csv || { echo "FAIL: the continued run's flows differ"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$camber" train "$train" --no-timers > train.log 2>&1 ||
  { cat train.log; echo "FAIL: camber train failed"; exit 1; }
for out in CL CD CM; do
  grep -q "validation $out: RMSE" train.log || { cat train.log; echo "FAIL: no validation error for $out"; exit 1; }
done
grep -q "epoch 20/20" train.log || { echo "FAIL: no progress line of epoch 20"; exit 1; }
[[ $(wc -l < out/trained/tiny_surrogate_loss.csv) == 21 ]] || { echo "FAIL: the loss curve has not 20 epochs"; exit 1; }
# The same training with the layers split over the 2 ranks (parallel:
# model) and with the planner's choice (parallel: auto): the same
# validation errors, digit for digit, as data parallel.
for mode in model auto; do
  sed "s|^training:|training:\n  parallel: $mode|; s|dir: out/trained|dir: out/trained_$mode|" "$train" > "$mode.yaml"
  "$mpiexec" -n 2 --oversubscribe "$camber" train "$mode.yaml" --no-timers > "train_$mode.log" 2>&1 ||
    { cat "train_$mode.log"; echo "FAIL: camber train with parallel: $mode failed"; exit 1; }
  grep -q "^parallel: data [12] x model [12]" "train_$mode.log" ||
    { cat "train_$mode.log"; echo "FAIL: no parallel layout reported for $mode"; exit 1; }
  diff <(grep "validation C[LDM]: RMSE" train.log) <(grep "validation C[LDM]: RMSE" "train_$mode.log") ||
    { cat "train_$mode.log"; echo "FAIL: parallel: $mode gives other validation errors"; exit 1; }
done
grep -q "^parallel: data 1 x model 2$" train_model.log || { echo "FAIL: parallel: model did not split over 2 ranks"; exit 1; }
grep -q "(chosen by the planner)" train_auto.log || { echo "FAIL: parallel: auto did not report the planner's choice"; exit 1; }
sed 's/epochs: 20/epochs: 25/' "$train" > longer.yaml
"$camber" train longer.yaml --restart --no-timers > restart.log 2>&1 ||
  { cat restart.log; echo "FAIL: camber train --restart failed"; exit 1; }
grep -q "restart from out/trained/tiny_surrogate_checkpoint.h5 after epoch 20" restart.log ||
  { cat restart.log; echo "FAIL: did not restart after epoch 20"; exit 1; }
grep -q "epoch 21/25" restart.log && ! grep -q "epoch 20/25" restart.log ||
  { cat restart.log; echo "FAIL: the restart did not begin at epoch 21"; exit 1; }
"$camber" optimize "$train" --no-timers > optimize.log 2>&1 ||
  { cat optimize.log; echo "FAIL: camber optimize on the surrogate failed"; exit 1; }
grep -q "surrogate optimum after" optimize.log && grep -q "solver at the optimum .*converged" optimize.log &&
  grep -q "  CD: solver .* surrogate .* error" optimize.log ||
  { cat optimize.log; echo "FAIL: no surrogate optimum re-checked by the solver"; exit 1; }
if command -v gnuplot > /dev/null; then
  [[ -s out/trained/tiny_surrogate_loss.png ]] || { echo "FAIL: no loss curve PNG"; exit 1; }
fi
model=out/trained/tiny_surrogate_model.h5
"$camber" model-info "$model" > info.log 2>&1 || { cat info.log; echo "FAIL: camber model-info failed"; exit 1; }
data_sha=$(sha256sum out/sampled/tiny_samples.h5 | cut -d' ' -f1)
grep -q "training data  out/sampled/tiny_samples.h5, 8 rows, sha256 $data_sha" info.log &&
  grep -q "^inputs         mach .*alpha_deg \[deg\]" info.log && grep -q "^epochs         25" info.log &&
  grep -q "  | problem: surrogate" info.log ||
  { cat info.log; echo "FAIL: the model card is not what was trained"; exit 1; }
"$camber" infer "$model" out/sampled/tiny_samples.h5 -o one.csv > infer1.log 2>&1 &&
  "$mpiexec" -n 2 --oversubscribe "$camber" infer "$model" out/sampled/tiny_samples.h5 -o two.csv > infer2.log 2>&1 ||
  { cat infer1.log infer2.log; echo "FAIL: camber infer failed"; exit 1; }
cmp one.csv two.csv || { echo "FAIL: infer on 2 ranks differs from 1 rank"; exit 1; }
head -1 one.csv | grep -qx "mach,alpha_deg \[deg\],CL,CD,CM" && [[ $(wc -l < one.csv) == 9 ]] ||
  { head -3 one.csv; echo "FAIL: infer's CSV is not 8 rows of inputs and outputs"; exit 1; }
grep -q "RMSE against the data set's outputs: CL" infer1.log || { cat infer1.log; echo "FAIL: no RMSE"; exit 1; }
expect_bad() {  # expect_bad PATTERN COMMAND...: exit code 2 and PATTERN in the output
  local pattern=$1; shift
  set +e; "$@" > bad.log 2>&1; local rc=$?; set -e
  [[ $rc == 2 ]] && grep -q "$pattern" bad.log || { cat bad.log; echo "FAIL: '$*' gave $rc, not 2 with '$pattern'"; exit 1; }
}
size=$(stat -c %s "$model")
head -c $((size - 100)) "$model" > cut.h5
expect_bad "cut.h5' is truncated: $((size - 100)) of $size bytes" "$camber" model-info cut.h5
cp "$model" changed.h5
printf '\x55' | dd of=changed.h5 bs=1 seek=$((size / 2)) conv=notrunc status=none
cmp -s "$model" changed.h5 && { echo "FAIL: the byte was not changed"; exit 1; }
expect_bad "changed.h5' fails its checksum" "$camber" infer changed.h5 one.csv -o x.csv
{ cat "$model"; echo extra; } > appended.h5
expect_bad "data appended" "$camber" model-info appended.h5
expect_bad "not a Camber model file (an HDF5 file" "$camber" model-info out/sampled/tiny_samples.h5
printf 'mach,alpha_deg [deg]\n0.5,1\n0.4,x\n' > bad.csv
expect_bad "bad.csv:3: 'x' in column 'alpha_deg' is not a finite number" \
  "$mpiexec" -n 2 --oversubscribe "$camber" infer "$model" bad.csv -o x.csv
printf 'mach,alpha_deg [rad]\n0.5,1\n' > unit.csv
expect_bad "unit.csv:1: column 'alpha_deg' in 'rad', the model's unit is 'deg'" "$camber" infer "$model" unit.csv -o x.csv
# The card's training range (each input's min and max over the data set's
# rows, policy refuse): a row outside it is exit 2 naming the row (from 0;
# on 2 ranks, row 1 is the second rank's), the input, its value and the
# range, and nothing is written.
grep -q "^input range    mach \[0\.[0-9]*, 0\.[0-9]*\], alpha_deg \[.*\]; extrapolation refuse$" info.log ||
  { cat info.log; echo "FAIL: model-info shows no training range"; exit 1; }
{ echo "mach,alpha_deg [deg]"; sed -n 2p one.csv | cut -d, -f1,2; echo "0.9,1"; } > far.csv
rm -f far_out.csv
expect_bad "far.csv: row 1: input 'mach' = 0.9 is outside the training range \[0\.[0-9]*, 0\.[0-9]*\] of the model" \
  "$mpiexec" -n 2 --oversubscribe "$camber" infer "$model" far.csv -o far_out.csv
[[ ! -e far_out.csv ]] || { echo "FAIL: infer wrote an output for a refused row"; exit 1; }
# Signatures (camber keygen, sign, verify): with CAMBER_TRUSTED_KEYS set,
# a model, data set or training checkpoint loads only when a trusted key
# signed its bytes, and every other case exits 2 saying which.
"$camber" keygen keys/release > keygen.log 2>&1 || { cat keygen.log; echo "FAIL: camber keygen failed"; exit 1; }
"$camber" keygen keys/other > /dev/null 2>&1 || { echo "FAIL: camber keygen failed"; exit 1; }
[[ $(stat -c %a keys/release.key) == 600 ]] || { echo "FAIL: the secret key is not mode 0600"; exit 1; }
expect_bad "exists. a key is never overwritten" "$camber" keygen keys/release
release=$(awk '$1 == "id" {print $2}' keys/release.pub)
other=$(awk '$1 == "id" {print $2}' keys/other.pub)
expect_bad "model file '$model' is not signed (no $model.sig)" \
  env CAMBER_TRUSTED_KEYS=keys/release.pub "$camber" model-info "$model"
"$camber" sign "$model" -k keys/release.key > sign.log 2>&1 || { cat sign.log; echo "FAIL: camber sign failed"; exit 1; }
# The signature's digest is the file's (sha256sum's, an outside reference).
grep -qx "sha256 $(sha256sum "$model" | cut -d' ' -f1)" "$model.sig" ||
  { cat "$model.sig"; echo "FAIL: the signature does not name the file's SHA-256"; exit 1; }
CAMBER_TRUSTED_KEYS=keys/release.pub "$camber" model-info "$model" > signed_info.log 2>&1 ||
  { cat signed_info.log; echo "FAIL: a signed model does not load"; exit 1; }
CAMBER_TRUSTED_KEYS=keys "$camber" verify "$model" 2>&1 | grep -q "signed by key $release (keys/release.pub)" ||
  { echo "FAIL: camber verify does not name the signing key"; exit 1; }
expect_bad "is signed by key $release, which is not trusted (1 trusted key of CAMBER_TRUSTED_KEYS: keys/other.pub ($other))" \
  env CAMBER_TRUSTED_KEYS=keys/other.pub "$camber" model-info "$model"
# A forged file: the model changed in one byte with its valid signature,
# and (the forger recomputing the digest) a signature over the new digest
# without the key: the first changed after signing, the second forged.
cp "$model" forged.h5 && cp "$model.sig" forged.h5.sig
printf '\x55' | dd of=forged.h5 bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_bad "forged.h5' changed after it was signed" \
  env CAMBER_TRUSTED_KEYS=keys/release.pub "$camber" model-info forged.h5
forged_sha=$(sha256sum forged.h5 | cut -d' ' -f1)
sed -i "s/^sha256 .*/sha256 $forged_sha/" forged.h5.sig
expect_bad "forged.h5': the signature by key $release does not verify" \
  env CAMBER_TRUSTED_KEYS=keys/release.pub "$camber" infer forged.h5 one.csv -o x.csv
# Data sets and training checkpoints pass the same gate, on every rank.
expect_bad "data set 'out/sampled/tiny_samples.h5' is not signed" \
  env CAMBER_TRUSTED_KEYS=keys/release.pub "$mpiexec" -n 2 --oversubscribe "$camber" infer "$model" out/sampled/tiny_samples.h5 -o x.csv
"$camber" sign out/sampled/tiny_samples.h5 -k keys/release.key > /dev/null 2>&1 || { echo "FAIL: signing the data set"; exit 1; }
CAMBER_TRUSTED_KEYS=keys/release.pub "$mpiexec" -n 2 --oversubscribe "$camber" infer "$model" out/sampled/tiny_samples.h5 -o signed.csv > /dev/null 2>&1 ||
  { echo "FAIL: infer with a signed model and data set"; exit 1; }
cmp one.csv signed.csv || { echo "FAIL: the signed files predict otherwise"; exit 1; }
expect_bad "training checkpoint 'out/trained/tiny_surrogate_checkpoint.h5' is not signed" \
  env CAMBER_TRUSTED_KEYS=keys/release.pub "$camber" train longer.yaml --restart --no-timers
# camber export, and ONNX Runtime on the exported file against infer's CSV.
"$camber" export "$model" -o out/tiny.onnx > export.log 2>&1 || { cat export.log; echo "FAIL: camber export failed"; exit 1; }
expect_bad "must end in .onnx" "$camber" export "$model" -o out/tiny.txt
# camber quantize: int8, calibrated on the data set, with the error before and after.
"$camber" quantize "$model" out/sampled/tiny_samples.h5 -o out/int8.h5 > quantize.log 2>&1 ||
  { cat quantize.log; echo "FAIL: camber quantize failed"; exit 1; }
grep -q "quantize: RMSE of CD on 8 rows: .* (float64) -> .* (int8)" quantize.log &&
  grep -q "x smaller" quantize.log || { cat quantize.log; echo "FAIL: no quantization report"; exit 1; }
"$camber" model-info out/int8.h5 | grep -q "int8 weights per output channel" ||
  { echo "FAIL: the int8 model's card"; exit 1; }
"$camber" infer out/int8.h5 out/sampled/tiny_samples.h5 -o int8.csv > /dev/null 2>&1 ||
  { echo "FAIL: infer with the int8 model"; exit 1; }
# The int8 card's validation error is the int8 network's on the float
# model's validation rows (the data set's last ones), not the float one's.
grep -q "quantize: the card's validation RMSE is the int8 network's on the 2 validation rows" quantize.log ||
  { cat quantize.log; echo "FAIL: the int8 card's validation rows"; exit 1; }
"$camber" model-info out/int8.h5 > int8_info.log 2>&1
/usr/bin/python3 - int8.csv out/sampled/tiny_samples.csv int8_info.log <<'PY' || { echo "FAIL: the int8 card's validation RMSE"; exit 1; }
import csv, math, re, sys
pred = [[float(v) for v in r[2:5]] for r in list(csv.reader(open(sys.argv[1])))[1:]]
rows = list(csv.reader(open(sys.argv[2])))[2:]
truth = [[float(v) for v in r[3:6]] for r in rows if r[6] == "1"]
assert len(pred) == len(truth) == 8, (len(pred), len(truth))
want = [math.sqrt(sum((p[k] - t[k]) ** 2 for p, t in zip(pred[-2:], truth[-2:])) / 2) for k in range(3)]
line = [l for l in open(sys.argv[3]) if l.startswith("validation")][0]
got = [float(v) for v in re.findall(r"(?:CL|CD|CM) ([0-9.e+-]+)", line)]
print("int8 card validation RMSE", got, "recomputed from camber infer", want)
sys.exit(0 if len(got) == 3 and all(abs(g - w) <= 1e-3 * w + 1e-12 for g, w in zip(got, want)) else 1)
PY
"$camber" export out/int8.h5 -o out/int8.onnx > /dev/null 2>&1 || { echo "FAIL: export of the int8 model"; exit 1; }
ort_check() {  # ort_check MODEL.onnx PREDICTIONS.csv TYPE TOLERANCE
  /usr/bin/python3 - "$2" "$3" > ort_in.json <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
print(json.dumps({"inputs": {"dims": [len(rows), 2], "data": [float(v) for r in rows for v in r[:2]],
                             "type": sys.argv[2]}}))
PY
  "$CAMBER_ONNX_RUN" "$1" ort_in.json > ort_out.json 2> ort.err || { cat ort.err; echo "FAIL: onnx-run failed on $1"; exit 1; }
  /usr/bin/python3 - "$2" ort_out.json "$4" "$1" <<'PY' || { echo "FAIL: ONNX Runtime disagrees with camber infer on $1"; exit 1; }
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
ours = [float(v) for r in rows for v in r[2:]]
ort = json.load(open(sys.argv[2]))["outputs"]["data"]
err = max(abs(a - b) for a, b in zip(ours, ort)) / max(abs(a) for a in ours)
print(f"ONNX Runtime vs camber infer ({sys.argv[4]}): max relative difference {err:.2e}")
sys.exit(0 if len(ort) == len(ours) and err <= float(sys.argv[3]) else 1)
PY
}
if [[ -n ${CAMBER_ONNX_RUN:-} && -x ${CAMBER_ONNX_RUN:-} ]]; then
  ort_check out/tiny.onnx one.csv float64 1e-10
  ort_check out/int8.onnx int8.csv float32 1e-5
elif [[ -n ${CI:-} ]]; then
  echo "FAIL: onnx-run not available (CAMBER_ONNX_RUN)"; exit 1
fi
# camber serve on a free port; the port is in its first line.
"$camber" serve "$model" --port 0 --read-timeout 2 > serve.log 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "on http://" serve.log && break; sleep 0.1; done
port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\) .*|\1|p' serve.log)
[[ -n $port ]] || { cat serve.log; kill $server; echo "FAIL: camber serve did not start"; exit 1; }
/usr/bin/python3 - "$port" <<'PY' || { kill $server; cat serve.log; echo "FAIL: serve answered wrongly"; exit 1; }
import json, sys, urllib.request, urllib.error
base = f"http://127.0.0.1:{sys.argv[1]}"
def post(body):
    req = urllib.request.Request(base + "/predict", data=body.encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
status, out = post('{"inputs": {"mach": 0.45, "alpha_deg": 1.0}}')
assert status == 200 and set(out["outputs"]) == {"CL", "CD", "CM"}, (status, out)
for bad, code in (('{"inputs": {"mach": 0.45}}', 400), ('{"inputs": {"mach": 0.4, "alpha_deg": 1}, "units": {"alpha_deg": "rad"}}', 400),
                  ('not json', 400), ('{"inputs": {"mach": 0.45, "alpha_deg": 1.0}}' + ' ' * 2000000, 413),
                  ('{"inputs": {"mach": 1.7e308, "alpha_deg": -1.7e308}}', 422)):
    status, out = post(bad)
    assert status == code and "error" in out, (bad[:40], status, out)
    print(f"{code}: {out['error'][:90]}")
card = json.loads(urllib.request.urlopen(base + "/model", timeout=10).read())
assert [c["name"] for c in card["inputs"]] == ["mach", "alpha_deg"], card
# A request is counted after its answer is written (cpp-httplib's
# logger), so the client may read the answer a moment before the count
# moves: wait up to 5 s for it.
import time
for _ in range(50):
    metrics = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
    if 'camber_requests_total{path="/predict",code="413"} 1' in metrics:
        break
    time.sleep(0.1)
assert 'camber_requests_total{path="/predict",code="400"} 3' in metrics, metrics
assert 'camber_requests_total{path="/predict",code="413"} 1' in metrics, metrics
PY
if [[ -n $serve_load ]]; then
  for clients in 1 8; do
    "$serve_load" --port "$port" --clients $clients --requests 400 --seconds 20 > load.log 2>&1 ||
      { cat load.log; kill $server; echo "FAIL: failed requests under load"; exit 1; }
    grep -q "failed 0" load.log || { cat load.log; kill $server; echo "FAIL: no load summary"; exit 1; }
    cat load.log
  done
fi
kill -TERM $server
set +e; wait $server; rc=$?; set -e
[[ $rc == 0 ]] && grep -q "serve: stopped after" serve.log ||
  { cat serve.log; echo "FAIL: camber serve did not stop cleanly on SIGTERM (exit $rc)"; exit 1; }
echo "PASS: 8 flows sampled on 2 ranks, continued after 3 identically, trained on 2 ranks, restarted:"
grep "validation" train.log
grep -A4 "surrogate optimum" optimize.log
echo "model card, infer on 1 and 2 ranks, and 7 damaged inputs (exit code 2) checked"
