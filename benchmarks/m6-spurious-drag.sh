#!/usr/bin/env bash
# One variant of the ONERA M6 deck (examples/onera_m6/onera_m6.yaml) on a
# given grid at a given Mach number and angle, with deck keys overridden,
# then the wall analysis of benchmarks/m6_wall_analysis.py: CD and CL per
# spanwise strip from the wall-face Cp, and the entropy deviation
# s/s_inf - 1 of the wall cells by x/c. Used for docs/performance.md, "Where
# the M6's spurious drag comes from". At M 0.5 and alpha 0 the exact CD is 0
# (subsonic, symmetric section, no lift, so no induced drag) and the exact
# entropy deviation is 0 everywhere: what the run shows is the scheme's.
#
#   benchmarks/m6-spurious-drag.sh NAME MESH MACH ALPHA [section.key=value ...]
#       e.g. benchmarks/m6-spurious-drag.sh o1 /work/m6/onera_m6_coarse.su2 0.5 0 flow.order=1
#
# Environment: CAMBER (default build/bin/camber), OUT (default out/m6-drag).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=$1 mesh=$2 mach=$3 alpha=$4
shift 4
camber=${CAMBER:-$root/build/bin/camber}
out=${OUT:-$root/out/m6-drag}
mkdir -p "$out"
deck=$out/$name.yaml
sed -e "s#file: ../../out/onera_m6/onera_m6_coarse.su2#file: $mesh#" \
    -e "s#reference_cp: schmitt_charpin_test2308.csv#reference_cp: $root/examples/onera_m6/schmitt_charpin_test2308.csv#" \
    -e "s/mach: 0.8395/mach: $mach/" -e "s/alpha_deg: 3.06/alpha_deg: $alpha/" \
    -e "s#dir: out/onera_m6#dir: $out/$name#" "$root/examples/onera_m6/onera_m6.yaml" > "$deck"
for kv in "$@"; do
  python3 - "$deck" "$kv" <<'PY'
import sys
path, kv = sys.argv[1:]
section, rest = kv.split('.', 1)
key, value = rest.split('=', 1)
lines = open(path).read().split('\n')
i = lines.index(section + ':')
for j in range(i + 1, len(lines) + 1):
    if j == len(lines) or (lines[j] and not lines[j].startswith(' ')):
        lines.insert(i + 1, f'  {key}: {value}')
        break
    if lines[j].startswith(f'  {key}:'):
        lines[j] = f'  {key}: {value}'
        break
open(path, 'w').write('\n'.join(lines))
PY
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
/usr/bin/time -f "elapsed %e s, peak %M KiB" "$camber" run "$deck" > "$out/$name.log" 2>&1 || true
grep -E "^ *(Newton steps|residual drop|CL|CD) |wall time|elapsed" "$out/$name.log" | tr -s ' '
python3 "$root/benchmarks/m6_wall_analysis.py" "$mesh" "$out/$name" onera_m6 "$alpha"
