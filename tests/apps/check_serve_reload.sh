#!/usr/bin/env bash
# usage: check_serve_reload.sh CAMBER WRITE_TEST_MODELS
# Two models and hot reload under load, in the KServe/Triton v2 protocol:
# camber serve naca@prod wing=m3.h5 while 8 clients send predictions
# without pause (5 to /v2/models/naca/infer, 1 to /predict, 2 to
# /v2/models/wing/infer); in the middle naca@2 is promoted to prod. No
# request may fail; naca's answers change from naca@1's prediction to
# naca@2's (each checked against camber infer on the version's file), each
# v2 answer names the version that computed it, no request started after
# naca@2 first answered gets naca@1, and wing's answers never change. After:
# version 1 is gone (404), the metadata lists version 2, /metrics counts
# each model and version's answers exactly as the clients received them,
# and GET /model names naca@2's file. Latency percentiles before, during
# and after are printed.
set -euo pipefail
camber=$1 writer=$2
work=$(mktemp -d)
server=""
trap '[[ -n $server ]] && kill $server 2> /dev/null; rm -rf "$work"' EXIT
cd "$work"
"$writer" models 3
export CAMBER_REGISTRY=$work/registry
"$camber" models register models/m1.h5 --name naca --stage prod > /dev/null
"$camber" models register models/m2.h5 --name naca > /dev/null
printf 'mach,alpha_deg [deg]\n0.5,1\n' > one.csv
for k in 1 2 3; do
  "$camber" infer "models/m$k.h5" one.csv -o "p$k.csv" > /dev/null 2>&1 || { echo "FAIL: infer m$k"; exit 1; }
done
cl1=$(awk -F, 'NR == 2 {print $3}' p1.csv) cl2=$(awk -F, 'NR == 2 {print $3}' p2.csv)
cl3=$(awk -F, 'NR == 2 {print $3}' p3.csv)
[[ $cl1 != "$cl2" ]] || { echo "FAIL: the two models predict alike"; exit 1; }

# Names that cannot be served, and one name and version twice: exit 2.
bad() {
  local want=$1; shift
  set +e; "$camber" serve "$@" --port 0 > bad.log 2>&1; local rc=$?; set -e
  [[ $rc == 2 ]] && grep -q "$want" bad.log || { cat bad.log; echo "FAIL: serve $* gave exit $rc"; exit 1; }
}
bad "'a b' is no model name" "a b=models/m1.h5"
bad "model m1 version 1 is given twice" models/m1.h5 models/m1.h5
bad "model naca version 1 is given twice" naca@1 naca@prod
bad "naca@9" naca@9

"$camber" serve naca@prod wing=models/m3.h5 --port 0 --reload-ms 100 > serve.log 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "on http://" serve.log && break; sleep 0.1; done
port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\) .*|\1|p' serve.log)
[[ -n $port ]] || { cat serve.log; echo "FAIL: camber serve did not start"; exit 1; }

/usr/bin/python3 - "$port" "$cl1" "$cl2" "$cl3" "$camber" <<'PY' || { cat serve.log; echo "FAIL: hot reload under load"; exit 1; }
import http.client, json, os, re, subprocess, sys, threading, time
port, cl1, cl2, cl3, camber = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
legacy = json.dumps({"inputs": {"mach": 0.5, "alpha_deg": 1.0}})
v2 = json.dumps({"id": "r", "inputs": [
    {"name": "mach", "shape": [1], "datatype": "FP64", "data": [0.5]},
    {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1.0], "parameters": {"unit": "deg"}}],
    "outputs": [{"name": "CL"}]})
records, wing, failures, lock = [], [], [], threading.Lock()
stop = threading.Event()
def call(c, path, body):
    c.request("POST", path, body, {"Content-Type": "application/json"})
    r = c.getresponse(); data = r.read()
    if r.status != 200: raise RuntimeError(f"{path}: status {r.status}: {data[:200]}")
    return json.loads(data)
