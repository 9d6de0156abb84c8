"""The course's regions and the student tree (scripts/course.py, docs/course/README.md).

The tree marks the code a student writes between `// BEGIN SOLUTION <task>` and `// END SOLUTION`;
the student tree keeps both markers and has a throw of NotImplemented between them. Code that would
run in the place of a student's (a fast twin) sits between `// BEGIN FAST <task>: <replacement>`
and `// END FAST`; the student tree has the replacement there instead (often nothing, or a call of
the readable path). The tasks are the rows of course/tasks.tsv; course/teacher/ (answers, hidden
tests, wrong solutions) is left out of the student tree."""
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
# a student tree has no FAST markers, so it lists them.
REGION_FILES = "course/region-files.txt"
BEGIN = re.compile(r"^(\s*)// BEGIN (SOLUTION|FAST) (A\d+\.\d+)(?::\s?(.*))?$")
END = re.compile(r"^\s*// END (SOLUTION|FAST)\s*$")
# What a student's build writes inside the tree, which is theirs and no file of the kit's.
BUILD_OUTPUTS = ("build", "runs", "data/poetry/", "data/bench/")


class KitError(Exception):
    """Bad input or a malformed tree: exit 2."""


def read_tasks(root):
    """course/tasks.tsv: {id: {"points", "page", "title", "needs"}} in file order. A capstone names
    the tasks it needs (earlier rows), comma-separated, in a fifth column; it has no region."""
    tasks = {}
    with open(os.path.join(root, "course/tasks.tsv"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) not in (4, 5) or not re.fullmatch(r"A\d+\.\d+", fields[0]) or not fields[1].isdigit():
                raise KitError(f"course/tasks.tsv:{number}: expected 'A<n>.<m> <points> <page> <title> [needs]', tab-separated")
            needs = fields[4].split(",") if len(fields) == 5 else []
            unknown = [task for task in needs if task not in tasks]
            if unknown:
                raise KitError(f"course/tasks.tsv:{number}: {fields[0]} needs {unknown[0]}, which is not a row above it")
            tasks[fields[0]] = {"points": int(fields[1]), "page": fields[2], "title": fields[3], "needs": needs}
    return tasks


def written_tasks(tasks):
    """The tasks a student writes code for: every one but the capstones."""
    return [task for task, info in tasks.items() if not info["needs"]]


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
    """[(kind, task, replacement, first, last, indent)] with first/last the marker lines' indices."""
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


def solution_regions(path, text, tasks):
    """{(task, n): [line, …]}: the lines inside the n-th SOLUTION region of each task in one file."""
    lines, found, seen = text.split("\n"), {}, {}
    for kind, task, _, first, last, _ in regions_of(path, lines, tasks):
        if kind == "SOLUTION":
            seen[task] = seen.get(task, 0) + 1
            found[(task, seen[task])] = lines[first + 1:last]
    return found


def student_text(path, text, tasks, keep, solutions=None):
    """The student's version of one file: each solution region of a task not in `keep` a stub
    between its markers (or the lines `solutions` holds for it, keyed (task, n)), and every fast
    twin replaced. Returns the text and where each of the file's lines moved (1-based)."""
    lines = text.split("\n")
    regions = regions_of(path, lines, tasks)
    if any(kind == "SOLUTION" for kind, *_ in regions) and '#include "autograd/error.h"' not in text:
        raise KitError(f'{path}: has a solution region but does not include "autograd/error.h" (NotImplemented)')
    out, cursor, seen = [], 0, {}
    moved = {}   # a line of the tree's file (1-based) → where it is in the student's, for quoted ranges
    def keep_lines(begin, end):
        for index in range(begin, end):
            moved[index + 1] = len(out) + 1
            out.append(lines[index])
    for kind, task, replacement, first, last, indent in regions:
        keep_lines(cursor, first)
        if kind == "SOLUTION":
            seen[task] = seen.get(task, 0) + 1
            keep_lines(first, first + 1)   # the markers stay: a grader finds the student's code by them
            if solutions is not None and (task, seen[task]) in solutions:
                out.extend(solutions[(task, seen[task])])
            elif solutions is None and task in keep:   # the fast twins stay off: the student's code is what runs
                keep_lines(first + 1, last)
            else:
                info = tasks[task]
                message = f"{task} {info['title']}: see docs/course/{info['page']}"
                out.append(f"{indent}throw NotImplemented({json.dumps(message, ensure_ascii=False)});")
            keep_lines(last, last + 1)
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


def region_files(root=ROOT):
    """The tree's .cpp and .h files that hold a region (teacher's course/teacher/ left out)."""
    found = []
    for path in tree_files(root):
        if path.endswith((".cpp", ".h")) and not path.startswith(TEACHER_ONLY):
            with open(os.path.join(root, path), "rb") as f:
                if b"// BEGIN " in f.read():
                    found.append(path)
    return found


def student_files(keep=(), patches=(), solutions=None):
    """{path: bytes}: the whole student tree, every file as the kit writes it. `solutions`:
    {path: {(task, n): lines}} puts a submission's regions in place of the stubs."""
    tasks = read_tasks(ROOT)
    unknown = [task for task in keep if task not in tasks]
    if unknown:
        raise KitError(f"--keep {unknown[0]}: no such task in course/tasks.tsv")
    replaced = patched_sources(patches)
    files, moved_lines, documents, region_sources = {}, {}, [], []
    for path in tree_files(ROOT):
        if path.startswith(TEACHER_ONLY) or path in (STUDENT_MARKER, REGION_FILES):
            continue
        if path in replaced:
            data = replaced[path].encode()
        else:
            with open(os.path.join(ROOT, path), "rb") as f:
                data = f.read()
        if path.endswith(".cpp") and re.search(rb"// BEGIN (SOLUTION|FAST) ", data):
            region_sources.append(path)   # the same test as CMakeLists.txt's
        if path.endswith((".cpp", ".h")) and b"// BEGIN " in data:
            text, moved_lines[path] = student_text(path, data.decode("utf-8"), tasks, set(keep),
                                                   None if solutions is None else solutions.get(path, {}))
            data = text.encode()
        if path.endswith(".md"):
            documents.append((path, data))   # written once every source's lines are known
        else:
            files[path] = data
    for path, data in documents:
        files[path] = moved_ranges(data.decode("utf-8"), moved_lines).encode()
    files[REGION_FILES] = "".join(f"{path}\n" for path in sorted(region_sources)).encode()
    stubbed = [task for task in written_tasks(tasks) if task not in keep]
    files[STUDENT_MARKER] = ("A student tree (scripts/course.sh student). Tasks left to write:\n" +
                             "".join(f"{task}\t{tasks[task]['title']}\n" for task in stubbed)).encode()
    return files


def changed_files(out, files):
    """The files of an existing student tree that are not what the kit would write there now: each
    kit file that differs or is missing, and what git calls modified or untracked."""
    changed = []
    for path, data in files.items():
        target = os.path.join(out, path)
        if os.path.islink(target) or not os.path.isfile(target):
            changed.append(path)
            continue
        with open(target, "rb") as f:
            if f.read() != data:
                changed.append(path)
    if os.path.isdir(os.path.join(out, ".git")):
        status = subprocess.run(["git", "-C", out, "status", "--porcelain", "-z", "--untracked-files=all"],
                                capture_output=True)
        if status.returncode != 0:
            changed.append(".git (git status fails there)")
        for entry in status.stdout.decode(errors="replace").split("\0"):
            path = entry[3:]
            if path and path not in changed and not path.startswith(BUILD_OUTPUTS):
                changed.append(path)
    return sorted(changed)


def write_student_tree(out, keep=(), patches=(), quiet=False):
    """Writes the student tree into `out`: a new or empty folder, or a student tree that holds
    exactly what the kit writes (anything else there is a student's work, and is refused)."""
    files = student_files(keep, patches)
    out = os.path.abspath(out)
    if out == ROOT or out.startswith(ROOT + os.sep):
        raise KitError(f"{out}: the student tree goes outside this tree (say ../student)")
    if os.path.exists(out) and not os.path.isdir(out):
        raise KitError(f"{out}: not a folder")
    if os.path.isdir(out) and os.listdir(out):
        if not os.path.isfile(os.path.join(out, STUDENT_MARKER)):
            raise KitError(f"{out}: not empty and not a student tree; give a new or empty folder (nothing there was changed)")
        changed = changed_files(out, files)
        if changed:
            shown = "\n  ".join(changed[:20]) + (f"\n  … and {len(changed) - 20} more" if len(changed) > 20 else "")
            raise KitError(f"{out}: a student tree with work in it; these differ from what the kit writes "
                           f"(nothing was changed; a kit fix reaches students as a commit they pull, "
                           f"docs/course/README.md):\n  {shown}")
    for path, data in files.items():
        write_if_changed(os.path.join(out, path), data)
        if os.path.isfile(os.path.join(ROOT, path)) and os.access(os.path.join(ROOT, path), os.X_OK):
            os.chmod(os.path.join(out, path), 0o755)
    if not os.path.isdir(os.path.join(out, ".git")):
        make_repository(out)
    if not quiet:
        written = written_tasks(read_tasks(ROOT))
        stubbed = [task for task in written if task not in keep]
        print(f"student tree: {out} ({len(stubbed)} of {len(written)} tasks to write)")
    return files


def make_repository(out):
    """The student tree as a git repository of one commit: the students commit their work on it,
    and the tools that list a tree's files (git ls-files) see it as they see the teacher's."""
    git = ["git", "-C", out, "-c", "user.name=tapeformer course", "-c", "user.email=course@tapeformer.invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "The student tree of the tapeformer course"]):
        if subprocess.run(git + command, capture_output=True).returncode != 0:
            print(f"course: git {command[0]} failed in {out}; the tree is written, without a repository", file=sys.stderr)
            return


def list_regions():
    tasks = read_tasks(ROOT)
    for path in region_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            for kind, task, _, first, last, _ in regions_of(path, f.read().split("\n"), tasks):
                print(f"{task}\t{kind}\t{path}:{first + 2}-{last}")
