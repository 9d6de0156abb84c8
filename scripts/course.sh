#!/usr/bin/env bash
# The course kit (docs/course/README.md):
#   scripts/course.sh student OUT     write the student tree into OUT: each task's solution region a
#                                     stub that throws NotImplemented, course/teacher/ left out
#   scripts/course.sh grade [TREE]    build TREE (default: this tree) and run each task's graded
#                                     tests: a table, and TREE/build/grades.json for an LMS
#   scripts/course.sh check           the kit checks itself (CI runs it): the student tree builds and
#                                     passes every test no task blocks, grades 0; each task restored
#                                     alone earns exactly its points; every wrong solution in
#                                     course/teacher/wrong/ loses its task's points; this tree grades full
set -euo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)

# build_tree TREE [TARGET...]: TREE's own set-up, data and Release build with the tests, in TREE/build.
build_tree() {
    local tree=$1
    shift
    (
        source "$tree/scripts/setup.sh"
        TF_PACKAGES+=("${TF_TEST_PACKAGES[@]}")
        tf_install_missing
        tf_prepare_data
        if [ $# -gt 0 ]; then tf_build "$tree/build" -DTF_TESTS=ON -- "$@"; else tf_build "$tree/build" -DTF_TESTS=ON; fi
    )
}

# grade TREE [--json FILE]: grades TREE/build with this kit's task table. The teacher's hidden tests
# (course/teacher/hidden/) join a tree that lacks them before it is built.
grade() {
    local tree
    tree=$(cd "$1" && pwd)
    shift
    if [ -d "$kit/course/teacher/hidden" ] && [ "$tree" != "$kit" ]; then
        mkdir -p "$tree/course/teacher/hidden"
        cp "$kit"/course/teacher/hidden/*.cpp "$tree/course/teacher/hidden/"
    fi
    mkdir -p "$tree/build"
    build_tree "$tree" > "$tree/build/course-build.log" 2>&1 || {
        tail -30 "$tree/build/course-build.log" >&2
        echo "course: $tree does not build (the log: $tree/build/course-build.log)" >&2
        return 1
    }
    python3 "$kit/scripts/course.py" grade "$tree/build" "$@"
}

# expect_points JSON TASK-PATTERN FULL|ZERO|LESS: the grades of the tasks matching the pattern.
expect_points() {
    python3 - "$@" <<'EOF'
import json, re, sys
grades, pattern, expected = json.load(open(sys.argv[1])), re.compile(sys.argv[2]), sys.argv[3]
wrong = []
for t in grades["tests"]:
    if not pattern.fullmatch(t["task"]):
        continue
    if t["tests"] == 0:
        wrong.append(f"{t['task']} has no graded tests")
    elif expected == "FULL" and t["score"] != t["max_score"]:
        wrong.append(f"{t['task']}: {t['output']}, expected every one to pass")
    elif expected == "ZERO" and t["passed"] != 0:
        wrong.append(f"{t['task']}: {t['output']}, expected none to pass")
    elif expected == "LESS" and t["score"] >= t["max_score"]:
        wrong.append(f"{t['task']}: {t['output']}, expected the wrong solution to fail some")
for line in wrong:
    print("course check:", line, file=sys.stderr)
sys.exit(1 if wrong else 0)
EOF
}

check() {
    local student=${TF_COURSE_CHECK_DIR:-/tmp/tapeformer-course-check}/student
    local tasks
    tasks=$(grep -oE '^A[0-9]+\.[0-9]+' "$kit/course/tasks.tsv")
    echo "==> course check: this tree grades full points"
    grade "$kit" --json "$kit/build/grades.json"
    expect_points "$kit/build/grades.json" '.*' FULL

    echo "==> course check: the student tree builds, passes every test no task blocks, grades 0"
    rm -rf "$student"
    python3 "$kit/scripts/course.py" student "$student"
    build_tree "$student" > "$student.build.log" 2>&1 || { tail -30 "$student.build.log" >&2; return 1; }
    (cd "$student/build" && ctest -j "$(nproc)" -LE '^A[0-9]') > "$student.ctest.log" 2>&1 ||
        { grep -E "Failed|\*\*\*" "$student.ctest.log" >&2; echo "course check: the student tree fails tests no task blocks" >&2; return 1; }
    echo "    $(grep -E 'tests passed' "$student.ctest.log"); $(grep -c '\*\*\*Skipped' "$student.ctest.log") of them blocked by a task (skipped)"
    python3 "$kit/scripts/course.py" grade "$student/build" --json "$student/grades.json" > /dev/null
    expect_points "$student/grades.json" '.*' ZERO

    for task in $tasks; do
        echo "==> course check: $task restored alone earns exactly its points"
        python3 "$kit/scripts/course.py" student "$student" --keep "$task" > /dev/null
        build_tree "$student" tapeformer_tests > "$student.build.log" 2>&1 || { tail -30 "$student.build.log" >&2; return 1; }
        python3 "$kit/scripts/course.py" grade "$student/build" --json "$student/grades.json" > /dev/null
        expect_points "$student/grades.json" "${task//./\\.}" FULL
        expect_points "$student/grades.json" "(?!${task//./\\.}\$).*" ZERO
    done

    echo "==> course check: every wrong solution loses its task's points"
    local patches=("$kit"/course/teacher/wrong/*.patch) keep=()
    for task in $tasks; do keep+=(--keep "$task"); done
    local patched=()
    for patch in "${patches[@]}"; do patched+=(--patch "$patch"); done
    python3 "$kit/scripts/course.py" student "$student" "${keep[@]}" "${patched[@]}" > /dev/null
    build_tree "$student" tapeformer_tests > "$student.build.log" 2>&1 || { tail -30 "$student.build.log" >&2; return 1; }
    python3 "$kit/scripts/course.py" grade "$student/build" --json "$student/grades.json" > /dev/null
    for patch in "${patches[@]}"; do
        local name task
        name=$(basename "$patch")
        task=${name%%-*}
        echo "    $name"
        expect_points "$student/grades.json" "${task//./\\.}" LESS
    done
    echo "course check: passed"
}

case "${1:-}" in
    student) shift; exec python3 "$kit/scripts/course.py" student "$@" ;;
    grade) shift; grade "${1:-$kit}" "${@:2}" ;;
    check) check ;;
    *) echo "usage: scripts/course.sh student OUT | grade [TREE] | check" >&2; exit 2 ;;
esac
