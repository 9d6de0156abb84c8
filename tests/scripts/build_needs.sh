#!/bin/bash
# A test build needs every package a feature has: configured where MPI cannot be found, it stops
# naming libopenmpi-dev (it had registered 4 fewer tests and passed); the CLI alone
# (-DTF_TESTS=OFF, as scripts/demo.sh builds it) still configures without MPI.
# Usage: build_needs.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

output=$(cmake -S "$source_dir" -B "$work/tests" -G Ninja -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DTF_TESTS=ON 2>&1)
[ $? != 0 ] || fail "a test build without MPI configured"
grep -q "libopenmpi-dev" <<< "$output" || fail "the refusal does not name libopenmpi-dev: $output"
cmake -S "$source_dir" -B "$work/cli" -G Ninja -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DTF_TESTS=OFF > "$work/cli.log" 2>&1 ||
    fail "the CLI alone did not configure without MPI: $(tail -5 "$work/cli.log")"
echo "without MPI: the test build stops naming libopenmpi-dev, the CLI alone configures"
