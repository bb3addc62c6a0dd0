#!/usr/bin/env bash
# Checks Camber's Kokkos-only modules on real Kokkos backends (CI).
#
#   bash scripts/test-backends.sh [openmp] [cuda]     # default: both legs
#
# openmp: builds Kokkos with OpenMP (scripts/build-kokkos.sh) and Camber's
#   Kokkos modules and the flagship (mesh, PETSc, the Euler solver, its
#   adjoint and shape derivative, design, optimization; no I/O, decks or
#   apps) against it, static, in build-openmp/. PETSc loads Debian's Serial
#   Kokkos as well; the executables keep their own OpenMP Kokkos to
#   themselves (cmake/CamberKokkos.cmake, docs/backends.md, "The
#   double-Kokkos trap"). Runs every test that got built, but for the
#   grid study and the 2- and 4-rank runs of the three heaviest 3-D and
#   shape-gradient suites (each of their ranks gets one thread, as in the
#   Serial suite, which runs them at 2 and 4 ranks): one-rank tests
#   with 2 OpenMP threads, so missing atomics and racy reductions fail; MPI
#   tests with the 2 threads shared by their ranks (at least one each), so
#   threads never outnumber the cores. A probe checks that Kokkos' default
#   execution space is OpenMP.
# cuda: builds Kokkos for CUDA (sm_90) and compiles and links the same
#   modules, the flagship's included, and the command line (with its I/O
#   and decks) with nvcc_wrapper in build-cuda/ (no
#   GPU here: the Kokkos-only modules' tests are built and run by
#   scripts/gpu-check on a GPU machine, which has no PETSc).
#
# Environment: CAMBER_CACHE (Kokkos builds, default ~/.cache/camber),
# CAMBER_JOBS (default 2), CUDA_HOME (default /usr/local/cuda),
# CAMBER_BACKEND_THREADS (default 2).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CAMBER_CACHE:-$HOME/.cache/camber}
jobs=${CAMBER_JOBS:-2}
threads=${CAMBER_BACKEND_THREADS:-2}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Release (no -g) and a base dir: cache hits across checkouts in other paths.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
legs=("$@")
[[ ${#legs[@]} -gt 0 ]] || legs=(openmp cuda)

# The modules that must run on every Kokkos backend: Kokkos, MPI and PETSc's
# flagship (the Euler solver, its adjoint and shape derivative).
module_opts=(-DCAMBER_ENABLE_APPS=OFF -DCAMBER_ENABLE_PETSC=ON
             -DCAMBER_ENABLE_IO=OFF -DCAMBER_ENABLE_DECK=OFF -DCAMBER_ENABLE_ONNX=OFF -DCAMBER_ENABLE_SERVE=OFF -DCAMBER_ENABLE_SUNDIALS=OFF
             -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=Release
             -DCAMBER_ENABLE_BENCHMARKS=ON -DCAMBER_BENCHMARKS_DEVICE_ONLY=ON)
# The CUDA leg compiles the command line as well: its I/O, decks and apps.
cuda_opts=("${module_opts[@]}" -DCAMBER_ENABLE_IO=ON -DCAMBER_ENABLE_DECK=ON -DCAMBER_ENABLE_APPS=ON)
# Left out of the OpenMP leg's ctest run (see the header).
openmp_skip='^(test_vassberg_jameson_mpi_np[0-9]+|test_shape_gradient_mpi_np[24]|test_euler_3d_mpi_np[24]|test_euler_adjoint3d_mpi_np[24])$'

declare -A result
now() { date +%s; }
say() { echo "== test-backends: $*"; }

leg_openmp() {
  local prefix=$cache/kokkos/openmp build=$root/build-openmp
  bash "$root/scripts/build-kokkos.sh" openmp "$prefix"
  mkdir -p "$build"
  cmake -S "$root" -B "$build" -DKokkos_ROOT="$prefix" "${module_opts[@]}" \
        -DCAMBER_TEST_THREADS="$threads" -DCAMBER_USE_CCACHE=ON > "$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; return 1; }
  grep 'Camber: Kokkos' "$build/configure.log"
  cmake --build "$build" -j "$jobs"

  # The probe: Runtime::describe() must name OpenMP with $threads threads.
  local probe=$build/backend_probe
  mkdir -p "$probe"
  cat > "$probe/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(camber_backend_probe CXX)
find_package(Camber REQUIRED COMPONENTS core solvers_petsc)
add_executable(probe probe.cpp)
target_link_libraries(probe PRIVATE Camber::core Camber::solvers_petsc)
EOF
  cat > "$probe/probe.cpp" <<'EOF'
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <camber/core/runtime.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  // PETSc loads Debian's Serial Kokkos into this process too: the OpenMP one
  // must still be the one in use, and both must leave cleanly at exit.
  camber::solvers::petsc::PetscSession petsc;
  std::printf("%s; concurrency %d\n", runtime.describe().c_str(),
              static_cast<int>(Kokkos::DefaultExecutionSpace::concurrency()));
  // A reduction that races without Kokkos' reducer: n(n+1)/2 exactly.
  long sum = 0;
  const long n = 1 << 22;
  Kokkos::parallel_reduce("probe_sum", n, KOKKOS_LAMBDA(long i, long& s) { s += i + 1; }, sum);
  return sum == n * (n + 1) / 2 ? 0 : 1;
}
EOF
  cmake --install "$build" --prefix "$probe/install" > /dev/null
  cmake -S "$probe" -B "$probe/build" -DCamber_ROOT="$probe/install" \
        -DKokkos_ROOT="$prefix" > "$probe/configure.log" 2>&1 \
    || { cat "$probe/configure.log"; return 1; }
  cmake --build "$probe/build" > "$probe/build.log" 2>&1 || { cat "$probe/build.log"; return 1; }
  local line
  line=$(OMP_NUM_THREADS=$threads OMP_PROC_BIND=false OMPI_ALLOW_RUN_AS_ROOT=1 \
         OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$probe/build/probe")
  say "probe: $line"
  [[ $line == *"(OpenMP)"* && $line == *"concurrency $threads" ]] \
    || { say "Kokkos does not run OpenMP with $threads threads"; return 1; }

  say "ctest: $threads threads for a one-rank test, shared by an MPI test's ranks (every test that was built but those matching $openmp_skip)"
  # Each test's OMP_NUM_THREADS comes from its registration
  # (cmake/CamberTesting.cmake: CAMBER_TEST_THREADS over its ranks, at
  # least one), so no test puts more threads than cores on the machine and
  # the OpenMP runtime's default waiting (spin briefly, then sleep) serves
  # every test.
  (cd "$build" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
     ctest --output-on-failure --timeout 300 --repeat after-timeout:2 -E "$openmp_skip")
}

leg_cuda() {
  local prefix=$cache/kokkos/cuda build=$root/build-cuda
  [[ -x $cuda_home/bin/nvcc ]] || { say "no nvcc at $cuda_home/bin/nvcc"; return 1; }
  export PATH=$cuda_home/bin:$PATH
  bash "$root/scripts/build-kokkos.sh" cuda "$prefix"
  mkdir -p "$build"
  cmake -S "$root" -B "$build" -DKokkos_ROOT="$prefix" "${cuda_opts[@]}" \
        -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
        -DCAMBER_ENABLE_NCCL=ON -DCAMBER_USE_CCACHE=ON > "$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; return 1; }
  grep 'Camber: Kokkos' "$build/configure.log"
  # Compile and link the libraries (every module's kernels as device code),
  # the command line and the device benchmark; no GPU here, so nothing would run the test
  # programs: scripts/gpu-check
  # builds and runs them on a GPU machine.
  cmake --build "$build" -j "$jobs" --target camber_libraries camber_cli bench_euler_device
}

status=0
for leg in "${legs[@]}"; do
  case $leg in
    openmp|cuda) ;;
    *) echo "unknown leg '$leg' (openmp, cuda)" >&2; exit 2 ;;
  esac
  say "$leg leg"
  t0=$(now)
  # A subshell outside any condition, so that `set -e` ends the leg at its
  # first failing command.
  set +e; ( set -e; "leg_$leg" ); rc=$?; set -e
  if [[ $rc == 0 ]]; then result[$leg]=passed; else result[$leg]=FAILED; status=1; fi
  result[$leg]+=" in $(( $(now) - t0 )) s"
done
for leg in "${legs[@]}"; do say "$leg: ${result[$leg]}"; done
exit $status
