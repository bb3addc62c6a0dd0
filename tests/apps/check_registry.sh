#!/usr/bin/env bash
# usage: check_registry.sh CAMBER WRITE_TEST_MODELS
# camber models: register, list, show, promote, diff and remove through the
# command line; a registry reference (NAME@VERSION, NAME@STAGE) wherever a
# model file goes (model-info, infer: the same predictions as the file;
# quantize: the size of the file the reference names);
# bad references exit 2 saying what the registry has; a forged .sig is
# never stored or reported, and a long name keeps the list's columns
# apart. Then kill -9 at
# random instants during registrations and promotions: afterwards the index
# opens, every entry's file is there with the SHA-256 it is stored under
# (sha256sum, an outside reference), each name has at most one version in
# prod, and nothing committed before a kill is lost.
set -euo pipefail
camber=$1 writer=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$writer" models 3
export CAMBER_REGISTRY=$work/registry
expect_bad() {  # expect_bad PATTERN COMMAND...: exit code 2 and PATTERN in the output
  local pattern=$1; shift
  set +e; "$@" > bad.log 2>&1; local rc=$?; set -e
  [[ $rc == 2 ]] && grep -q "$pattern" bad.log || { cat bad.log; echo "FAIL: '$*' gave $rc, not 2 with '$pattern'"; exit 1; }
}
ok() {  # ok PATTERN COMMAND...: exit code 0 and PATTERN in the output
  local pattern=$1; shift
  "$@" > ok.log 2>&1 || { cat ok.log; echo "FAIL: '$*' failed"; exit 1; }
  grep -q "$pattern" ok.log || { cat ok.log; echo "FAIL: '$*' does not say '$pattern'"; exit 1; }
}
ok "registered naca@1 (dev), sha256 $(sha256sum models/m1.h5 | cut -d' ' -f1), unsigned" \
  "$camber" models register models/m1.h5 --name naca
ok "registered naca@2 (staging)" "$camber" models register models/m2.h5 --name naca --stage staging
ok "registered naca@1 (dev)" "$camber" models register models/m1.h5 --name naca   # the same file
ok "promoted naca@2: staging -> prod" "$camber" models promote naca@2 prod
ok "naca@2  (prod)" "$camber" models show naca@prod
ok "epochs: 1" "$camber" models show naca@1
[[ $("$camber" models list naca | grep -c "^naca@") == 2 ]] || { echo "FAIL: not 2 versions listed"; exit 1; }
ok "    + .*epochs: 2" "$camber" models diff naca@1 naca@prod
ok "CL: 0.001 -> 0.0005 (-50%)" "$camber" models diff naca@1 naca@2
# A reference wherever a model file goes.
ok "^epochs  *2$" "$camber" model-info naca@prod
printf 'mach,alpha_deg [deg]\n0.5,1\n0.7,2.5\n' > in.csv
"$camber" infer naca@prod in.csv -o by_ref.csv > /dev/null 2>&1 &&
  "$camber" infer models/m2.h5 in.csv -o by_file.csv > /dev/null 2>&1 || { echo "FAIL: infer"; exit 1; }
cmp by_ref.csv by_file.csv || { echo "FAIL: naca@prod predicts otherwise than its file"; exit 1; }
# quantize measures the file a reference names (the size before and after).
ok "quantize: file $(stat -c %s models/m2.h5) -> [0-9]* bytes" \
  "$camber" quantize naca@prod models/data.h5 -o int8.h5
expect_bad "has no naca@7. it has naca@1 (dev), naca@2 (prod)" "$camber" models promote naca@7 prod
expect_bad "naca@2 is in prod. promote another version to prod first" "$camber" models remove naca@2
expect_bad "has no naca@9" "$camber" model-info naca@9
expect_bad "'beta' is neither a version nor a stage" "$camber" infer naca@beta in.csv -o x.csv
expect_bad "give NAME@VERSION" "$camber" models remove naca
ok "removed naca@1" "$camber" models remove naca@1

# A .sig with a real key's id and forged bytes: without trusted keys the
# version is registered unsigned and the .sig is not stored; with the key
# trusted it is refused naming the file, and the genuine .sig then makes
# the same content signed, its stored .sig verifying.
ok "keygen: key" "$camber" keygen keys/release
id=$(awk '$1 == "id" {print $2}' keys/release.pub)
cp models/m1.h5 forged.h5
ok "sign: models/m1.h5.sig" "$camber" sign models/m1.h5 -k keys/release.key
sed "s/^signature .*/signature $(printf '7%.0s' {1..128})/" models/m1.h5.sig > forged.h5.sig
sha=$(sha256sum forged.h5 | cut -d' ' -f1)
ok "registered forged@1 (dev), sha256 $sha, unsigned (forged.h5.sig not verified" \
  "$camber" models register forged.h5 --name forged
