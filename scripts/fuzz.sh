#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (Clang 14, AddressSanitizer and
# UBSan, against Camber installed from build/) and runs each for a while.
#
#   bash scripts/fuzz.sh [SECONDS [TARGET...]]   # per target, default 20
#
# Targets: fuzz_request (the server's request parser; seeds in
# fuzz/corpus/request), fuzz_model_file (the model-file loader on raw
# bytes), fuzz_signature (the signature gate; seeds in
# fuzz/corpus/signature), fuzz_registry (the registry's index file and
# references; a real index as the seed) and fuzz_connection (a running
# server, any bytes on one connection; seeds in fuzz/corpus/connection),
# run by default; fuzz_model_content (the loader on bytes given a
# correct header, so they reach HDF5; seeds for both written by
# make_model_seeds) only when named: it finds HDF5 1.10.8's own memory
# errors on corrupt files within a minute (docs/deployment.md).
# New inputs the fuzzer finds stay in build-fuzz/corpus, crashes in
# build-fuzz/artifacts. FUZZ_SEED fixes libFuzzer's seed (0: random).
# Exit code 1 if a target finds a crash, a leak or a
# hang (a run over 10 s). Needs build/ built (scripts/build.sh) and Debian's
# clang-14 and libfuzzer-14-dev (scripts/setup-debian.sh installs them).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CAMBER_BUILD_DIR:-$root/build}
seconds=${1:-20}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_request fuzz_model_file fuzz_signature fuzz_registry fuzz_connection)
work=$root/build-fuzz
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

command -v clang++-14 > /dev/null || { echo "fuzz: clang++-14 missing (scripts/setup-debian.sh)"; exit 2; }
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
cmake -S "$root/fuzz" -B "$work/build" -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCamber_DIR="$work/prefix/lib/cmake/Camber" \
  > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j "${CAMBER_JOBS:-2}" > "$work/build.log" 2>&1 ||
  { tail -50 "$work/build.log"; exit 1; }

mkdir -p "$work/corpus/request" "$work/corpus/model_file" "$work/corpus/model_content" \
  "$work/corpus/signature" "$work/corpus/registry" "$work/corpus/connection" "$work/artifacts"
"$work/build/make_model_seeds" "$work/corpus/model_file" > /dev/null
"$work/build/make_model_seeds" "$work/corpus/model_content" --content > /dev/null
cp "$root"/fuzz/corpus/model_file/* "$work/corpus/model_file/"
# A real registry index (two versions, one in prod) as the registry
# target's seed, written by the camber built here.
seed_registry=$work/seed_registry
rm -rf "$seed_registry" && mkdir -p "$work/corpus/registry_seed"
registered=0
for m in "$work"/corpus/model_content/* "$work"/corpus/model_file/*; do
  (( registered < 2 )) || break
  stage=dev; (( registered == 1 )) && stage=prod
  CAMBER_REGISTRY=$seed_registry "$build/bin/camber" -q models register "$m" --name naca --stage "$stage" \
    > /dev/null 2>&1 && registered=$((registered + 1))
done
(( registered == 2 )) && { printf 'naca@prod\n'; cat "$seed_registry/index.sqlite"; } > "$work/corpus/registry_seed/index" ||
  echo "fuzz: no registry seed (camber models register failed)"

status=0
for target in "${targets[@]}"; do
  corpus=$work/corpus/${target#fuzz_}
  seeds=()
  [[ $target == fuzz_request ]] && seeds=("$root/fuzz/corpus/request")
  [[ $target == fuzz_signature ]] && seeds=("$root/fuzz/corpus/signature")
  [[ $target == fuzz_connection ]] && seeds=("$root/fuzz/corpus/connection")
  [[ $target == fuzz_registry && -d $work/corpus/registry_seed ]] && seeds=("$work/corpus/registry_seed")
  log=$work/$target.log
  # HDF5's own leaks on corrupt files are suppressed for the model targets
  # (fuzz/hdf5_leaks.supp says why). libFuzzer's comparison tracing learns
  # the SHA-256 the loader compares with and writes it into the header, so
  # fuzz_model_file too reaches HDF5 with corrupt content now and then;
  # FUZZ_CI=1 (the short CI run) turns that tracing off for it, so those
  # seconds go to our own header checks rather than HDF5's known bugs.
  # An allocation HDF5 sizes from corrupt metadata fails (NULL, as malloc
  # does outside the sanitizer) instead of aborting the run.
  lsan="" asan="detect_leaks=1" extra=()
  [[ $target == fuzz_model_* ]] && lsan="suppressions=$root/fuzz/hdf5_leaks.supp" &&
    asan="detect_leaks=1:allocator_may_return_null=1"
  [[ $target == fuzz_model_file && -n ${FUZZ_CI:-} ]] && extra=(-use_cmp=0)
  if ASAN_OPTIONS=$asan LSAN_OPTIONS=$lsan UBSAN_OPTIONS=print_stacktrace=1 \
     "$work/build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -artifact_prefix="$work/artifacts/$target-" -print_final_stats=1 -seed="${FUZZ_SEED:-0}" \
       "${extra[@]}" \
       "$corpus" "${seeds[@]}" > "$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    echo "fuzz: $target: $runs inputs in ${seconds} s, no crash, leak or hang (coverage $cov edges)"
  else
    echo "fuzz: $target FAILED:"
    grep -E "ERROR|SUMMARY|Test unit written|==[0-9]+==" "$log" | head -20
    status=1
  fi
done
exit $status
