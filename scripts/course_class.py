"""A whole class (scripts/course.py grade-all) and Gradescope's autograder (course.py gradescope);
docs/course/README.md, "Grading a class"."""
import csv
import os
import stat
import time
import zipfile

import course_grade
from course_sandbox import SandboxError
from course_tree import ROOT, KitError, read_tasks, tree_files

ARCHIVE_ENDINGS = (".tar.gz", ".tar.xz", ".tar.bz2", ".tgz", ".tar", ".zip", ".git")


def student_name(entry):
    """A submission's name in the class's files: the folder's or archive's name, less its ending."""
    for ending in ARCHIVE_ENDINGS:
        if entry.endswith(ending) and len(entry) > len(ending):
            return entry[:-len(ending)]
    return entry


def grade_all(submissions, out, work=None, limits=None):
    """Grades each folder, archive or bare repository in `submissions` into out/<name>/, then writes
    out/grades.csv and out/grades.txt; a submission that cannot be graded gets a 0-point
    results.json saying why, and a line here."""
    tasks = read_tasks(ROOT)
    if not os.path.isdir(submissions):
        raise KitError(f"{submissions}: not a folder of submissions")
    out = course_grade.check_out_folder(out, submissions)
    entries = sorted(entry for entry in os.listdir(submissions) if not entry.startswith("."))
    names = [student_name(entry) for entry in entries]
    clashing = sorted({name for name in names if names.count(name) > 1})
    if clashing:
        raise KitError(f"{submissions}: two submissions are named {clashing[0]} (say, a folder and an archive)")
    if not entries:
        raise KitError(f"{submissions}: holds no submission")
    rows, ungraded = [], []
    for entry, name in zip(entries, names):
        start = time.monotonic()
        print(f"==> {name}", flush=True)
        try:
            report = course_grade.grade(os.path.join(submissions, entry), os.path.join(out, name), work, limits, quiet=True)
        except (KitError, SandboxError) as error:
            report = course_grade.zero_report(tasks, str(error))
            course_grade.write_report(os.path.join(out, name), report)
            ungraded.append(f"{name}: not graded: {error}".split("\n")[0])
        print(f"    {report['score']:.1f} points, graded in {time.monotonic() - start:.0f} s", flush=True)
        rows.append([name, report["score"]] + [test["score"] for test in report["tests"]])
    with open(os.path.join(out, "grades.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "total"] + list(tasks))
        writer.writerows(rows)
    table = [f"{'student':<24} {'total':>6}  " + " ".join(f"{task:>5}" for task in tasks)]
    table += [f"{row[0]:<24} {row[1]:>6.1f}  " + " ".join(f"{score:>5.1f}" for score in row[2:]) for row in rows]
    with open(os.path.join(out, "grades.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(table + ungraded) + "\n")
    print("\n".join(table + ungraded))
    print(f"grades: {os.path.join(out, 'grades.csv')}, and each student's results.json under {out}")
    return 0


# Gradescope runs setup.sh once when it builds the autograder's image, and run_autograder for each
# submission, which it puts in /autograder/submission; it reads /autograder/results/results.json.
# AUTOGRADER_ROOT lets the suite lay out that structure in a scratch folder.
SETUP_SH = """#!/usr/bin/env bash
# Gradescope's image set-up: the packages, and one grade of the kit itself, which builds the
# grading tree so that each submission recompiles only the files that hold its regions.
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
"$root/source/tapeformer/scripts/course.sh" grade "$root/source/tapeformer" --out /tmp/tapeformer-kit-grade
"""
RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope's per-submission run: grade the submission; a refused one still gets its 0-point
# results.json, with the reason in its output.
root=${AUTOGRADER_ROOT:-/autograder}
mkdir -p "$root/results"
"$root/source/tapeformer/scripts/course.sh" grade "$root/submission" --out "$root/results"
status=$?
[ $status -eq 2 ] && exit 0   # refused: results.json says why
exit $status
"""


def write_gradescope_zip(path):
    """The autograder zip: setup.sh, run_autograder, and the kit (teacher's files included) in
    tapeformer/."""
    path = os.path.abspath(path)
    if not path.endswith(".zip"):
        raise KitError(f"{path}: the autograder is a .zip")
    if os.path.isdir(path):
        raise KitError(f"{path}: a folder")
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise KitError(f"{folder}: no such folder")
    partial = path + ".partial"
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name)
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                z.writestr(info, text)
            for file in tree_files(ROOT):
                source = os.path.join(ROOT, file)
                if os.path.islink(source):
                    continue
                z.write(source, f"tapeformer/{file}")
        os.replace(partial, path)
    except OSError as error:
        if os.path.exists(partial):
            os.remove(partial)
        raise KitError(f"{path}: cannot write it ({error.strerror}); nothing was changed")
    print(f"gradescope: {path} (upload it as the autograder; its setup.sh builds the grading tree once)")
