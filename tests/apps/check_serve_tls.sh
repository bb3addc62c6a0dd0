#!/usr/bin/env bash
# usage: check_serve_tls.sh CAMBER WRITE_TEST_MODELS
# camber serve over HTTPS with bearer tokens. A test CA signs a certificate
# for 127.0.0.1 (openssl); a client trusting that CA is served, one trusting
# another CA fails the handshake (curl's exit code 60). camber token add
# prints a token once and the tokens file keeps its SHA-256 only (checked
# with sha256sum); a request without a token or with an unknown one gets
# 401, with a revoked one 403, both with a JSON error; GET /health stays
# open. Bad TLS files and a taken token name exit 2 naming them.
set -euo pipefail
camber=$1 writer=$2
work=$(mktemp -d)
server=""
trap '[[ -n $server ]] && kill $server 2> /dev/null; rm -rf "$work"' EXIT
cd "$work"
"$writer" models 1
expect_bad() {  # expect_bad PATTERN COMMAND...: exit code 2 and PATTERN in the output
  local pattern=$1; shift
  set +e; "$@" > bad.log 2>&1; local rc=$?; set -e
  [[ $rc == 2 ]] && grep -q "$pattern" bad.log || { cat bad.log; echo "FAIL: '$*' gave $rc, not 2 with '$pattern'"; exit 1; }
}
quiet() { "$@" > /dev/null 2>&1 || { echo "FAIL: '$*' failed"; exit 1; }; }
quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=camber test CA"
quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 2 -subj "/CN=another CA"
quiet openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1"
printf 'subjectAltName=IP:127.0.0.1\n' > san.ext
quiet openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext

alice=$("$camber" token add alice --tokens tokens.txt 2> /dev/null)
bob=$("$camber" token add bob --tokens tokens.txt 2> /dev/null)
[[ $alice =~ ^cbr_[0-9a-f]{64}$ && $bob =~ ^cbr_[0-9a-f]{64}$ && $alice != "$bob" ]] ||
  { echo "FAIL: tokens '$alice' '$bob'"; exit 1; }
quiet "$camber" token revoke bob --tokens tokens.txt
grep -q "${alice#cbr_}" tokens.txt && { echo "FAIL: the tokens file holds a token"; exit 1; }
grep -qx "$(printf '%s' "$alice" | sha256sum | cut -d' ' -f1) alice active" tokens.txt &&
  grep -qx "$(printf '%s' "$bob" | sha256sum | cut -d' ' -f1) bob revoked" tokens.txt ||
  { cat tokens.txt; echo "FAIL: the tokens file does not hold the tokens' SHA-256"; exit 1; }
expect_bad "'alice' exists in tokens.txt" "$camber" token add alice --tokens tokens.txt
expect_bad "no token named 'carol'" "$camber" token revoke carol --tokens tokens.txt
expect_bad "cannot use the TLS certificate 'server.pem' with the key 'other.key'" \
  "$camber" serve models/m1.h5 --port 0 --tls-cert server.pem --tls-key other.key
expect_bad "TLS needs both a certificate and a private key" \
  "$camber" serve models/m1.h5 --port 0 --tls-cert server.pem

"$camber" serve models/m1.h5 --port 0 --tls-cert server.pem --tls-key server.key \
  --tokens tokens.txt --reload-ms 100 > serve.log 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "on https://" serve.log && break; sleep 0.1; done
