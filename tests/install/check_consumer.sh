#!/usr/bin/env bash
# usage: check_consumer.sh BUILD_DIR WORK_DIR CONSUMER_SOURCE MPIEXEC
set -euo pipefail
build=$1 work=$2 source=$3 mpiexec=$4
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j 2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$work/build/consumer"
