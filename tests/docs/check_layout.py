#!/usr/bin/env python3
"""Checks the layout rule of docs/architecture.md against the source tree.

    check_layout.py SOURCE_DIR

The table under "## The layout rule" lists every module: folder, target and
namespace. This script fails when
  - a folder calls camber_add_module() but is not in the table, or a row
    names a folder that does not, or the target differs from the row's;
  - a header or source file of a module opens a camber namespace that is
    neither the module's own nor nested in it, or that is (or is nested in)
    another module's namespace.
It prints every violation, and exits 1 if there was one.
"""
import os
import re
import sys


def table(root):
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    start = text.index("## The layout rule")
    rows = {}
    for line in text[start:].split("\n"):
        m = re.match(r"^\| ([a-z_/]+) \| ([^|]+) \| (camber[a-z_:]*) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(2).strip(), m.group(3))
    return rows


def module_folders(root):
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames
                       if not d.startswith(".") and not d.startswith("build")
                       and not (rel == "." and d in ("tests", "benchmarks", "examples", "fuzz"))]
        if "CMakeLists.txt" not in filenames:
            continue
        text = open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8").read()
        m = re.search(r"camber_add_module\(NAME (\w+)", text)
        if m:
            found[rel] = "Camber::" + m.group(1)
        elif re.search(r"add_library\(camber_app\b", text):
            found[rel] = "camber_app"
    return found


def namespaces_opened(path):
    opened = []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^namespace (camber[a-z_:]*) \{", line)
        if m:
            opened.append(m.group(1))
    return opened


def check(root):
    rows = table(root)
    folders = module_folders(root)
    errors = []
    if not rows:
        errors.append("docs/architecture.md: no layout table under '## The layout rule'")
    for folder, target in sorted(folders.items()):
        if folder not in rows:
            errors.append(f"{folder}/: module {target} is not in the layout table")
        elif not rows[folder][0].startswith(target):
            errors.append(f"{folder}/: target {target}, the layout table says {rows[folder][0]}")
    for folder in rows:
        if folder not in folders:
            errors.append(f"layout table: {folder}/ is not a module folder")

    spaces = {folder: ns for folder, (_, ns) in rows.items()}
    for folder, own in spaces.items():
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        # Files of this module: its folder and detail/, not nested modules.
        candidates = []
        for dirpath, dirnames, filenames in os.walk(base):
            rel = os.path.relpath(dirpath, root)
            dirnames[:] = [d for d in dirnames if os.path.join(rel, d) not in spaces]
            candidates += [os.path.join(dirpath, f) for f in filenames
                           if f.endswith((".hpp", ".cpp", ".hpp.in"))]
        others = [ns for f, ns in spaces.items() if f != folder and ns != "camber"]
        for path in sorted(candidates):
            for ns in namespaces_opened(path):
                rel = os.path.relpath(path, root)
                inside_own = ns == own or ns.startswith(own + "::")
                # The deepest module namespace that contains ns.
                owner = max((o for o in others if ns == o or ns.startswith(o + "::")),
                            key=len, default=None)
                if not inside_own or (owner is not None and len(owner) > len(own)):
                    errors.append(f"{rel}: opens namespace {ns}; module {folder}/ "
                                  f"is namespace {own}")
    return errors, len(folders)


def self_test():
    """The checker must catch what it is for: a tree with a module missing
    from the table, a wrong target and a namespace of another module."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            open(os.path.join(root, rel), "w").write(text)
        write("docs/architecture.md", "## The layout rule\n\n| folder | target | namespace |\n"
              "|---|---|---|\n| src/core | Camber::core | camber |\n"
              "| mesh | Camber::mesh | camber::mesh |\n| gone | Camber::gone | camber::gone |\n")
        write("src/core/CMakeLists.txt", "camber_add_module(NAME core)\n")
        write("src/core/a.hpp", "namespace camber::mesh {\n}\n")
        write("mesh/CMakeLists.txt", "camber_add_module(NAME geometry)\n")
        write("mesh/b.cpp", "namespace camber::mesh::detail {\n}\n")
        write("extra/CMakeLists.txt", "camber_add_module(NAME extra)\n")
        errors, _ = check(root)
        expected = ["extra/: module Camber::extra is not in the layout table",
                    "mesh/: target Camber::geometry",
                    "layout table: gone/ is not a module folder",
                    "src/core/a.hpp: opens namespace camber::mesh"]
        missed = [e for e in expected if not any(x.startswith(e) for x in errors)]
        if missed or len(errors) != len(expected):
            print("self-test failed; reported:", *errors, "missed:", *missed, sep="\n  ")
            return False
    return True


def main():
    if not self_test():
        return 1
    errors, n_modules = check(sys.argv[1])
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} violation(s) of the layout rule (docs/architecture.md)")
        return 1
    print(f"layout rule holds: {n_modules} modules (and the checker catches the four "
          f"violations of its self-test)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
