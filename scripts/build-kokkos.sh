#!/usr/bin/env bash
# Builds Kokkos from Debian's source (Kokkos 3.4.1 inside Trilinos 13.2) with
# Camber's patch (cmake/kokkos/), for one backend, into a prefix that Camber
# then uses with -DKokkos_ROOT=PREFIX.
#
#   bash scripts/build-kokkos.sh openmp PREFIX   # OpenMP + Serial, static, -fPIC
#   bash scripts/build-kokkos.sh cuda   PREFIX   # CUDA (sm_90) + Serial, nvcc_wrapper
#   bash scripts/build-kokkos.sh serial PREFIX   # Serial only, static, -fPIC
#   bash scripts/build-kokkos.sh --source-dir      # print the patched source folder
#   bash scripts/build-kokkos.sh --gpu-tarball FILE
#       writes a compact tarball for a machine without a package archive:
#       kokkos/ (patched source, no unit tests), googletest/ (Debian's
#       /usr/src/googletest), eigen/ (headers and CMake config) and metis/
#       (Debian's metis.h and libmetis.so.5) and ptscotch/ (Debian's PT-Scotch
#       headers and libraries); scripts/gpu-check uses it.
#
# Idempotent: a prefix that holds a matching build stamp is left alone.
# Environment:
#   CAMBER_CACHE            cache folder (default ~/.cache/camber)
#   CAMBER_KOKKOS_SOURCE    an already patched Kokkos source folder: skips the
#                           download (used by scripts/gpu-check)
#   CAMBER_KOKKOS_CUDA_ARCH Kokkos GPU arch option (default HOPPER90 = sm_90;
#                           AMPERE80, ...)
#   CAMBER_JOBS             parallel build jobs (default 2)
#   CUDA_HOME               CUDA toolkit (default /usr/local/cuda)
#
# Any Kokkos >= 3.4 built with the backend of your choice works as well: this
# script only exists because Debian packages Kokkos with Serial alone.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CAMBER_CACHE:-$HOME/.cache/camber}
jobs=${CAMBER_JOBS:-2}
patch_file=$root/cmake/kokkos/kokkos-3.4.1-camber.patch
cuda_home=${CUDA_HOME:-/usr/local/cuda}
cuda_arch=${CAMBER_KOKKOS_CUDA_ARCH:-HOPPER90}

say() { echo "build-kokkos: $*" >&2; }
die() { say "error: $*"; exit 1; }

# A deb-src entry for bookworm main; added only when none is configured.
ensure_deb_src() {
  if grep -rqsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' \
       /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
    return 0
  fi
  say "adding a deb-src entry for bookworm main (/etc/apt/sources.list.d/camber-deb-src.sources)"
  cat > /etc/apt/sources.list.d/camber-deb-src.sources <<'EOF'
# Added by Camber's scripts/build-kokkos.sh: Kokkos' source comes from Debian's
# trilinos source package.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  return 1
}

# Downloads trilinos' orig tarball (once) and prints its path.
fetch_orig() {
  local dl=$cache/kokkos-src/debian
  mkdir -p "$dl"
  local orig
  orig=$(ls "$dl"/trilinos_*.orig.tar.* 2>/dev/null | head -n1 || true)
  if [[ -n $orig ]]; then echo "$orig"; return; fi
  local fresh=0
  ensure_deb_src || fresh=1
  if [[ $fresh == 1 ]] || ! apt-cache showsrc trilinos >/dev/null 2>&1 \
       || [[ -z $(apt-cache showsrc trilinos 2>/dev/null) ]]; then
    say "apt-get update"
    apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  fi
  say "downloading Debian's trilinos source (~166 MB) into $dl"
  (cd "$dl" && apt-get -o APT::Sandbox::User=root source -qq --download-only trilinos >&2)
  orig=$(ls "$dl"/trilinos_*.orig.tar.* 2>/dev/null | head -n1 || true)
  [[ -n $orig ]] || die "no trilinos orig tarball in $dl after apt-get source"
  echo "$orig"
}

