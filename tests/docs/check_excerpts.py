#!/usr/bin/env python3
"""Checks that every code block marked <!-- tour: FILE --> in a Markdown
document appears, as consecutive lines, in FILE (relative to the repository
root), so the C++ tour in the docs cannot drift from the compiled examples.

usage: check_excerpts.py REPO_ROOT DOC.md
Exit 1 naming the document line of each block that is not found.
"""
import pathlib
import re
import sys


def blocks(doc_lines):
    marker = re.compile(r"^<!--\s*tour:\s*(\S+)\s*-->")
    i = 0
    while i < len(doc_lines):
        m = marker.search(doc_lines[i])
        if m:
            j = i + 1
            if j >= len(doc_lines) or not doc_lines[j].startswith("```"):
                yield m.group(1), i + 1, None
            else:
                k = j + 1
                while k < len(doc_lines) and not doc_lines[k].startswith("```"):
                    k += 1
                yield m.group(1), i + 1, doc_lines[j + 1:k]
                i = k
        i += 1


def contains(haystack, needle):
    n = len(needle)
    return any(haystack[s:s + n] == needle for s in range(len(haystack) - n + 1))


def main():
    root, doc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    doc_lines = doc.read_text().splitlines()
    failures, count = 0, 0
    for source, line, block in blocks(doc_lines):
        count += 1
        path = root / source
        if block is None:
            print(f"{doc}:{line}: tour marker not followed by a code block")
            failures += 1
        elif not path.is_file():
            print(f"{doc}:{line}: {source} does not exist")
            failures += 1
        elif not contains(path.read_text().splitlines(), block):
            print(f"{doc}:{line}: this block is not in {source}:")
            print("\n".join("    " + b for b in block))
            failures += 1
    if count == 0:
        print(f"{doc}: no <!-- tour: FILE --> blocks found")
        return 1
    print(f"{doc}: {count - failures} of {count} tour blocks found in their files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
