#!/usr/bin/env bash
# The course kit (docs/course/README.md):
#   scripts/course.sh student OUT                 write the student tree into OUT: each task's solution
#                                                 region a stub that throws NotImplemented between its
#                                                 markers, course/teacher/ left out
#   scripts/course.sh grade SUBMISSION --out DIR  grade a submission (a folder, a zip or tar archive, or
#                                                 a bare git repository): its regions only, built and
#                                                 tested in a sandbox; DIR/results.json for Gradescope
#   scripts/course.sh grade-all SUBMISSIONS --out DIR   every submission in a folder, and a class CSV
#   scripts/course.sh gradescope OUT.zip          Gradescope's autograder (setup.sh, run_autograder, kit)
#   scripts/course.sh check                       the kit checks itself (CI runs it; scripts/course_check.py)
set -euo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
    check) shift; exec python3 "$kit/scripts/course_check.py" "$@" ;;
    student | grade | grade-all | gradescope | regions) exec python3 "$kit/scripts/course.py" "$@" ;;
    *) echo "usage: scripts/course.sh student OUT | grade SUBMISSION --out DIR | grade-all SUBMISSIONS --out DIR | gradescope OUT.zip | check" >&2
       exit 2 ;;
esac
