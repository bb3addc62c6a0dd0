#!/usr/bin/env bash
# usage: check_optimize_restart.sh CAMBER DECK [LAUNCHER...]
# `camber optimize` killed (SIGKILL to every process of the job at once,
# as when a node fails) after its third design evaluation and continued
# with --restart reaches the final design of an uninterrupted run: every
# design variable within 1e-9 of the bound, a trimmed alpha within 1e-8
# degrees (the variables are written
# to 12 significant digits; a run on one rank repeats them exactly, on
# several the sums of the assembly may arrive in another order). The
# restart replays the checkpointed history without flow solves and
# continues from the checkpointed flow states. Also: the drag of the final
# design is below the baseline's, the outputs exist (the final mesh; a 2-D
# design's final shape, a 3-D one's thickness stations), and the final
# mesh reads back with the baseline's cells, none folded. LAUNCHER (e.g.
# `mpirun -n 4`) runs every step on several ranks.
set -euo pipefail
camber=$1 deck=$2
shift 2
launch=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir direct killed
name=$(awk '$1 == "case:" {print $2}' "$deck")
outputs=("${name}_final_design.csv" "${name}_optimizer_history.csv" "${name}_final.su2")
if grep -q "parametrization: ffd_volume" "$deck"; then
  outputs+=("${name}_thickness.csv")
else
  outputs+=("${name}_final.dat")
fi
(cd direct && "${launch[@]}" "$camber" optimize "$deck" --no-timers > run.log 2>&1) ||
  { cat direct/run.log; echo "FAIL: the uninterrupted run failed"; exit 1; }
for f in "${outputs[@]}"; do
  [[ -s direct/out/$f ]] || { echo "FAIL: no $f"; exit 1; }
done
# The final mesh (written by every rank its part) reads back with the
# baseline's cell count and no folded cell (mesh-info exits 1 on one).
cells=$(grep -oE "optimize: [0-9]+ cells" direct/run.log | awk '{print $2}')
"${launch[@]}" "$camber" mesh-info "direct/out/${name}_final.su2" > mesh_info.log 2>&1 ||
  { cat mesh_info.log; echo "FAIL: the final mesh does not read back unfolded"; exit 1; }
grep -q " ${cells} cells" mesh_info.log ||
  { cat mesh_info.log; echo "FAIL: the final mesh has not the baseline's ${cells} cells"; exit 1; }
base=$(grep -E "^ +CD " direct/run.log | awk '{print $2}')
final=$(grep -E "^ +CD " direct/run.log | awk '{print $3}')
awk -v b="$base" -v f="$final" 'BEGIN { exit !(f < b) }' ||
  { echo "FAIL: final CD $final not below the baseline's $base"; exit 1; }
if [[ -f direct/out/${name}_thickness.csv ]]; then
  # Every station at least as thick as the baseline (the optimizer's
  # constraint tolerance, 1e-6 of the bound, relative to the thickness).
  awk -F, 'NR > 1 && $7 < 1 - 1e-6 { bad = 1 } END { exit bad }' "direct/out/${name}_thickness.csv" ||
    { echo "FAIL: a thickness station is thinner than the baseline's"; exit 1; }
fi
if grep -q "lift: fixed" "$deck"; then
  cl0=$(grep -E "^ +CL " direct/run.log | awk '{print $2}')
  cl=$(grep -E "^ +CL " direct/run.log | awk '{print $3}')
  awk -v a="$cl0" -v b="$cl" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6) }' ||
    { echo "FAIL: the lift moved from $cl0 to $cl"; exit 1; }
fi

# design.start: the direct run's best design evaluated again from the
# undeformed shape's flow, one evaluation: the same objective (to the flow
# solves' tolerance, 1e-9 relative).
mkdir start
sed -e "/^design:/a\\  start: $work/direct/out/${name}_final_design.csv" \
    -e '/^optimizer:/,/^[a-z]/ s/max_iterations: .*/max_iterations: 1/' "$deck" > start/deck.yaml
(cd start && "${launch[@]}" "$camber" optimize deck.yaml --no-timers > run.log 2>&1) ||
  { cat start/run.log; echo "FAIL: the run from design.start failed"; exit 1; }
best=$(awk -F, 'NR > 1 {b = $5} END {print b}' "direct/out/${name}_optimizer_history.csv")
again=$(awk -F, 'NR == 2 {print $2}' "start/out/${name}_optimizer_history.csv")
awk -v a="$best" -v b="$again" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(d <= 1e-9 * m) }' ||
  { cat start/run.log; echo "FAIL: design.start gives $again, the direct run's best was $best"; exit 1; }

cd killed
# A session of its own, so that one kill reaches mpirun and every rank.
setsid "${launch[@]}" "$camber" optimize "$deck" --no-timers > first.log 2>&1 &
pid=$!
history=out/${name}_optimizer.history
for _ in $(seq 1 1200); do
  if [[ -f $history ]] && (( $(grep -c '^entry' "$history") >= 3 )); then break; fi
  sleep 0.1
done
# mpirun puts each rank in a process group of its own: kill the session.
pkill -KILL -s "$pid" 2> /dev/null || true
wait "$pid" 2> /dev/null || true
# No rank of the killed job may still write to the checkpoint.
for _ in $(seq 1 100); do
  pgrep -s "$pid" > /dev/null || break
  sleep 0.1
done
n=$(grep -c '^entry' "$history" || true)
(( n >= 3 && n < 6 )) || { cat first.log; echo "FAIL: killed after $n evaluations, wanted 3..5"; exit 1; }
[[ ! -f out/${name}_final_design.csv ]] || { echo "FAIL: the killed run finished"; exit 1; }
"${launch[@]}" "$camber" optimize "$deck" --restart --no-timers > restart.log 2>&1 ||
  { cat restart.log; echo "FAIL: the restart failed"; exit 1; }
grep -q "restart: replayed $n evaluations" restart.log ||
  { cat restart.log; echo "FAIL: no replay of $n evaluations"; exit 1; }
bound=$(awk '$1 == "bound:" {print $2}' "$deck")
if ! paste -d, "../direct/out/${name}_final_design.csv" "out/${name}_final_design.csv" |
    awk -F, -v tol="$(awk -v b="$bound" 'BEGIN { print 1e-9 * b }')" \
      'NR > 1 { d = $2 - $4; if (d < 0) d = -d; t = $1 ~ /^alpha/ ? 1e-8 : tol
                if (d > t || $1 != $3) bad = 1 } END { exit bad }'; then
  diff -u "../direct/out/${name}_final_design.csv" "out/${name}_final_design.csv" || true
  echo "FAIL: the restarted run's final design differs"; exit 1
fi
echo "PASS: killed after $n evaluations, the restart reaches the uninterrupted final design;"
echo "      design.start evaluates the best design again: $again (best $best)"
echo "      CD $base -> $final"
