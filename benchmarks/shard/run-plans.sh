#!/usr/bin/env bash
# Every sharding plan of a four-layer 1024-wide network at 1, 2 and 4 ranks
# against the planner's choice (docs/performance.md, "Sharded tensors").
#   bash benchmarks/shard/run-plans.sh [build-dir] [extra shard_plans flags]
set -euo pipefail
build=${1:-build}
shift || true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in 1 2 4; do
  mpirun -n "$n" --oversubscribe "$build/benchmarks/shard/shard_plans" --steps 7 "$@"
done
