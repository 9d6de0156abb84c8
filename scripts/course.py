#!/usr/bin/env python3
"""The course kit (docs/course/README.md), called by scripts/course.sh:

  course.py student OUT [--keep TASK]... [--patch FILE]...   write the student tree into OUT
  course.py grade BUILD [--json FILE]                         run each task's graded tests in BUILD
  course.py regions                                           list the solution regions

The tree marks the code a student writes between `// BEGIN SOLUTION <task>` and `// END SOLUTION`;
the student tree has a throw of NotImplemented there instead. Code that would run in the place of
a student's (a fast twin) sits between `// BEGIN FAST <task>: <replacement>` and `// END FAST`; the
student tree has the replacement there (often nothing, or a call of the readable path). The tasks
are the rows of course/tasks.tsv; course/teacher/ (answers, hidden tests, wrong solutions) is left
out of the student tree. Exit 2 for bad input, naming the problem."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEACHER_ONLY = "course/teacher/"
STUDENT_MARKER = "course/student-tree.txt"   # its presence makes a tree a student tree (tests/CMakeLists.txt)
# The .cpp files that hold regions in the teacher's tree, which the build compiles alone (CMakeLists.txt):
# in a student tree their markers are gone, so the tree lists them.
REGION_FILES = "course/region-files.txt"
BEGIN = re.compile(r"^(\s*)// BEGIN (SOLUTION|FAST) (A\d+\.\d+)(?::\s?(.*))?$")
END = re.compile(r"^\s*// END (SOLUTION|FAST)\s*$")


class KitError(Exception):
    """Bad input or a malformed tree: exit 2."""


def read_tasks(root):
    """course/tasks.tsv: {id: {"points", "page", "title"}} in file order."""
    tasks = {}
    with open(os.path.join(root, "course/tasks.tsv"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4 or not re.fullmatch(r"A\d+\.\d+", fields[0]) or not fields[1].isdigit():
                raise KitError(f"course/tasks.tsv:{number}: expected 'A<n>.<m> <points> <page> <title>', tab-separated")
            tasks[fields[0]] = {"points": int(fields[1]), "page": fields[2], "title": fields[3]}
    return tasks


def tree_files(root):
    """The files of the tree: git's tracked and unignored ones, or a walk that skips build folders."""
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                capture_output=True, check=True).stdout.decode().split("\0")
        return sorted(path for path in listed if path and os.path.isfile(os.path.join(root, path)))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [s for s in subfolders if s != ".git" and not s.startswith("build") and s != "runs"]
            files += [os.path.relpath(os.path.join(folder, name), root) for name in names]
        return sorted(files)


def regions_of(path, lines, tasks):
    """[(kind, task, replacement, first, last)] with first/last the marker lines' indices."""
    found, open_region = [], None
    for index, line in enumerate(lines):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if open_region:
                raise KitError(f"{path}:{index + 1}: a region begins inside the one begun at line {open_region[3] + 1}")
            if begin.group(3) not in tasks:
                raise KitError(f"{path}:{index + 1}: task {begin.group(3)} is not in course/tasks.tsv")
            open_region = (begin.group(2), begin.group(3), begin.group(4), index, begin.group(1))
        elif end:
            if not open_region or open_region[0] != end.group(1):
                raise KitError(f"{path}:{index + 1}: END {end.group(1)} without its BEGIN")
            found.append((open_region[0], open_region[1], open_region[2], open_region[3], index, open_region[4]))
            open_region = None
    if open_region:
        raise KitError(f"{path}:{open_region[3] + 1}: BEGIN {open_region[0]} {open_region[1]} has no END")
    return found


def student_text(path, text, tasks, keep):
    """The student's version of one file: each solution region of a task not in `keep`, and every
    fast twin, replaced."""
    lines = text.split("\n")
    regions = regions_of(path, lines, tasks)
    if any(kind == "SOLUTION" for kind, *_ in regions) and '#include "autograd/error.h"' not in text:
        raise KitError(f'{path}: has a solution region but does not include "autograd/error.h" (NotImplemented)')
    out, cursor = [], 0
    moved = {}   # a line of the tree's file (1-based) → where it is in the student's, for quoted ranges
    def keep_lines(begin, end):
        for index in range(begin, end):
            moved[index + 1] = len(out) + 1
            out.append(lines[index])
    for kind, task, replacement, first, last, indent in regions:
        keep_lines(cursor, first)
        if task in keep and kind == "SOLUTION":   # a fast twin stays off: the student's code is what runs
            keep_lines(first + 1, last)
        elif kind == "SOLUTION":
            info = tasks[task]
            message = f"{task} {info['title']}: see docs/course/{info['page']}"
            out.append(f"{indent}throw NotImplemented({json.dumps(message, ensure_ascii=False)});")
        elif replacement:
            out.append(f"{indent}{replacement}  // the student tree runs the readable path only ({task})")
        cursor = last + 1
    keep_lines(cursor, len(lines))
    return "\n".join(out), moved


