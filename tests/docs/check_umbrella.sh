#!/usr/bin/env bash
# usage: check_umbrella.sh INCLUDE_ROOT UMBRELLA
# Every public header under INCLUDE_ROOT/camber (detail/ folders aside) is
# included by the umbrella header <camber.hpp>, so that "#include
# <camber.hpp>" really gives the whole library.
set -euo pipefail
root=$1 umbrella=$2
missing=0
while IFS= read -r h; do
  rel=${h#"$root/"}
  if ! grep -q "#include <$rel>" "$umbrella"; then
    echo "not in camber.hpp: <$rel>"
    missing=$((missing + 1))
  fi
done < <(find "$root/camber" \( -name '*.hpp' \) -not -path '*/detail/*' | sort)
[[ $missing -eq 0 ]] && echo "camber.hpp includes every public header"
exit $((missing > 0))
