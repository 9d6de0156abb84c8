#!/usr/bin/env bash
# The README's test command: install what is missing, build once (Release, in build/), run the
# whole ctest suite. Exits non-zero on any failure.
#   scripts/test.sh              the suite on the Release build
#   scripts/test.sh --sanitize   the suite on the AddressSanitizer + UBSan build (clang, build-san/,
#                                which scripts/fuzz.sh's harnesses share)
#   scripts/test.sh -L unit      extra arguments go to ctest (here: only the unit tests)
set -euo pipefail
source "$(dirname "$0")/setup.sh"

build_dir="$TF_ROOT/build"
sanitize=no
if [ "${1:-}" = "--sanitize" ]; then
    shift
    sanitize=yes
    build_dir="$TF_ROOT/build-san"
    # oneDNN's and OpenMP's runtime allocations live for the whole process: not leaks of ours.
    export ASAN_OPTIONS=detect_leaks=0
fi

# ctest runs two test programs at once on two cores: OpenMP threads must sleep, not spin, while
# they wait for each other (see src/cli/main.cpp).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

TF_PACKAGES+=("${TF_TEST_PACKAGES[@]}")   # the suite's own needs: Catch2, chromium, python3-torch
if [ $sanitize = yes ]; then TF_PACKAGES+=("${TF_SANITIZER_PACKAGES[@]}"); fi
tf_install_missing
tf_prepare_data
if [ $sanitize = yes ]; then tf_sanitizer_build; else tf_build "$build_dir" -DTF_TESTS=ON; fi
echo "==> testing $build_dir"
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" "$@"
