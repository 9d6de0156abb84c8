#!/usr/bin/env python3
"""The course kit (docs/course/README.md), called by scripts/course.sh:

  course.py student OUT [--keep TASK]... [--patch FILE]...   write the student tree into OUT
  course.py grade SUBMISSION --out DIR [--work DIR]          grade one submission into DIR
  course.py grade-all SUBMISSIONS --out DIR [--work DIR]     grade every submission in a folder
  course.py gradescope OUT.zip                               Gradescope's autograder, as a zip
  course.py regions                                          list the solution regions

A submission is a folder, a zip or tar archive, or a bare git repository. Exit 2 for bad input,
naming the problem; nothing already written is lost."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_sandbox  # noqa: E402
from course_tree import KitError, list_regions, write_student_tree  # noqa: E402


def limits_from(arguments):
    return course_sandbox.Limits(test_seconds=arguments.test_seconds, task_seconds=arguments.task_seconds,
                                 build_seconds=arguments.build_seconds, memory_bytes=arguments.memory_mib << 20)


def main(argv):
    parser = argparse.ArgumentParser(prog="scripts/course.sh", description="the tapeformer course kit")
    commands = parser.add_subparsers(dest="command", required=True)
    student = commands.add_parser("student", help="write the student tree")
    student.add_argument("out")
    student.add_argument("--keep", action="append", default=[], metavar="TASK", help="keep this task's solution")
    student.add_argument("--patch", action="append", default=[], metavar="FILE", help="apply this patch first")
    for name, what in (("grade", "a submission: a folder, an archive or a bare git repository"),
                       ("grade-all", "a folder of submissions, one per student")):
        grading = commands.add_parser(name, help=f"grade {what}")
        grading.add_argument("submission", metavar="SUBMISSIONS" if name == "grade-all" else "SUBMISSION", help=what)
        grading.add_argument("--out", required=True, help="where the grades go (a folder of the teacher's)")
        grading.add_argument("--work", help="the grading tree and its build, kept between grades")
        defaults = course_sandbox.Limits()
        grading.add_argument("--test-seconds", type=int, default=defaults.test_seconds, help="wall clock per test")
        grading.add_argument("--task-seconds", type=int, default=defaults.task_seconds, help="wall clock per task")
        grading.add_argument("--build-seconds", type=int, default=defaults.build_seconds, help="wall clock for a build")
        grading.add_argument("--memory-mib", type=int, default=defaults.memory_bytes >> 20, help="address space per process")
    gradescope = commands.add_parser("gradescope", help="write Gradescope's autograder zip")
    gradescope.add_argument("zip")
    commands.add_parser("regions", help="list the solution regions")
    arguments = parser.parse_args(argv)

    if arguments.command == "student":
        write_student_tree(arguments.out, arguments.keep, arguments.patch)
    elif arguments.command in ("grade", "grade-all"):
        import course_grade
        import course_class
        if not os.path.exists(arguments.submission):
            raise KitError(f"{arguments.submission}: no such submission")
        if arguments.command == "grade":
            course_grade.grade(arguments.submission, arguments.out, arguments.work, limits_from(arguments))
        else:
            return course_class.grade_all(arguments.submission, arguments.out, arguments.work, limits_from(arguments))
    elif arguments.command == "gradescope":
        import course_class
        course_class.write_gradescope_zip(arguments.zip)
    else:
        list_regions()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (KitError, course_sandbox.SandboxError) as error:
        print(f"course: {error}", file=sys.stderr)
        sys.exit(2)
    except OSError as error:   # a full disk, a folder taken away while it ran: nothing written is lost
        where = f"{error.filename}: " if error.filename else ""
        print(f"course: {where}{error.strerror or error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