# Prints a patched Kokkos source folder (extracted and patched once).
patched_source() {
  if [[ -n ${CAMBER_KOKKOS_SOURCE:-} ]]; then
    [[ -f $CAMBER_KOKKOS_SOURCE/CMakeLists.txt ]] \
      || die "CAMBER_KOKKOS_SOURCE=$CAMBER_KOKKOS_SOURCE holds no Kokkos source"
    echo "$CAMBER_KOKKOS_SOURCE"; return
  fi
  local psum src
  psum=$(sha256sum "$patch_file" | cut -c1-12)
  src=$cache/kokkos-src/kokkos-3.4.1-$psum
  if [[ -f $src/.camber-patched ]]; then echo "$src"; return; fi
  local orig top tmp
  orig=$(fetch_orig)
  top=$(tar -tf "$orig" | head -n1 | cut -d/ -f1)
  tmp=$src.tmp.$$
  rm -rf "$tmp"; mkdir -p "$tmp"
  say "extracting $top/packages/kokkos from $(basename "$orig")"
  tar -xf "$orig" -C "$tmp" --strip-components=3 "$top/packages/kokkos"
  grep -q 'Kokkos_VERSION_MINOR 4' "$tmp/CMakeLists.txt" 2>/dev/null \
    || grep -q 'KOKKOS_VERSION_MINOR 4' "$tmp/CMakeLists.txt" \
    || die "the extracted Kokkos is not 3.4 (see $tmp/CMakeLists.txt); the patch targets 3.4.1"
  say "applying $(basename "$patch_file")"
  (cd "$tmp" && patch -p1 --forward --quiet < "$patch_file" >&2)
  sha256sum "$patch_file" > "$tmp/.camber-patched"
  rm -rf "$src"; mv "$tmp" "$src"
  echo "$src"
}

