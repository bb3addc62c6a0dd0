#!/usr/bin/env python3
"""Fails when a default `camber deck-reference` states for the euler problem
differs from the library's own default of the same setting.

    check_deck_defaults.py CAMBER LIBRARY_DEFAULTS [KEY=VALUE]

KEY=VALUE replaces the library's default of KEY: the test that this check
can fail injects a wrong one.

LIBRARY_DEFAULTS prints "key value" lines (tests/apps/library_defaults.cpp);
reals, integers and lists of them are compared as numbers (exactly: both
are printed from the same double), choices and booleans as text.
"""
import subprocess
import sys


def reference_defaults(camber):
    text = subprocess.run([camber, "deck-reference"], check=True, capture_output=True,
                          text=True).stdout
    defaults, section, in_euler = {}, None, False
    for line in text.splitlines():
        if line.startswith("## "):
            in_euler = line.strip() == "## Problem `euler`"
        elif line.startswith("### "):
            section = line[4:].strip().strip("`")
        elif in_euler and line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            defaults[cells[0].strip("`")] = cells[2].strip("`")
    return defaults


def numbers(text):
    """[a, b, ...] or a -> a list of floats; None when not numbers."""
    items = text[1:-1].split(",") if text.startswith("[") and text.endswith("]") else [text]
    try:
        return [float(x) for x in items if x.strip()]
    except ValueError:
        return None


def same(reference, library):
    a, b = numbers(reference), numbers(library)
    if a is not None and b is not None:
        return a == b
    return reference == library


def main():
    camber, library = sys.argv[1], sys.argv[2]
    deck = reference_defaults(camber)
    lines = subprocess.run([library], check=True, capture_output=True, text=True).stdout
    injected = dict(a.split("=", 1) for a in sys.argv[3:])
    checked, failures = 0, []
    for line in lines.splitlines():
        key, value = line.split(" ", 1)
        value = injected.get(key, value)
        if key not in deck:
            failures.append(f"{key}: the euler deck has no such key")
        elif not same(deck[key], value):
            failures.append(f"{key}: deck default {deck[key]}, library default {value}")
        checked += 1
    for f in failures:
        print("FAIL:", f)
    if checked < 20:
        failures.append(f"only {checked} keys checked")
        print("FAIL: only", checked, "keys checked")
    print(f"{checked} euler deck defaults against the library's: "
          f"{'PASS' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
