# Sourced (at the top level) by the benchmark scripts, from the repository
# root $root: takes an optional build folder (default build-bench-eu) and
# an optional "--" from the caller's arguments, leaving the program's
# options in "$@", and sets jobs, march and ranks from JOBS (default 2),
# MARCH (default x86-64-v3) and RANKS (default 1).
build=$root/build-bench-eu
if [[ $# -gt 0 && $1 != -- ]]; then build=$1; shift; fi
[[ ${1:-} == -- ]] && shift
jobs=${JOBS:-2}
march=${MARCH:-x86-64-v3}
ranks=${RANKS:-1}

# build_bench_target: configures a Release build with the
# benchmarks (no tests, no docs) in $build for -march=$march, builds one
# target with $jobs jobs, and prints the path of its executable.
#
#   exe=$(build_bench_target "$root" "$build" "$march" "$jobs" check_wing_gradient)
build_bench_target() {
  local root=$1 build=$2 march=$3 jobs=$4 target=$5
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-march=$march" \
    -DCAMBER_ENABLE_BENCHMARKS=ON -DCAMBER_ENABLE_TESTS=OFF -DCAMBER_ENABLE_DOCS=OFF >/dev/null
  cmake --build "$build" -j"$jobs" --target "$target" >/dev/null
  find "$build/benchmarks" -name "$target" -type f -perm -u+x | head -1
}