gpu_tarball() {
  local out=$1 src stage
  src=$(patched_source)
  [[ -f /usr/src/googletest/CMakeLists.txt ]] \
    || die "/usr/src/googletest missing: apt-get install googletest"
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' RETURN
  # Kokkos without its unit tests, performance tests and benchmarks (its
  # CMakeLists adds example/ unconditionally).
  mkdir -p "$stage/kokkos"
  tar -C "$src" \
      --exclude=./core/unit_test --exclude=./core/perf_test \
      --exclude=./containers/unit_tests --exclude=./containers/performance_tests \
      --exclude=./algorithms/unit_tests --exclude=./benchmarks \
      -cf - . | tar -C "$stage/kokkos" -xf -
  cp -a /usr/src/googletest "$stage/googletest"
  local -a parts=(kokkos googletest)
  # Eigen (header-only; autodiff's matmul) as a CMake prefix, without its
  # unsupported/ modules.
  if [[ -d /usr/include/eigen3/Eigen && -f /usr/share/eigen3/cmake/Eigen3Config.cmake ]]; then
    mkdir -p "$stage/eigen/include/eigen3" "$stage/eigen/share/eigen3"
    cp -a /usr/include/eigen3/Eigen /usr/include/eigen3/signature_of_eigen3_matrix_library \
          "$stage/eigen/include/eigen3/"
    cp -a /usr/share/eigen3/cmake "$stage/eigen/share/eigen3/"
    parts+=(eigen)
  else
    say "warning: no Eigen (libeigen3-dev) to pack"
  fi
  # METIS (parallel's partitioner): Debian's header and shared library, which
  # needs only libc and libm, as a METIS_ROOT prefix.
  local libmetis
  libmetis=$(ls /usr/lib/*/libmetis.so.5* 2>/dev/null | head -n1 || true)
  if [[ -f /usr/include/metis.h && -n $libmetis ]]; then
    mkdir -p "$stage/metis/include" "$stage/metis/lib"
    cp /usr/include/metis.h "$stage/metis/include/"
    cp -L "$libmetis" "$stage/metis/lib/libmetis.so.5"
    ln -s libmetis.so.5 "$stage/metis/lib/libmetis.so"
    parts+=(metis)
  else
    say "warning: no METIS (libmetis-dev) to pack"
  fi
  # PT-Scotch (parallel's distributed partitioner): Debian's headers and
  # shared libraries as a PTSCOTCH_ROOT prefix. They need Open MPI's
  # libmpi.so.40 (any Open MPI 4 or 5), zlib, bzip2 and lzma from the machine.
  if [[ -f /usr/include/scotch/ptscotch.h ]] && ls /usr/lib/*/libptscotch-7.0.so >/dev/null 2>&1; then
    mkdir -p "$stage/ptscotch/include" "$stage/ptscotch/lib"
    cp /usr/include/scotch/ptscotch.h /usr/include/scotch/scotch.h "$stage/ptscotch/include/"
    local lib
    for lib in ptscotch scotch ptscotcherr scotcherr; do
      cp -L "$(ls /usr/lib/*/lib$lib-7.0.so | head -n1)" "$stage/ptscotch/lib/lib$lib-7.0.so"
      ln -s "lib$lib-7.0.so" "$stage/ptscotch/lib/lib$lib.so"
    done
    parts+=(ptscotch)
  else
    say "warning: no PT-Scotch (libptscotch-dev) to pack"
  fi
  mkdir -p "$(dirname "$out")"
  tar -C "$stage" -czf "$out.tmp" "${parts[@]}"
  mv "$out.tmp" "$out"
  say "wrote $out ($(du -h "$out" | cut -f1))"
}

build() {
  local backend=$1 prefix=$2 src
  local -a opts
  case $backend in
    openmp) opts=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON) ;;
    serial) opts=(-DKokkos_ENABLE_SERIAL=ON) ;;
    cuda)   opts=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON
                  -DKokkos_ENABLE_CUDA_LAMBDA=ON "-DKokkos_ARCH_${cuda_arch}=ON") ;;
    *) die "unknown backend '$backend' (openmp, cuda, serial)" ;;
  esac
  src=$(patched_source)
  local psum stamp
  psum=$(sha256sum "$patch_file" | cut -c1-12)
  [[ -n ${CAMBER_KOKKOS_SOURCE:-} ]] && psum=$(cut -c1-12 "$src/.camber-patched" 2>/dev/null || echo prepatched)
  local compiler
  compiler="$(${CXX:-g++} -dumpfullversion 2>/dev/null || echo '?')"
  if [[ $backend == cuda ]]; then
    compiler+=" nvcc $("$cuda_home/bin/nvcc" --version 2>/dev/null | grep -o 'V[0-9.]*' || echo '?')"
  fi
  stamp="kokkos=3.4.1 patch=$psum backend=$backend opts=${opts[*]} compiler=$compiler"
  if [[ -f $prefix/.camber-kokkos-stamp && $(cat "$prefix/.camber-kokkos-stamp") == "$stamp" ]]; then
    say "$prefix already holds Kokkos ($backend); nothing to do"
    return
  fi
  local -a cc=(-DCMAKE_CXX_COMPILER="${CXX:-g++}")
  if [[ $backend == cuda ]]; then
    [[ -x $cuda_home/bin/nvcc ]] || die "no nvcc at $cuda_home/bin/nvcc (set CUDA_HOME)"
    export PATH=$cuda_home/bin:$PATH
    # nvcc_wrapper compiles host code with g++; its default arch is set by
    # our patch (sm_80), and Kokkos passes -arch=sm_90 for HOPPER90.
    cc=(-DCMAKE_CXX_COMPILER="$src/bin/nvcc_wrapper")
  fi
  local bdir=$cache/kokkos-build/$backend-$psum
  rm -rf "$bdir"; mkdir -p "$bdir"
  local -a launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  say "configuring Kokkos ($backend) in $bdir"
  cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" "${cc[@]}" "${launcher[@]}" \
    -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
    -DKokkos_ENABLE_DEPRECATED_CODE_3=OFF \
    "${opts[@]}" > "$bdir.configure.log" 2>&1 \
    || { tail -n 40 "$bdir.configure.log" >&2; die "Kokkos configure failed ($bdir.configure.log)"; }
  say "building Kokkos ($backend) with -j$jobs"
  cmake --build "$bdir" -j "$jobs" > "$bdir.build.log" 2>&1 \
    || { grep -m20 -B2 -A8 'error' "$bdir.build.log" >&2 || tail -n 40 "$bdir.build.log" >&2
         die "Kokkos build failed ($bdir.build.log)"; }
  cmake --install "$bdir" > /dev/null
  echo "$stamp" > "$prefix/.camber-kokkos-stamp"
  rm -rf "$bdir"
  say "installed Kokkos ($backend) into $prefix"
}

case ${1:-} in
  --source-dir) patched_source ;;
  --gpu-tarball) [[ $# == 2 ]] || die "usage: $0 --gpu-tarball FILE"; gpu_tarball "$2" ;;
  openmp|cuda|serial) [[ $# == 2 ]] || die "usage: $0 BACKEND PREFIX"
    mkdir -p "$2"; build "$1" "$(cd "$2" && pwd)" ;;
  *) sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
