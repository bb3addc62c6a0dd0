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
# references; a real index as the seed), fuzz_tokens (the server's tokens
# file and an Authorization header; seeds in fuzz/corpus/tokens),
# fuzz_cgns (the CGNS readers, structure-aware: the bytes describe a mesh
# that libcgns writes, then read back by the serial and the chunk reader)
# and fuzz_connection (a running server, any bytes on one connection;
# seeds in fuzz/corpus/connection),
# run by default; fuzz_model_content (the loader on bytes given a
# correct header, so they reach HDF5; seeds for both written by
# make_model_seeds) and fuzz_cgns_file (the CGNS readers on raw bytes,
# seeded with meshes make_cgns_seeds writes and the small .cgns files of
# /work/shared/data/meshes) only when named: they reach HDF5's (and
# ADF's) own parsers, whose memory errors on corrupt files are not ours
# (docs/deployment.md).
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
[[ ${#targets[@]} -gt 0 ]] ||
  targets=(fuzz_request fuzz_model_file fuzz_signature fuzz_registry fuzz_tokens fuzz_cgns fuzz_connection)
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
  "$work/corpus/signature" "$work/corpus/registry" "$work/corpus/tokens" "$work/corpus/cgns" \
  "$work/corpus/cgns_file" "$work/corpus/connection" "$work/artifacts"
"$work/build/make_model_seeds" "$work/corpus/model_file" > /dev/null
"$work/build/make_cgns_seeds" "$work/corpus/cgns_file" > /dev/null
# Real meshes as seeds too, where they are small (libFuzzer's inputs grow
# to the largest seed).
for m in /work/shared/data/meshes/*.cgns; do
  [[ -f $m && $(stat -c %s "$m") -le 262144 ]] && cp "$m" "$work/corpus/cgns_file/"
done
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
  [[ $target == fuzz_tokens ]] && seeds=("$root/fuzz/corpus/tokens")
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
  # libcgns's own leaks on its error paths are suppressed for the CGNS
  # targets (fuzz/cgns_leaks.supp says why).
  # intercept_tls_get_addr=0: LeakSanitizer (LLVM 14) crashes scanning the
  # dynamic TLS of the modules Open MPI loads ("Tracer caught signal 11").
  [[ $target == fuzz_cgns* ]] && lsan="suppressions=$root/fuzz/cgns_leaks.supp" &&
    asan="detect_leaks=1:intercept_tls_get_addr=0"
  [[ $target == fuzz_cgns_file ]] && asan="$asan:allocator_may_return_null=1"
  if ASAN_OPTIONS=$asan LSAN_OPTIONS=$lsan UBSAN_OPTIONS=print_stacktrace=1 \
     "$work/build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=4096 \
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