def client(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            if path == "/predict":
                cl, version = call(c, path, legacy)["outputs"]["CL"], None
            else:
                doc = call(c, path, v2)
                out = doc["outputs"]
                if doc.get("id") != "r" or len(out) != 1 or out[0]["name"] != "CL" or out[0]["shape"] != [1]:
                    raise RuntimeError(f"{path}: unexpected answer {doc}")
                cl, version = out[0]["data"][0], doc["model_version"]
            t1 = time.monotonic()
            with lock: (wing if "wing" in path else records).append((t0, t1 - t0, cl, version))
        except Exception as e:
            with lock: failures.append(repr(e))
            c.close(); c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
paths = ["/v2/models/naca/infer"] * 5 + ["/predict"] + ["/v2/models/wing/infer"] * 2
threads = [threading.Thread(target=client, args=(p,)) for p in paths]
for t in threads: t.start()
time.sleep(2.0)
t_promote = time.monotonic()
subprocess.run([camber, "models", "promote", "naca@2", "prod"], check=True, capture_output=True)
def close(a, b): return abs(a - b) <= 1e-12 * max(1.0, abs(b))
# Until naca@2 answers (the reload looks every 0.1 s; at most 20 s), then 1 s more.
for _ in range(400):
    with lock:
        if any(close(cl, cl2) for _, _, cl, _ in records): break
    time.sleep(0.05)
time.sleep(1.0)
stop.set()
for t in threads: t.join()
n1 = sum(close(cl, cl1) for _, _, cl, _ in records); n2 = sum(close(cl, cl2) for _, _, cl, _ in records)
other = len(records) - n1 - n2
# Each v2 answer names the version that computed it.
mislabelled = sum(1 for _, _, cl, v in records if v is not None and not
                  ((v == "1" and close(cl, cl1)) or (v == "2" and close(cl, cl2))))
wing_wrong = sum(1 for _, _, cl, _ in wing if not close(cl, cl3))
# When naca@2 first answered; no request started after that may get naca@1.
first2 = min((t + d for t, d, cl, _ in records if close(cl, cl2)), default=None)
late1 = sum(1 for t, _, cl, _ in records if close(cl, cl1) and first2 is not None and t > first2)
def pct(xs, q):
    xs = sorted(xs); return 1e3 * xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")
switch = first2 if first2 is not None else t_promote
every = records + wing
phases = {"before (naca@1)": [d for t, d, _, _ in every if t < t_promote],
          "during (promotion to 0.5 s after the switch)": [d for t, d, _, _ in every if t_promote <= t < switch + 0.5],
          "after (naca@2)": [d for t, d, _, _ in every if t >= switch + 0.5]}
for name, ds in phases.items():
    print(f"{name}: {len(ds)} requests, p50 {pct(ds, 0.5):.2f} ms, p99 {pct(ds, 0.99):.2f} ms, max {pct(ds, 1.0):.2f} ms")
print(f"naca: {len(records)} answered, {len(failures)} failed (both models); {n1} by naca@1, {n2} by naca@2, "
      f"{other} by neither, {mislabelled} naming another version; wing: {len(wing)} answered, {wing_wrong} wrong")
if failures: print("failures:", failures[:3])
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path); r = c.getresponse(); return r.status, r.read().decode()
status, meta = get("/v2/models/naca")
meta_ok = status == 200 and json.loads(meta)["versions"] == ["2"] and [t["name"] for t in json.loads(meta)["inputs"]] == ["mach", "alpha_deg"]
gone = get("/v2/models/naca/versions/1")[0] == 404 and get("/v2/models/naca/versions/2/ready")[0] == 200
ready = get("/v2/health/ready")[0] == 200
metrics = get("/metrics")[1]
def served(model, version):
    m = re.search(r'camber_model_requests_total\{model="%s",version="%s",code="200"\} (\d+)' % (model, version), metrics)
    return int(m.group(1)) if m else 0
counted = (served("naca", "1"), served("naca", "2"), served("wing", "1"))
received = (n1, n2, len(wing))
loaded = ('camber_model_loaded{model="naca",version="1"} 0' in metrics and
          'camber_model_loaded{model="naca",version="2"} 1' in metrics)
print(f"/metrics counts naca@1, naca@2, wing: {counted}; the clients received {received}; "
      f"metadata {'ok' if meta_ok else meta}, version 1 gone and 2 ready: {gone}, ready: {ready}, loaded gauges: {loaded}")
ok = (not failures and other == 0 and mislabelled == 0 and wing_wrong == 0 and len(wing) > 0 and n1 > 0
      and n2 > 0 and late1 == 0 and first2 is not None and first2 > t_promote and meta_ok and gone and ready
      and counted == received and loaded)
if first2 is not None:
    print(f"naca@2 answered {first2 - t_promote:.3f} s after the promotion began "
          f"(camber models promote, a process, included); {late1} requests started after that got naca@1")
sys.exit(0 if ok else 1)
PY
curl -s "http://127.0.0.1:$port/model" | grep -q "\"model_sha256\":\"$(grep -a '^sha256 ' models/m2.h5 | head -1 | cut -d' ' -f2)\"" ||
  { curl -s "http://127.0.0.1:$port/model"; echo "FAIL: GET /model does not name naca@2's file"; exit 1; }
grep -q "serve: naca@prod is now version 2 (.*blobs/" serve.log || { cat serve.log; echo "FAIL: no reload logged"; exit 1; }
kill -TERM $server
set +e; wait $server; rc=$?; set -e
server=""
[[ $rc == 0 ]] || { cat serve.log; echo "FAIL: camber serve did not stop cleanly (exit $rc)"; exit 1; }
echo "PASS: two models served, naca promoted under load, no failed request, answers from naca@1 then naca@2, counted per version"
