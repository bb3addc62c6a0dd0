#!/usr/bin/env bash
# Downstream-project checks against an installed Camber (tests/install/CMakeLists.txt).
#
#   consumer.sh install BUILD_DIR WORK
#       cmake --install into WORK/prefix (the fixture the others need)
#   consumer.sh project WORK NAME SOURCE_DIR [cmake args...]
#       configure and build SOURCE_DIR against WORK/prefix into WORK/NAME
#   consumer.sh configure-fails WORK NAME SOURCE_DIR REGEX
#       configuring must fail and its output must match REGEX
#   consumer.sh one-error EXPECTED_CODE REGEX command...
#       the command must exit EXPECTED_CODE and REGEX must match exactly one
#       line of its output (an error printed once, not once per rank)
set -euo pipefail
mode=$1
shift
case $mode in
  install)
    build=$1 work=$2
    rm -rf "$work/prefix"
    mkdir -p "$work"
    cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
    ;;
  project)
    work=$1 name=$2 source=$3
    shift 3
    rm -rf "$work/$name"
    cmake -S "$source" -B "$work/$name" -DCMAKE_PREFIX_PATH="$work/prefix" \
          -DCMAKE_BUILD_TYPE=Release "$@" > "$work/$name.configure.log" 2>&1 \
      || { cat "$work/$name.configure.log"; exit 1; }
    cmake --build "$work/$name" -j 2 > "$work/$name.build.log" 2>&1 \
      || { cat "$work/$name.build.log"; exit 1; }
    echo "built $name against $work/prefix"
    ;;
  configure-fails)
    work=$1 name=$2 source=$3 regex=$4
    rm -rf "$work/$name"
    if cmake -S "$source" -B "$work/$name" -DCMAKE_PREFIX_PATH="$work/prefix" \
         > "$work/$name.configure.log" 2>&1; then
      cat "$work/$name.configure.log"; echo "FAIL: configuring $name succeeded"; exit 1
    fi
    grep -E "$regex" "$work/$name.configure.log" \
      || { cat "$work/$name.configure.log"; echo "FAIL: no line matches /$regex/"; exit 1; }
    ;;
  one-error)
    want=$1 regex=$2
    shift 2
    out=$(mktemp)
    set +e
    timeout 120 "$@" > "$out" 2>&1
    code=$?
    set -e
    count=$(grep -cE "$regex" "$out" || true)
    cat "$out"
    rm -f "$out"
    echo "--- exit code $code (want $want); $count line(s) match /$regex/ (want 1)"
    [[ $code -eq $want && $count -eq 1 ]]
    ;;
  *)
    echo "consumer.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
