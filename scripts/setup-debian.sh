#!/usr/bin/env bash
# Installs every Debian 12 package that building and testing Camber needs.
# Idempotent: packages already present are skipped without touching apt.
#
#   bash scripts/setup-debian.sh          # build + test dependencies
#   CAMBER_WITH_PARAVIEW=1 bash scripts/setup-debian.sh   # also pvbatch
set -euo pipefail

packages=(
  g++ cmake make pkg-config ccache
  openmpi-bin libopenmpi-dev
  libeigen3-dev petsc-dev libsundials-dev libhdf5-openmpi-dev libvtk9-dev
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libmetis-dev libptscotch-dev libcgns-dev libssl-dev
  libnlopt-dev libnlopt-cxx-dev libgtest-dev libgmock-dev libbenchmark-dev libsodium-dev libsqlite3-dev
  libonnx-dev libprotobuf-dev python3-onnx libdnnl-dev libcpp-httplib-dev clang-14 libfuzzer-14-dev
  doxygen openssl curl
  gnuplot-nox
  gmsh
)
if [ "${CAMBER_WITH_PARAVIEW:-0}" = 1 ]; then packages+=(paraview); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  echo "camber setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "camber setup: all Debian packages present"
fi