[[ ! -e registry/blobs/$sha.h5.sig ]] || { echo "FAIL: an unverified .sig was stored"; exit 1; }
"$camber" models list forged | grep -q "^forged@1 .* - " || { echo "FAIL: forged@1 listed as signed"; exit 1; }
export CAMBER_TRUSTED_KEYS=keys/release.pub
expect_bad "forged.h5.*does not verify" "$camber" models register forged.h5 --name forged
cp models/m1.h5.sig forged.h5.sig
ok "registered forged@1 (dev), sha256 $sha, signed by key $id" "$camber" models register forged.h5 --name forged
ok "is signed by key $id" "$camber" verify "registry/blobs/$sha.h5"
ok "^epochs" "$camber" model-info forged@1
unset CAMBER_TRUSTED_KEYS
ok "removed forged@1" "$camber" models remove forged@1

# The longest name a registry takes: the list's columns stay apart.
long=$(printf 'n%.0s' {1..64})
ok "registered $long@1" "$camber" models register models/m3.h5 --name "$long"
"$camber" models list > list.log 2>&1
awk 'NR == 1 { col = index($0, "stage"); next }
     /@[0-9]/ { if (substr($0, col - 1) !~ /^ (dev|staging|prod|archived) /) bad = 1 }
     END { exit bad }' list.log || { cat list.log; echo "FAIL: models list columns run together"; exit 1; }
ok "removed $long@1" "$camber" models remove "$long@1"

# kill -9 at random instants. A large model (two hidden layers of 1,500:
# 18 MB) makes a registration last long enough to be hit: each kill comes
# at a random instant between the start-up of camber (measured) and the end
# of a registration (measured). Each attempt runs in a session of its own.
"$writer" big 1 1500
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t=$(ms); "$camber" --version > /dev/null 2>&1; startup=$(( $(ms) - t ))
t=$(ms); "$camber" models register big/m1.h5 --name timing > /dev/null 2>&1; whole=$(( $(ms) - t ))
(( whole > startup + 10 )) || whole=$(( startup + 10 ))
consistent() {
  "$camber" models list > list.log 2>&1 || { cat list.log; echo "FAIL: the index does not open after a kill"; exit 1; }
  for f in registry/blobs/*.h5; do
    [[ $(sha256sum "$f" | cut -d' ' -f1).h5 == "$(basename "$f")" ]] ||
      { echo "FAIL: $f is not the file of its SHA-256 after a kill"; exit 1; }
  done
  for sha in $(awk '/^[a-z0-9_.-]+@[0-9]+ / {print $4}' list.log); do
    compgen -G "registry/blobs/$sha*.h5" > /dev/null ||
      { cat list.log; echo "FAIL: an entry's file ($sha...) is missing after a kill"; exit 1; }
  done
  [[ $(grep -c "^naca@[0-9]* *prod " list.log) == 1 ]] ||
    { cat list.log; echo "FAIL: naca has not exactly one version in prod after a kill"; exit 1; }
}
"$camber" models register models/m3.h5 --name naca > /dev/null 2>&1   # naca@3
# Until 3 registrations were cut before their commit (and 12 attempts at
# least, 80 at most): how long start-up takes varies with the machine's load.
killed=0 cut_short=0 attempts=0
lo=$(( startup * 8 / 10 )) hi=$(( whole * 12 / 10 ))
while (( attempts < 80 && (cut_short < 3 || attempts < 12) )); do
  attempts=$((attempts + 1))
  if (( attempts % 2 )); then
    setsid "$camber" models register big/m1.h5 --name "kill$attempts" > /dev/null 2>&1 &
  else
    setsid "$camber" models promote "naca@$(( attempts % 4 ? 3 : 2 ))" prod > /dev/null 2>&1 &
  fi
  pid=$!
  delay=$(( lo + RANDOM % (hi - lo) ))
  sleep "$(( delay / 1000 )).$(printf '%03d' $(( delay % 1000 )))"
  pkill -KILL -s "$pid" 2> /dev/null && killed=$((killed + 1)) || true
  wait "$pid" 2> /dev/null || true
  consistent
  (( attempts % 2 )) && ! grep -q "^kill$attempts@1 " list.log && cut_short=$((cut_short + 1))
done
(( cut_short > 0 )) || { echo "FAIL: no kill landed before a registration committed"; exit 1; }
# What was committed before the kills is there.
"$camber" models show naca@2 > /dev/null 2>&1 && "$camber" models show naca@3 > /dev/null 2>&1 ||
  { echo "FAIL: a version committed before the kills is gone"; exit 1; }
echo "PASS: registry commands and references; $killed of $attempts registrations and promotions killed" \
     "($cut_short registrations cut before their commit; start-up ${startup} ms, a registration ${whole} ms)," \
     "the index consistent after each"
