#!/usr/bin/env python3
"""What README.md, docs/design.md and docs/course/ quote of the tree is what the tree holds:
  - every quoted file under a folder of the repository exists;
  - `FILE` (N lines) has N lines;
  - `FILE:A-B` (`NAME`) is a whole definition: line A opens it (the line before is blank), line B
    closes it (a "}" in the first column), and NAME is defined in it (a line in the first column
    that names it);
  - the README's reading path quotes at most 1,200 lines in all.
Each finding is printed as DOC: PROBLEM. Usage: quoted_code.py SOURCE_DIR"""
import os
import re
import sys

ROOTS = ("src/", "tests/", "docs/", "scripts/", "bench/", "configs/", "examples/", "fuzz/", "cmake/", ".ci/")
MAX_READING_PATH_LINES = 1200

# `path:A-B`, then optionally (`NAME`), which may follow on the next line.
RANGE = re.compile(r"`([\w./-]+):(\d+)-(\d+)`(?:\s+\(`([^`]+)`\))?")
WHOLE_FILE = re.compile(r"`([\w./-]+)`\s+\((\d[\d,]*) lines\)")
QUOTED = re.compile(r"`([\w./{},-]+)`")


def expand(path):
    """src/a.{h,cpp} -> [src/a.h, src/a.cpp]"""
    brace = re.search(r"\{([^}]*)\}", path)
    if not brace:
        return [path]
    return [path[:brace.start()] + part + path[brace.end():] for part in brace.group(1).split(",")]


def lines_of(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]   # the text after the last newline is no line


def check(root, doc, text, problems):
    quoted_lines = 0
    for match in QUOTED.finditer(text):
        path = match.group(1).split(":")[0]
        if path.startswith(ROOTS) and "*" not in path:
            for one in expand(path):
                if not os.path.exists(os.path.join(root, one)):
                    problems.append(f"{doc}: quotes {one}, which is not in the tree")
    for match in WHOLE_FILE.finditer(text):
        path, count = match.group(1), int(match.group(2).replace(",", ""))
        if not os.path.isfile(os.path.join(root, path)):
            continue   # reported above
        actual = len(lines_of(root, path))
        quoted_lines += actual
        if actual != count:
            problems.append(f"{doc}: says {path} has {count} lines; it has {actual}")
    for match in RANGE.finditer(text):
        path, first, last, name = match.group(1), int(match.group(2)), int(match.group(3)), match.group(4)
        if not os.path.isfile(os.path.join(root, path)):
            continue
        lines = lines_of(root, path)
        where = f"{doc}: {path}:{first}-{last}"
        if not 1 <= first <= last <= len(lines):
            problems.append(f"{where} is outside the file's {len(lines)} lines")
            continue
        quoted_lines += last - first + 1
        if first > 1 and lines[first - 2].strip():
            problems.append(f"{where} starts inside something: line {first - 1} is not blank")
        if not lines[last - 1].startswith("}"):
            problems.append(f"{where} does not end where a definition closes: line {last} is {lines[last - 1]!r}")
        if name:
            word = re.compile(r"(^|[^\w:])" + re.escape(name) + r"\b")
            if not any(word.search(line) and line[:1] not in (" ", "/", "") for line in lines[first - 1:last]):
                problems.append(f"{where} does not define {name}")
    return quoted_lines


def main():
    root = sys.argv[1]
    problems = []
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = re.search(r"^## Reading path\n(.*?)(?=^## )", readme, re.S | re.M)
    if not section:
        problems.append("README.md: no '## Reading path' section")
    else:
        reading = check(root, "README.md's reading path", section.group(1), problems)
        if reading > MAX_READING_PATH_LINES:
            problems.append(f"README.md: the reading path quotes {reading} lines, more than {MAX_READING_PATH_LINES}")
        if reading == 0:
            problems.append("README.md: the reading path quotes no file or range")
        print(f"reading path: {reading} lines")
    check(root, "README.md", readme, problems)
    quoting = ["docs/design.md"] + sorted(os.path.join("docs/course", name) for name in os.listdir(os.path.join(root, "docs/course"))
                                          if name.endswith(".md"))
    for doc in quoting:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            check(root, doc, f.read(), problems)
    for problem in problems:
        print("FAIL:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