QUOTED_RANGE = re.compile(r"`([\w./-]+):(\d+)-(\d+)`")


def moved_ranges(text, moved_lines):
    """A document's `path:A-B` quotes of files whose lines the student tree moved, moved with them."""
    def move(match):
        path, first, last = match.group(1), int(match.group(2)), int(match.group(3))
        if path not in moved_lines or first not in moved_lines[path] or last not in moved_lines[path]:
            return match.group(0)
        return f"`{path}:{moved_lines[path][first]}-{moved_lines[path][last]}`"
    return QUOTED_RANGE.sub(move, text)


def write_if_changed(path, data):
    """Leaves a file whose bytes are already `data` untouched, so an incremental build skips it."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def patched_sources(patches):
    """{path: text} of the files the patches change, each patch applied to a copy of the tree's file."""
    changed = {}
    for patch in patches:
        with tempfile.TemporaryDirectory() as scratch:
            listed = subprocess.run(["git", "apply", "--numstat", patch], cwd=ROOT, capture_output=True, text=True)
            if listed.returncode != 0:
                raise KitError(f"{patch}: not a patch git can read: {listed.stderr.strip()}")
            paths = [line.split("\t")[2] for line in listed.stdout.splitlines()]
            for path in paths:   # the tree's file, or what the patches before this one made of it
                os.makedirs(os.path.dirname(os.path.join(scratch, path)), exist_ok=True)
                if path in changed:
                    with open(os.path.join(scratch, path), "w", encoding="utf-8") as f:
                        f.write(changed[path])
                else:
                    shutil.copy(os.path.join(ROOT, path), os.path.join(scratch, path))
            applied = subprocess.run(["git", "apply", os.path.abspath(patch)], cwd=scratch, capture_output=True, text=True)
            if applied.returncode != 0:
                raise KitError(f"{patch}: does not apply to this tree: {applied.stderr.strip()}")
            for path in paths:
                with open(os.path.join(scratch, path), encoding="utf-8") as f:
                    changed[path] = f.read()
    return changed


def write_student_tree(out, keep, patches):
    tasks = read_tasks(ROOT)
    unknown = [task for task in keep if task not in tasks]
    if unknown:
        raise KitError(f"--keep {unknown[0]}: no such task in course/tasks.tsv")
    out = os.path.abspath(out)
    if out == ROOT or out.startswith(ROOT + os.sep):
        raise KitError(f"{out}: the student tree goes outside this tree (say ../student)")
    if os.path.exists(out) and not os.path.isfile(os.path.join(out, STUDENT_MARKER)) and os.listdir(out):
        raise KitError(f"{out}: not empty and not a student tree; give a new or empty folder (nothing there was changed)")
    replaced = patched_sources(patches)
    written, moved_lines, documents, region_sources = set(), {}, [], []
    for path in tree_files(ROOT):
        if path.startswith(TEACHER_ONLY) or path == STUDENT_MARKER:
            continue
        if path in replaced:
            data = replaced[path].encode()
        else:
            with open(os.path.join(ROOT, path), "rb") as f:
                data = f.read()
        if path.endswith(".cpp") and re.search(rb"// BEGIN (SOLUTION|FAST) ", data):
            region_sources.append(path)   # the same test as CMakeLists.txt's
        if path.endswith((".cpp", ".h")) and b"// BEGIN " in data:
            text, moved_lines[path] = student_text(path, data.decode("utf-8"), tasks, set(keep))
            data = text.encode()
        if path.endswith(".md"):
            documents.append((path, data))   # written once every source's lines are known
            continue
        write_if_changed(os.path.join(out, path), data)
        if os.access(os.path.join(ROOT, path), os.X_OK):
            os.chmod(os.path.join(out, path), 0o755)
        written.add(path)
    for path, data in documents:
        write_if_changed(os.path.join(out, path), moved_ranges(data.decode("utf-8"), moved_lines).encode())
        written.add(path)
    write_if_changed(os.path.join(out, REGION_FILES),
                     "".join(f"{path}\n" for path in sorted(region_sources)).encode())
    written.add(REGION_FILES)
    stubbed = [task for task in tasks if task not in keep]
    write_if_changed(os.path.join(out, STUDENT_MARKER),
                     ("A student tree (scripts/course.sh student). Tasks left to write:\n" +
                      "".join(f"{task}\t{tasks[task]['title']}\n" for task in stubbed)).encode())
    # A file of an earlier tree that this one lacks (a run with other patches) goes.
    for folder, _, names in os.walk(out):
        if os.path.relpath(folder, out).split(os.sep)[0].startswith(("build", ".git", "runs")):
            continue
        for name in names:
            path = os.path.relpath(os.path.join(folder, name), out)
            if path not in written and path != STUDENT_MARKER and not path.startswith(("build", "runs", "data/", TEACHER_ONLY)):
                os.remove(os.path.join(out, path))
    if not os.path.isdir(os.path.join(out, ".git")):
        make_repository(out)
    print(f"student tree: {out} ({len(stubbed)} of {len(tasks)} tasks to write)")


