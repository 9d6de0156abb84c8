#!/usr/bin/env bash
# The README's test command: install what is missing, build once (Release, in build/), run the
# whole ctest suite. Exits non-zero on any failure.
#   scripts/test.sh              the suite on the Release build
#   scripts/test.sh --sanitize   the suite on an AddressSanitizer + UBSan build (build-asan/)
#   scripts/test.sh -L unit      extra arguments go to ctest (here: only the unit tests)
set -euo pipefail
source "$(dirname "$0")/setup.sh"

build_dir="$TF_ROOT/build"
cmake_args=(-DTF_TESTS=ON)
if [ "${1:-}" = "--sanitize" ]; then
    shift
    build_dir="$TF_ROOT/build-asan"
    # -O1 with line tables only: the sanitizers' reports keep file:line, and the build takes half
    # the time of -O2 -g (a test file under ASan: 17 s against 42 s), which CI's budget needs.
    cmake_args=(-DTF_TESTS=ON -DTF_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
    # oneDNN's and OpenMP's runtime allocations live for the whole process: not leaks of ours.
    export ASAN_OPTIONS=detect_leaks=0
fi

# ctest runs two test programs at once on two cores: OpenMP threads must sleep, not spin, while
# they wait for each other (see src/cli/main.cpp).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

TF_PACKAGES+=("${TF_TEST_PACKAGES[@]}")   # the suite's own needs: Catch2, chromium, python3-torch
tf_install_missing
tf_prepare_data
tf_build "$build_dir" "${cmake_args[@]}"
echo "==> testing $build_dir"
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" "$@"
