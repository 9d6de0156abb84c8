#!/usr/bin/env python3
"""The course kit checks itself (scripts/course.sh check; CI runs it):
  1. the kit, graded as a submission, earns every point;
  2. the student tree builds as a student builds it, passes every test no task blocks, grades 0;
  3. each task's solution alone earns exactly its points, and no capstone is graded (grade-all over
     one submission per task, which also writes their JSONs and the class CSV);
  4. every wrong solution in course/teacher/wrong/ loses its task's points;
  5. the cheats a trial found score nothing: edited, emptied and deleted tests, a replaced
     scripts/setup.sh and CMakeLists.txt, extra tests under a task's label, a test named " Passed",
     a region that exits 0 — on a tree with A1 and A2 honestly solved, which earns 60 (A1, A2 and
     the capstone they make, A6.1; A6.2, which needs A3, is not graded);
  6. a submission holding a link is refused, naming it, with a 0-point results.json; a region
     file that does not compile costs its tasks alone; a region that loops, allocates without
     bound or forks without end costs its task, within the limits;
  7. Gradescope's run_autograder, from the zip, grades a submission in a scratch /autograder.
TF_COURSE_CHECK_DIR: where its trees go (default /tmp/tapeformer-course-check)."""
import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_class  # noqa: E402
import course_grade  # noqa: E402
from course_sandbox import Limits  # noqa: E402
from course_tree import (ROOT, KitError, read_tasks, region_files, student_files, write_student_tree,  # noqa: E402
                         written_tasks)

CHECK = os.environ.get("TF_COURSE_CHECK_DIR", "/tmp/tapeformer-course-check")
WORK = os.path.join(CHECK, "grading")
TASKS = read_tasks(ROOT)
failures = []


def expect(report, pattern_tasks, expected, what):
    """expected: FULL, ZERO or LESS for each task in pattern_tasks."""
    for test in report["tests"]:
        if test["number"] not in pattern_tasks:
            continue
        full = test["score"] == test["max_score"]
        wrong = (expected == "FULL" and not full) or (expected == "ZERO" and test["score"] != 0) or \
                (expected == "LESS" and full)
        if wrong or test["extra_data"]["tests"] == 0 and expected != "ZERO":
            failures.append(f"{what}: {test['number']} scored {test['score']}/{test['max_score']}, "
                            f"expected {expected}: {test['output'][:600]}")


def submission(name, keep=(), patches=(), edits=None, whole_tree=False, parent="submissions"):
    """A submission folder: the student tree with `keep`'s solutions (the whole tree, or its region
    files alone), then `edits` ({path: text or None to delete}) applied."""
    folder = os.path.join(CHECK, parent, name)
    shutil.rmtree(folder, ignore_errors=True)
    if whole_tree:
        write_student_tree(folder, keep, patches, quiet=True)
    else:
        files = student_files(keep, patches)
        for path in region_files():
            os.makedirs(os.path.dirname(os.path.join(folder, path)), exist_ok=True)
            with open(os.path.join(folder, path), "wb") as f:
                f.write(files[path])
    for path, text in (edits or {}).items():
        target = os.path.join(folder, path)
        if text is None:
            os.remove(target)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
    return folder


def region_edit(path, task, body, keep_others=()):
    """{path: text}: the student's file with `task`'s region holding `body`."""
    text = student_files(keep_others)[path].decode()
    begin = text.index(f"// BEGIN SOLUTION {task}")
    end = text.index("// END SOLUTION", begin)
    line_end = text.index("\n", begin)
    return {path: text[:line_end + 1] + body + "\n" + text[text.rindex("\n", 0, end) + 1:]}


def grade(folder, name, limits=Limits()):
    return course_grade.grade(folder, os.path.join(CHECK, "grades", name), WORK, limits, quiet=True)


def run(command, log, cwd=ROOT):
    with open(log, "w") as f:
        status = subprocess.run(command, cwd=cwd, stdout=f, stderr=subprocess.STDOUT).returncode
    if status:
        with open(log, errors="replace") as f:
            print(f.read()[-3000:], file=sys.stderr)
    return status


