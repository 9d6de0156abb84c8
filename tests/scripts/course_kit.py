#!/usr/bin/env python3
"""The course kit's file rewriting (scripts/course.py), on made-up files: a solution region becomes
a throw naming its task and page, a fast twin its replacement, a kept task its solution; quoted
ranges move with the lines; malformed regions are refused naming the file and line; and every
region in the tree is well formed. Usage: course_kit.py SOURCE_DIR"""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import course  # noqa: E402

TASKS = {"A1.1": {"points": 10, "page": "a1.md", "title": "the first task"},
         "A2.1": {"points": 10, "page": "a2.md", "title": "the second task"}}
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
expect(lines[2] == '    throw NotImplemented("A1.1 the first task: see docs/course/a1.md");', f"the stub is {lines[2]!r}")
expect("return x + 1;" not in lines[:5], "the solution is still in the student's f")
expect(lines[6].startswith("    return f(x);"), f"the fast twin's replacement is {lines[6]!r}")
expect("BEGIN" not in text and "END" not in text, "a marker is left in the student's file")
expect(moved[6] == 4 and moved[12] == 8, f"lines moved to {moved}")
expect(course.moved_ranges("`a.cpp:2-6` `b.cpp:1-3`", {"a.cpp": moved}) == "`a.cpp:2-4` `b.cpp:1-3`",
       "a quoted range did not move with its lines")

kept, _ = course.student_text("a.cpp", SOURCE, TASKS, {"A1.1", "A2.1"})
expect("return x + 1;" in kept.split("\n")[2], "a kept task lost its solution")
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

# Every region of the tree is well formed and names a task of course/tasks.tsv.
tasks = course.read_tasks(sys.argv[1])
regions = 0
for path in course.tree_files(sys.argv[1]):
    if path.endswith((".cpp", ".h")) and not path.startswith(course.TEACHER_ONLY):
        with open(os.path.join(sys.argv[1], path), encoding="utf-8") as f:
            source = f.read()
        if "// BEGIN " in source:
            regions += len(course.regions_of(path, source.split("\n"), tasks))
            course.student_text(path, source, tasks, set())
expect(regions >= len(tasks), f"{regions} regions for {len(tasks)} tasks")

for failure in failures:
    print("FAIL:", failure, file=sys.stderr)
print(f"course kit: {regions} regions in the tree, {len(tasks)} tasks")
sys.exit(1 if failures else 0)
