#!/usr/bin/env bash
# The command line without the optional modules: configures build-options/
# with SUNDIALS, ONNX, the server, CGNS and oneDNN off (and no tests), builds `camber`,
# and checks that `camber run` and `camber optimize` still solve and
# optimize an Euler case, that the problems and commands of the modules left
# out are absent (bad input, exit 2), and that those present still refuse
# bad input with exit 2.
#
#   bash scripts/test-options.sh
#
# Environment: CAMBER_JOBS (default 2), CAMBER_BUILD_TYPE (default Release).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-options
jobs=${CAMBER_JOBS:-2}
decks=$root/tests/apps/decks
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
say() { echo "== test-options: $*"; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${CAMBER_BUILD_TYPE:-Release} \
      -DCAMBER_ENABLE_SUNDIALS=OFF -DCAMBER_ENABLE_ONNX=OFF -DCAMBER_ENABLE_SERVE=OFF \
      -DCAMBER_ENABLE_CGNS=OFF -DCAMBER_ENABLE_DNNL=OFF -DCAMBER_ENABLE_TESTS=OFF -DCAMBER_ENABLE_DOCS=OFF > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target camber_cli
camber=$build/bin/camber

failures=0
# expect RC REGEX -- COMMAND...: exit code RC and a line matching REGEX.
expect() {
  local want=$1 regex=$2; shift 3
  local out rc=0
  out=$(cd "$build" && timeout 600 "$@" 2>&1) || rc=$?
  if [[ $rc == "$want" ]] && grep -qE -- "$regex" <<<"$out"; then
    say "passed: $* (exit $rc)"
  else
    echo "$out" | tail -20
    say "FAILED: $* (exit $rc, want $want and /$regex/)"
    failures=$((failures + 1))
  fi
}
expect 0 "Newton steps +[0-9]+ \\(converged\\)" -- "$camber" run "$decks/euler_small.yaml" --no-timers
expect 0 "^ +CD +[0-9.]+ +[0-9.]+" -- "$camber" optimize "$decks/optimize_small.yaml" --no-timers
expect 2 "'problem' must be one of euler, surrogate" -- "$camber" check "$decks/small.yaml"
expect 2 "unknown command 'export'" -- "$camber" export model.h5 -o model.onnx
expect 2 "unknown command 'serve'" -- "$camber" serve model.h5
expect 2 "not_cgns\\.cgns: this Camber was built without CGNS" -- "$camber" mesh-info "$root/tests/apps/meshes/not_cgns.cgns"
expect 2 "euler_mach_zero\\.yaml:12:9: 'flow\\.mach' = 0\\.0 is out of range" -- "$camber" check "$decks/euler_mach_zero.yaml"
[[ $failures == 0 ]] || { say "$failures check(s) failed"; exit 1; }
say "all checks passed"