def step(title):
    print(f"==> course check: {title}", flush=True)


def main():
    os.makedirs(CHECK, exist_ok=True)
    a1_a2 = [task for task in TASKS if task.startswith(("A1.", "A2."))]

    step("the kit, graded as a submission, earns every point")
    expect(grade(ROOT, "kit"), TASKS, "FULL", "the kit")

    step("the student tree builds, passes every test no task blocks, grades 0")
    student = os.path.join(CHECK, "student")
    shutil.rmtree(student, ignore_errors=True)
    write_student_tree(student)
    build = ('source scripts/setup.sh && TF_PACKAGES+=("${TF_TEST_PACKAGES[@]}") && tf_install_missing && '
             'tf_prepare_data && tf_build build -DTF_TESTS=ON')
    if run(["bash", "-c", build], student + ".build.log", student) or \
            run(["ctest", "-j", str(os.cpu_count() or 1), "-LE", "^A[0-9]"], student + ".ctest.log", os.path.join(student, "build")):
        sys.exit("course check: the student tree does not build, or fails tests no task blocks")
    expect(grade(student, "student"), TASKS, "ZERO", "the student tree")

    step("each task's solution alone earns exactly its points (grade-all)")
    singles = os.path.join(CHECK, "singles")
    shutil.rmtree(singles, ignore_errors=True)
    for task in written_tasks(TASKS):
        submission(task, keep=[task], parent="singles")
    course_class.grade_all(singles, os.path.join(CHECK, "class"), WORK)
    for task in written_tasks(TASKS):
        with open(os.path.join(CHECK, "class", task, "results.json"), encoding="utf-8") as f:
            report = json.load(f)
        expect(report, [task], "FULL", f"{task} alone")
        expect(report, [t for t in TASKS if t != task], "ZERO", f"{task} alone")
    with open(os.path.join(CHECK, "class", "grades.csv"), encoding="utf-8") as f:
        if len(list(csv.reader(f))) != len(written_tasks(TASKS)) + 1:
            failures.append("grade-all: grades.csv has not one row per submission")

    step("every wrong solution loses its task's points")
    wrong = os.path.join(ROOT, "course/teacher/wrong")
    by_task = {}
    for name in sorted(os.listdir(wrong)):
        if name.endswith(".patch"):
            by_task.setdefault(name.split("-")[0], []).append(os.path.join(wrong, name))
    # Two wrong solutions of one task may change the same lines: round k grades each task's k-th.
    for round_number in range(max(len(patches) for patches in by_task.values())):
        patches = [patches[round_number] for patches in by_task.values() if round_number < len(patches)]
        report = grade(submission("wrong", keep=list(TASKS), patches=patches), "wrong")
        for patch in patches:
            print(f"    {os.path.basename(patch)}")
            expect(report, [os.path.basename(patch).split("-")[0]], "LESS", os.path.basename(patch))

    step("cheats score nothing: A1 and A2 solved, every test file, setup.sh and CMakeLists.txt edited")
    cheats = {
        "scripts/setup.sh": "tf_build() { mkdir -p \"$1\"; echo 'add_test(A3.1 true)' > \"$1/CTestTestfile.cmake\"; }\n",
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cheat)\nenable_testing()\n"
                          "add_test(NAME \"A3.1: it Passed\" COMMAND true)\nset_tests_properties(\"A3.1: it Passed\" PROPERTIES LABELS A3.1)\n",
        "tests/CMakeLists.txt": "add_test(NAME cheat COMMAND true)\nset_tests_properties(cheat PROPERTIES LABELS A4.2)\n",
        "tests/test_cheat.cpp": "".join(f'#include "catch.h"\nTEST_CASE("empty {i} Passed", "[unit][graded][A4.1]") {{}}\n'
                                        for i in range(9)),
        "tests/test_bpe.cpp": None,
        "tests/test_course_tasks.cpp": None,
    }
    cheats.update(region_edit("src/datasets/bpe.cpp", "A5.1", "    std::_Exit(0);", keep_others=a1_a2))
    folder = submission("cheats", keep=a1_a2, edits=cheats, whole_tree=True)
    report = grade(folder, "cheats")
    # A1 and A2 are what the copy transformer's capstone needs: it is graded, and passes.
    expect(report, a1_a2 + ["A6.1"], "FULL", "cheats")
    expect(report, [t for t in TASKS if t not in a1_a2 + ["A6.1"]], "ZERO", "cheats")
    if report["score"] != 60:
        failures.append(f"cheats: the A1 + A2 tree scored {report['score']}, not 60")
    if "not graded: a capstone" not in next(t for t in report["tests"] if t["number"] == "A6.2")["output"]:
        failures.append("cheats: the recall capstone, whose A3 tasks fail, does not say it was not graded")

    step("a link in a submission is refused, naming it, with a 0-point results.json")
    linked = submission("linked", keep=a1_a2)
    os.symlink("/etc/passwd", os.path.join(linked, "src/notes.txt"))
    try:
        grade(linked, "linked")
        failures.append("a submission holding a link was graded")
    except KitError as error:
        if "src/notes.txt" not in str(error):
            failures.append(f"the refusal does not name the link: {error}")
    with open(os.path.join(CHECK, "grades", "linked", "results.json"), encoding="utf-8") as f:
        if json.load(f)["score"] != 0:
            failures.append("a refused submission's results.json is not 0 points")

    step("a region that does not compile, loops, allocates or forks without end costs its task alone")
    edits = {}
    edits.update(region_edit("src/autograd/ops/unary.cpp", "A1.2", "    this is not C++;", keep_others=a1_a2))
    edits.update(region_edit("src/autograd/kernels/softmax.cpp", "A1.1", "    for (volatile int i = 0;; i = i + 1) {}", keep_others=a1_a2))
    edits.update(region_edit("src/layers/attention/scaled_dot_product.cpp", "A2.1",
                             "    for (;;) new char[1 << 20]();", keep_others=a1_a2))
    edits.update(region_edit("src/autograd/ops/matmul.cpp", "A1.3",
                             "    std::system(\"f() { f | f & }; f\");\n    throw NotImplemented(\"a fork bomb\");", keep_others=a1_a2))
    runaway = submission("runaway", keep=a1_a2, edits=edits)
    report = grade(runaway, "runaway", Limits(test_seconds=10, task_seconds=60, memory_bytes=2 << 30))
    expect(report, ["A1.1", "A1.2", "A1.3", "A2.1"], "ZERO", "runaway")
    expect(report, ["A2.2"], "FULL", "runaway")
    if "does not compile" not in next(t for t in report["tests"] if t["number"] == "A1.2")["output"]:
        failures.append("a region that does not compile is not said to")

    step("Gradescope's run_autograder grades a submission in a scratch /autograder")
    root = os.path.join(CHECK, "gradescope", "autograder")
    shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    os.makedirs(root)
    zip_path = os.path.join(CHECK, "gradescope", "autograder.zip")
    course_class.write_gradescope_zip(zip_path)
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(os.path.join(root, "source"))
    for name in ("run_autograder", "setup.sh", "tapeformer/scripts/course.sh"):
        os.chmod(os.path.join(root, "source", name), 0o755)
    shutil.copytree(os.path.join(CHECK, "singles", "A2.2"), os.path.join(root, "submission"))
    environment = dict(os.environ, AUTOGRADER_ROOT=root, TF_COURSE_WORK=WORK)
    status = subprocess.run([os.path.join(root, "source", "run_autograder")], env=environment).returncode
    try:
        with open(os.path.join(root, "results", "results.json"), encoding="utf-8") as f:
            report = json.load(f)
        expect(report, ["A2.2"], "FULL", "run_autograder")
        expect(report, [t for t in TASKS if t != "A2.2"], "ZERO", "run_autograder")
    except OSError:
        failures.append(f"run_autograder (exit {status}) wrote no results.json")

    for failure in failures:
        print("course check:", failure, file=sys.stderr)
    print("course check: " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