def make_repository(out):
    """The student tree as a git repository of one commit: the students commit their work on it,
    and the tools that list a tree's files (git ls-files) see it as they see the teacher's."""
    git = ["git", "-C", out, "-c", "user.name=tapeformer course", "-c", "user.email=course@tapeformer.invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "The student tree of the tapeformer course"]):
        if subprocess.run(git + command, capture_output=True).returncode != 0:
            print(f"course: git {command[0]} failed in {out}; the tree is written, without a repository", file=sys.stderr)
            return


CTEST_LINE = re.compile(r"Test\s+#\d+: (A\d+\.\d+):(.*?) \.*\s*(\*\*\*)?(Passed|Failed|Skipped|Not Run|Exception|Timeout)")


def grade(build, json_path):
    """Runs ctest -L <task> for each task in `build`; prints the table and writes the JSON."""
    tasks = read_tasks(ROOT)   # this kit's table: a student's copy of it does not decide the grades
    if not os.path.isfile(os.path.join(build, "CTestTestfile.cmake")):
        raise KitError(f"{build}: not a build folder with tests (run scripts/course.sh grade TREE)")
    results, total, full = [], 0.0, 0
    print(f"{'task':<6} {'title':<40} {'tests passed':>12} {'points':>8}")
    for task, info in tasks.items():
        run = subprocess.run(["ctest", "-L", f"^{re.escape(task)}$", "-j", str(os.cpu_count() or 1)],
                             cwd=build, capture_output=True, text=True)
        outcomes = [(m.group(2).strip(), m.group(4)) for m in CTEST_LINE.finditer(run.stdout) if m.group(1) == task]
        passed = sum(1 for _, status in outcomes if status == "Passed")
        points = info["points"] * passed / len(outcomes) if outcomes else 0.0
        total += points
        full += info["points"]
        print(f"{task:<6} {info['title']:<40} {passed:>5} of {len(outcomes):<4} {points:>5.1f}/{info['points']}")
        failing = [name for name, status in outcomes if status != "Passed"]
        results.append({"name": f"{task} {info['title']}", "task": task, "score": round(points, 2),
                        "max_score": info["points"], "passed": passed, "tests": len(outcomes),
                        "output": f"{passed} of {len(outcomes)} graded tests passed" +
                                  ("; not passed: " + "; ".join(failing) if failing else "")})
    print(f"{'total':<47} {total:>14.1f}/{full}")
    report = {"score": round(total, 2), "max_score": full, "tests": results}
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"grades: {json_path}")
    return report


def list_regions():
    tasks = read_tasks(ROOT)
    for path in tree_files(ROOT):
        if path.endswith((".cpp", ".h")) and not path.startswith(TEACHER_ONLY):
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                for kind, task, _, first, last, _ in regions_of(path, f.read().split("\n"), tasks):
                    print(f"{task}\t{kind}\t{path}:{first + 2}-{last}")


def main(argv):
    if not argv or argv[0] not in ("student", "grade", "regions"):
        raise KitError("usage: course.py student OUT [--keep TASK]... [--patch FILE]... | grade BUILD [--json FILE] | regions")
    command, rest = argv[0], argv[1:]
    options = {"--keep": [], "--patch": [], "--json": []}
    positional = []
    while rest:
        if rest[0] in options:
            if len(rest) < 2:
                raise KitError(f"{rest[0]}: expected a value")
            options[rest[0]].append(rest[1])
            rest = rest[2:]
        else:
            positional.append(rest.pop(0))
    if command == "student":
        if len(positional) != 1:
            raise KitError("student: expected one OUT folder")
        write_student_tree(positional[0], options["--keep"], options["--patch"])
    elif command == "grade":
        if len(positional) != 1:
            raise KitError("grade: expected one BUILD folder")
        json_path = options["--json"][-1] if options["--json"] else os.path.join(positional[0], "grades.json")
        grade(positional[0], json_path)
    else:
        list_regions()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KitError as error:
        print(f"course: {error}", file=sys.stderr)
        sys.exit(2)
