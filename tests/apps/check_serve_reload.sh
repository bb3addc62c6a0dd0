#!/usr/bin/env bash
# usage: check_serve_reload.sh CAMBER WRITE_TEST_MODELS
# Hot reload under load: camber serve naca@prod while 8 clients send
# predictions without pause; in the middle naca@2 is promoted to prod. No
# request may fail; the answers change from naca@1's prediction to naca@2's
# (each checked against camber infer on the version's file), and no request
# started after naca@2 first answered gets naca@1; GET /model names naca@2's
# file after. Latency percentiles before, during and after are printed.
set -euo pipefail
camber=$1 writer=$2
work=$(mktemp -d)
server=""
trap '[[ -n $server ]] && kill $server 2> /dev/null; rm -rf "$work"' EXIT
cd "$work"
"$writer" models 2
export CAMBER_REGISTRY=$work/registry
"$camber" models register models/m1.h5 --name naca --stage prod > /dev/null
"$camber" models register models/m2.h5 --name naca > /dev/null
printf 'mach,alpha_deg [deg]\n0.5,1\n' > one.csv
for k in 1 2; do
  "$camber" infer "models/m$k.h5" one.csv -o "p$k.csv" > /dev/null 2>&1 || { echo "FAIL: infer m$k"; exit 1; }
done
cl1=$(awk -F, 'NR == 2 {print $3}' p1.csv) cl2=$(awk -F, 'NR == 2 {print $3}' p2.csv)
[[ $cl1 != "$cl2" ]] || { echo "FAIL: the two models predict alike"; exit 1; }

"$camber" serve naca@prod --port 0 --reload-ms 100 > serve.log 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "on http://" serve.log && break; sleep 0.1; done
port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\) .*|\1|p' serve.log)
[[ -n $port ]] || { cat serve.log; echo "FAIL: camber serve did not start"; exit 1; }

/usr/bin/python3 - "$port" "$cl1" "$cl2" "$camber" <<'PY' || { cat serve.log; echo "FAIL: hot reload under load"; exit 1; }
import http.client, json, os, subprocess, sys, threading, time
port, cl1, cl2, camber = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
body = json.dumps({"inputs": {"mach": 0.5, "alpha_deg": 1.0}})
records, failures, lock = [], [], threading.Lock()
stop = threading.Event()
def client():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            c.request("POST", "/predict", body, {"Content-Type": "application/json"})
            r = c.getresponse(); data = r.read()
            t1 = time.monotonic()
            if r.status != 200: raise RuntimeError(f"status {r.status}: {data[:200]}")
            cl = json.loads(data)["outputs"]["CL"]
            with lock: records.append((t0, t1 - t0, cl))
        except Exception as e:
            with lock: failures.append(repr(e))
            c.close(); c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
threads = [threading.Thread(target=client) for _ in range(8)]
for t in threads: t.start()
time.sleep(2.0)
t_promote = time.monotonic()
subprocess.run([camber, "models", "promote", "naca@2", "prod"], check=True, capture_output=True)
def close(a, b): return abs(a - b) <= 1e-12 * max(1.0, abs(b))
# Until naca@2 answers (the reload looks every 0.1 s; at most 20 s), then 1 s more.
for _ in range(400):
    with lock:
        if any(close(cl, cl2) for _, _, cl in records): break
    time.sleep(0.05)
time.sleep(1.0)
stop.set()
for t in threads: t.join()
n1 = sum(close(cl, cl1) for _, _, cl in records); n2 = sum(close(cl, cl2) for _, _, cl in records)
other = len(records) - n1 - n2
# When naca@2 first answered; no request started after that may get naca@1.
first2 = min((t + d for t, d, cl in records if close(cl, cl2)), default=None)
late1 = sum(1 for t, _, cl in records if close(cl, cl1) and first2 is not None and t > first2)
def pct(xs, q):
    xs = sorted(xs); return 1e3 * xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")
switch = first2 if first2 is not None else t_promote
phases = {"before (naca@1)": [d for t, d, _ in records if t < t_promote],
          "during (promotion to 0.5 s after the switch)": [d for t, d, _ in records if t_promote <= t < switch + 0.5],
          "after (naca@2)": [d for t, d, _ in records if t >= switch + 0.5]}
for name, ds in phases.items():
    print(f"{name}: {len(ds)} requests, p50 {pct(ds, 0.5):.2f} ms, p99 {pct(ds, 0.99):.2f} ms, max {pct(ds, 1.0):.2f} ms")
print(f"{len(records)} answered, {len(failures)} failed; {n1} by naca@1, {n2} by naca@2, {other} by neither")
if failures: print("failures:", failures[:3])
ok = (not failures and other == 0 and n1 > 0 and n2 > 0 and late1 == 0 and first2 is not None
      and first2 > t_promote)
if first2 is not None:
    print(f"naca@2 answered {first2 - t_promote:.3f} s after the promotion began "
          f"(camber models promote, a process, included); {late1} requests started after that got naca@1")
sys.exit(0 if ok else 1)
PY
curl -s "http://127.0.0.1:$port/model" | grep -q "\"model_sha256\":\"$(grep -a '^sha256 ' models/m2.h5 | head -1 | cut -d' ' -f2)\"" ||
  { curl -s "http://127.0.0.1:$port/model"; echo "FAIL: GET /model does not name naca@2's file"; exit 1; }
grep -q "serve: naca@prod is now .*blobs/" serve.log || { cat serve.log; echo "FAIL: no reload logged"; exit 1; }
kill -TERM $server
set +e; wait $server; rc=$?; set -e
server=""
[[ $rc == 0 ]] || { cat serve.log; echo "FAIL: camber serve did not stop cleanly (exit $rc)"; exit 1; }
echo "PASS: promoted under load, no failed request, answers from naca@1 then naca@2"
