#!/usr/bin/env python3
"""`camber run DECK` and a C++ program with the same settings give the same
CL and CD (to 1e-9): the deck and the library share their defaults.

    check_same_as_deck.py CAMBER DECK PROGRAM MESH [PROGRAM_ARGS...]

Reads the deck run's last history row (<output.dir>/<case>_history.csv,
CL and CD to 10 digits) and the program's "CL x CD y" line. A missing MESH
skips (exit 0 with SKIP), or fails when the CI variable is set.
"""
import csv
import os
import re
import subprocess
import sys


def main():
    camber, deck, program, mesh = sys.argv[1:5]
    extra = sys.argv[5:]
    if not os.path.exists(mesh):
        print(("FAIL" if os.environ.get("CI") else "SKIP") + f": shared mesh not found: {mesh}")
        return 1 if os.environ.get("CI") else 0
    subprocess.run([camber, "run", deck], check=True, stdout=subprocess.DEVNULL)
    with open("out/quickstart_defaults/quickstart_defaults_history.csv") as f:
        last = list(csv.DictReader(f))[-1]
    deck_cl, deck_cd = float(last["CL"]), float(last["CD"])
    out = subprocess.run([program, mesh] + extra, check=True, capture_output=True, text=True).stdout
    m = re.search(r"converged 1 CL (\S+) CD (\S+)", out)
    if not m:
        print("FAIL: the program did not converge:", out)
        return 1
    lib_cl, lib_cd = float(m.group(1)), float(m.group(2))
    print(f"deck: CL {deck_cl:.10f} CD {deck_cd:.10f}; library: CL {lib_cl:.10f} CD {lib_cd:.10f}")
    if abs(deck_cl - lib_cl) > 1e-9 or abs(deck_cd - lib_cd) > 1e-9:
        print("FAIL: the deck and the library give different coefficients")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