port=$(sed -n 's|.* on https://127.0.0.1:\([0-9]*\) .*|\1|p' serve.log)
[[ -n $port ]] || { cat serve.log; echo "FAIL: camber serve did not start on https"; exit 1; }
url=https://127.0.0.1:$port
code() { curl -s -o body.json -w '%{http_code}' --cacert ca.pem "$@" || true; }
body='{"inputs": {"mach": 0.5, "alpha_deg": 1.0}}'
check() {  # check WANT_CODE BODY_PATTERN CURL_ARGS...
  local want=$1 pattern=$2; shift 2
  local got; got=$(code "$@")
  [[ $got == "$want" ]] && grep -q "$pattern" body.json ||
    { cat body.json; echo "FAIL: curl $* gave $got, not $want with '$pattern'"; exit 1; }
}
check 200 '"status":"ok"' "$url/health"
set +e; curl -s --cacert other.pem "$url/health" > /dev/null 2>&1; rc=$?; set -e
[[ $rc == 60 ]] || { echo "FAIL: a client trusting another CA got curl exit $rc, not 60"; exit 1; }
check 401 '"error":"a bearer token is required' -X POST -d "$body" "$url/predict"
check 401 '"error":"the bearer token is not known"' -H "Authorization: Bearer cbr_0123" -X POST -d "$body" "$url/predict"
check 403 '"error":"the bearer token was revoked"' -H "Authorization: Bearer $bob" -X POST -d "$body" "$url/predict"
check 200 '"CL"' -H "Authorization: Bearer $alice" -X POST -d "$body" "$url/predict"
check 401 '"error"' "$url/metrics"
check 200 'camber_' -H "Authorization: Bearer $alice" "$url/metrics"
# The v2 protocol's health checks are open, its model endpoints are not.
check 200 '"ready":true' "$url/v2/health/ready"
check 401 '"error":"a bearer token is required' -X POST -d "$body" "$url/v2/models/m1/infer"
check 200 '"name":"m1"' -H "Authorization: Bearer $alice" "$url/v2/models/m1"
# Tokens added and revoked while the server runs take effect without a
# restart (the file is read again within --reload-ms).
dave=$("$camber" token add dave --tokens tokens.txt 2> /dev/null)
quiet "$camber" token revoke alice --tokens tokens.txt
t_revoke=$(date +%s%N)
for _ in $(seq 100); do
  [[ $(code -H "Authorization: Bearer $alice" -X POST -d "$body" "$url/predict") == 403 ]] && break
  sleep 0.05
done
revoke_ms=$(( ($(date +%s%N) - t_revoke) / 1000000 ))
check 403 '"error":"the bearer token was revoked"' -H "Authorization: Bearer $alice" -X POST -d "$body" "$url/predict"
check 200 '"CL"' -H "Authorization: Bearer $dave" -X POST -d "$body" "$url/predict"
grep -q "serve: tokens reloaded from tokens.txt (1 active, 2 revoked)" serve.log ||
  { cat serve.log; echo "FAIL: the tokens reload was not logged"; exit 1; }
kill -TERM $server
set +e; wait $server; rc=$?; set -e
server=""
[[ $rc == 0 ]] || { cat serve.log; echo "FAIL: camber serve did not stop cleanly (exit $rc)"; exit 1; }
# A rate limit per token: 5 requests/s in bursts of 5. dave's 20 quick
# requests get 200 for the burst and at most 5 + 5 x (the seconds they took) + 1
# of them, and 429 (Retry-After, JSON) for the rest; carol's bucket is her own.
carol=$("$camber" token add carol --tokens tokens.txt 2> /dev/null)
expect_bad "a rate limit per token needs bearer tokens" "$camber" serve models/m1.h5 --port 0 --rate-limit 5
"$camber" serve models/m1.h5 --port 0 --tls-cert server.pem --tls-key server.key \
  --tokens tokens.txt --rate-limit 5 --rate-burst 5 > serve2.log 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "on https://" serve2.log && break; sleep 0.1; done
port=$(sed -n 's|.* on https://127.0.0.1:\([0-9]*\) .*|\1|p' serve2.log)
[[ -n $port ]] || { cat serve2.log; echo "FAIL: the rate-limited server did not start"; exit 1; }
url=https://127.0.0.1:$port
t0=$(date +%s%N)
ok=0 limited=0
for _ in $(seq 20); do
  case $(code -D headers.txt -H "Authorization: Bearer $dave" -X POST -d "$body" "$url/predict") in
    200) ok=$((ok + 1)) ;;
    429) limited=$((limited + 1))
         grep -qi "^retry-after: [0-9]" headers.txt && grep -q "rate limit of 5 requests/s for token 'dave'" body.json ||
           { cat headers.txt body.json; echo "FAIL: a 429 without Retry-After or its JSON error"; exit 1; } ;;
    *) cat body.json; echo "FAIL: neither 200 nor 429 under the rate limit"; exit 1 ;;
  esac
done
elapsed_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
(( limited > 0 && ok >= 5 && ok * 1000 <= 5000 + 5 * elapsed_ms + 1000 )) ||
  { echo "FAIL: $ok answered and $limited limited in $elapsed_ms ms at 5/s, burst 5"; exit 1; }
check 200 '"CL"' -H "Authorization: Bearer $carol" -X POST -d "$body" "$url/predict"
kill -TERM $server
set +e; wait $server; rc=$?; set -e
server=""
[[ $rc == 0 ]] || { cat serve2.log; echo "FAIL: the rate-limited server did not stop cleanly"; exit 1; }
echo "PASS: HTTPS with the right CA only; 401, 401, 403 and 200 by token; /health open;" \
     "a revocation took effect after $revoke_ms ms without a restart;" \
     "rate limit: $ok of 20 answered and $limited limited in $elapsed_ms ms at 5/s, burst 5"
