#!/usr/bin/env python3
"""The course kit's file rewriting (scripts/course_tree.py), on made-up files: a solution region
becomes a throw naming its task and page between its markers, a fast twin its replacement, a kept
task its solution, a submission's region its text; quoted ranges move with the lines; malformed
regions are refused naming the file and line; a capstone's needs are read and checked; and every
region in the tree is well formed.
Usage: course_kit.py SOURCE_DIR"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import course_tree as course  # noqa: E402

TASKS = {"A1.1": {"points": 10, "page": "a1.md", "title": "the first task", "needs": []},
         "A2.1": {"points": 10, "page": "a2.md", "title": "the second task", "needs": []}}
SOURCE = """#include "autograd/error.h"
int f(int x) {
    // BEGIN SOLUTION A1.1
    return x + 1;
    // END SOLUTION
}

int g(int x) {
    // BEGIN FAST A2.1: return f(x);
    return x + 1;
    // END FAST
}
"""
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


text, moved = course.student_text("a.cpp", SOURCE, TASKS, set())
lines = text.split("\n")
expect(lines[3] == '    throw NotImplemented("A1.1 the first task: see docs/course/a1.md");', f"the stub is {lines[3]!r}")
expect(lines[2] == "    // BEGIN SOLUTION A1.1" and lines[4] == "    // END SOLUTION", "the stub lost its markers")
expect("return x + 1;" not in lines[:6], "the solution is still in the student's f")
expect(lines[8].startswith("    return f(x);"), f"the fast twin's replacement is {lines[8]!r}")
expect("FAST" not in text, "a fast twin's marker is left in the student's file")
expect(moved[6] == 6 and moved[12] == 10, f"lines moved to {moved}")
expect(course.moved_ranges("`a.cpp:8-12` `b.cpp:1-3`", {"a.cpp": moved}) == "`a.cpp:8-10` `b.cpp:1-3`",
       "a quoted range did not move with its lines")

# A submission's region is found by its markers and put in the stub's place; others keep their stubs.
found = course.solution_regions("a.cpp", text.replace("throw NotImplemented", "return 7; //"), TASKS)
expect(list(found) == [("A1.1", 1)] and found[("A1.1", 1)][0].startswith("    return 7;"), f"found {found}")
graded, _ = course.student_text("a.cpp", SOURCE, TASKS, set(), {("A1.1", 1): ["    return 7;"]})
expect(graded.split("\n")[2:5] == ["    // BEGIN SOLUTION A1.1", "    return 7;", "    // END SOLUTION"],
       f"the submission's region was put as {graded.split(chr(10))[2:5]}")
empty, _ = course.student_text("a.cpp", SOURCE, TASKS, {"A1.1"}, {})
expect("throw NotImplemented" in empty, "a region the submission lacks did not get its stub")

kept, _ = course.student_text("a.cpp", SOURCE, TASKS, {"A1.1", "A2.1"})
expect("return x + 1;" in kept.split("\n")[3], "a kept task lost its solution")
expect("return f(x);" in kept, "a kept task's fast twin was not switched off")

for name, bad, where in [
        ("unclosed", '#include "autograd/error.h"\n// BEGIN SOLUTION A1.1\nint x;\n', "a.cpp:2"),
        ("nested", '#include "autograd/error.h"\n// BEGIN SOLUTION A1.1\n// BEGIN SOLUTION A2.1\n// END SOLUTION\n// END SOLUTION\n', "a.cpp:3"),
        ("unknown task", '#include "autograd/error.h"\n// BEGIN SOLUTION A9.9\n// END SOLUTION\n', "a.cpp:2"),
        ("END without BEGIN", "// END SOLUTION\n", "a.cpp:1"),
        ("no NotImplemented", "// BEGIN SOLUTION A1.1\n// END SOLUTION\n", "error.h")]:
    try:
        course.student_text("a.cpp", bad, TASKS, set())
        failures.append(f"{name}: accepted")
    except course.KitError as error:
        expect(where in str(error), f"{name}: the message does not name {where}: {error}")

# A capstone's needs are rows above it; one naming a task below or unknown is refused, naming the line.
with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, "course"))
    for table, needs in (("A1.1\t10\ta1.md\tfirst\nA6.1\t10\ta6.md\tcapstone\tA1.1\n", ["A1.1"]),
                         ("A6.1\t10\ta6.md\tcapstone\tA1.1\nA1.1\t10\ta1.md\tfirst\n", None)):
        with open(os.path.join(scratch, "course/tasks.tsv"), "w") as f:
            f.write(table)
        try:
            read = course.read_tasks(scratch)
            expect(needs is not None and read["A6.1"]["needs"] == needs and course.written_tasks(read) == ["A1.1"],
                   f"tasks.tsv with needs read as {read}")
        except course.KitError as error:
            expect(needs is None and "tasks.tsv:1: A6.1 needs A1.1" in str(error), f"needs refused: {error}")

# Every region of the tree is well formed and names a task of course/tasks.tsv; every task a student
# writes has one, and no capstone does.
tasks = course.read_tasks(sys.argv[1])
regions, with_regions = 0, set()
for path in course.tree_files(sys.argv[1]):
    if path.endswith((".cpp", ".h")) and not path.startswith(course.TEACHER_ONLY):
        with open(os.path.join(sys.argv[1], path), encoding="utf-8") as f:
            source = f.read()
        if "// BEGIN " in source:
            found = course.regions_of(path, source.split("\n"), tasks)
            regions += len(found)
            with_regions |= {region[1] for region in found}
            course.student_text(path, source, tasks, set())
expect(with_regions == set(course.written_tasks(tasks)),
       f"tasks with regions {sorted(with_regions)}, tasks a student writes {course.written_tasks(tasks)}")

for failure in failures:
    print("FAIL:", failure, file=sys.stderr)
print(f"course kit: {regions} regions in the tree, {len(tasks)} tasks")
sys.exit(1 if failures else 0)
