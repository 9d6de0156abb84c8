# Sourced by demo.sh and test.sh: install what is missing, then configure and build once.
# Works on a fresh Debian 12 (bookworm) or Debian 13 (trixie) machine with only g++, cmake, git and
# python3; as root or with sudo. scripts/check-fresh.sh proves it on freshly made roots of both.

TF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# One entry per need. "a|b": the releases name it differently; the first name this release's
# archive has is installed (Catch2 v3 is libcatch2-dev on Debian 13, Catch2 v2 is catch2 on 12).
# ocl-icd-opencl-dev: Debian's dnnl-config.cmake does find_package(OpenCL REQUIRED), and
# libdnnl-dev only recommends it, so --no-install-recommends would leave it out.
# libopenmpi-dev and openmpi-bin: data-parallel training and its tests under `mpirun -np 2`
# (Open MPI 4.1 on Debian 12, 5.0 on 13); the build works without them, less that feature.
# pybind11-dev, python3-pybind11 and python3-dev build the Python module for Debian's python3
# (pybind11 2.10 on Debian 12, 2.13 on 13), python3-numpy is what its arrays are (docs/python.md).
TF_PACKAGES=(g++ cmake ninja-build libdnnl-dev ocl-icd-opencl-dev libcli11-dev nlohmann-json3-dev
             fortunes libopenmpi-dev openmpi-bin ccache pybind11-dev python3-pybind11 python3-dev python3-numpy)
# What the test suite adds (scripts/test.sh): Catch2, and Debian's chromium and python3-torch, to
# open the report pages in a real browser (tests/browser/) and run the models `export --to
# pytorch` writes (tests/export/); Jupyter's nbconvert and kernel and matplotlib, to run the lesson
# notebook (docs/notebooks/) as a reader would. A test build without one stops at configure, naming it.
TF_TEST_PACKAGES=("libcatch2-dev|catch2" chromium python3-torch jupyter-nbconvert python3-ipykernel python3-matplotlib)

tf_is_installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# The entries of TF_PACKAGES none of whose names is installed.
tf_missing_entries() {
    local entry name
    for entry in "${TF_PACKAGES[@]}"; do
        local found=no
        IFS='|' read -ra names <<< "$entry"
        for name in "${names[@]}"; do tf_is_installed "$name" && found=yes; done
        [ $found = yes ] || echo "$entry"
    done
}

# The first name of an entry that this release's archive offers (after apt-get update).
tf_available_name() {
    local name candidate
    IFS='|' read -ra names <<< "$1"
    for name in "${names[@]}"; do
        candidate=$(apt-cache policy "$name" 2>/dev/null | sed -n 's/^ *Candidate: //p')
        [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && { echo "$name"; return 0; }
    done
    echo "error: no package of '$1' in this release's archive" >&2
    return 1
}

tf_install_missing() {
    local entries
    mapfile -t entries < <(tf_missing_entries)
    [ ${#entries[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: need root or sudo to install ${entries[*]}" >&2; return 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq || return 1
    local packages=() entry name
    for entry in "${entries[@]}"; do
        name=$(tf_available_name "$entry") || return 1
        packages+=("$name")
    done
    echo "==> installing: ${packages[*]}"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null || return 1
}

# The poetry corpus (from Debian's fortunes package, see data/README.md) and the bench configs'
# random tokens are generated, not committed.
tf_prepare_data() {
    if [ ! -f "$TF_ROOT/data/bench/random_lm.jsonl" ]; then
        echo "==> writing the random-token data of configs/bench (data/bench/)"
        python3 "$TF_ROOT/configs/bench/make_random_tokens.py" --out-dir "$TF_ROOT/data/bench" || return 1
    fi
    [ -f "$TF_ROOT/data/poetry/poems.txt" ] && return 0
    echo "==> building the poetry corpus (data/poetry/poems.txt)"
    python3 "$TF_ROOT/data/build_poetry.py" || return 1
}

# ccache (Debian's) keeps each compiler output under a hash of the compiler, its flags and the
# preprocessed source, so a file compiled before — in another build folder, a fresh clone, or a
# fresh root with its release's cache mounted in (scripts/check-fresh.sh) — is not compiled again.
# CCACHE_BASEDIR makes the paths inside the checkout relative, so a clone elsewhere hits too. ccache
# hashes the text "-march=native", not the CPU it means: what it means here goes into the hash
# (CCACHE_EXTRAFILES), so another machine's objects are never taken for this one's. The builds
# with line tables (the sanitizer and fuzz builds) would add the build folder to the hash, which
# differs between clones: CCACHE_NOHASHDIR leaves it out (their line tables then name the folder
# of the first build, and the sources by paths relative to it).
# Sets TF_LAUNCHER_ARGS for the configure; empty when ccache is not installed.
tf_use_compiler_cache() {
    TF_LAUNCHER_ARGS=()
    command -v ccache >/dev/null || return 0
    local native_flags
    native_flags="$(cd "$1" && pwd)/native-flags.txt"   # absolute: ccache reads it from the build folder
    # The compiler's own command line for -march=native: its CPU and feature flags (tokens with a
    # '/' are paths, clang's working folder among them, which differ between clones: left out).
    echo | "${CXX:-c++}" -march=native -E -v - 2>&1 | grep -E 'cc1|target-cpu' | tr ' ' '\n' | grep -v / >"$native_flags" || true
    export CCACHE_BASEDIR=$TF_ROOT CCACHE_EXTRAFILES=$native_flags CCACHE_NOHASHDIR=true
    TF_LAUNCHER_ARGS=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
}

# A build folder made for another source folder (a checkout copied with cp -r or moved with mv)
# names the old one in its CMakeCache.txt, and CMake refuses it: such a folder is started afresh.
tf_forget_moved_build() {
    local build_dir=$1 made_for
    [ -f "$build_dir/CMakeCache.txt" ] || return 0
    made_for=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build_dir/CMakeCache.txt")
    # Compared as real paths: CMake may have stored the folder behind a symbolic link.
    [ -n "$made_for" ] && [ "$(cd "$made_for" 2>/dev/null && pwd -P)" = "$(cd "$TF_ROOT" && pwd -P)" ] && return 0
    echo "==> $build_dir was configured for ${made_for:-another source folder}: starting it afresh"
    rm -rf "$build_dir"
}

# tf_build BUILD_DIR [CMAKE_ARG...] [-- TARGET...]: configure (quick when nothing changed, and it
# makes the arguments and TF_NATIVE take effect in an existing build), then build the targets
# (default: everything). TF_NATIVE=OFF in the environment builds for plain x86-64 instead of this
# machine's CPU.
tf_build() {
    local build_dir=$1
    shift
    local cmake_args=() targets=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        cmake_args+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift && targets=(--target "$@")
    tf_forget_moved_build "$build_dir"
    mkdir -p "$build_dir"
    tf_use_compiler_cache "$build_dir"
    echo "==> configuring $build_dir"
    cmake -S "$TF_ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
          ${TF_NATIVE:+"-DTF_NATIVE=$TF_NATIVE"} "${TF_LAUNCHER_ARGS[@]}" "${cmake_args[@]}" >/dev/null || return 1
    echo "==> building $build_dir"
    cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}" || return 1
}

# The one sanitizer build, build-san/: clang with AddressSanitizer + UBSan at -O1 with line tables
# (half the build time of -O2 -g), every object also instrumented for libFuzzer (TF_FUZZ), so the
# suite under the sanitizers (scripts/test.sh --sanitize) and the fuzz harnesses (scripts/fuzz.sh)
# share one compile of the library. tf_sanitizer_build [TARGET...]: default everything the suite runs.
TF_SANITIZER_PACKAGES=(clang libclang-rt-dev libomp-dev)
tf_sanitizer_build() {
    local targets=()
    [ $# -gt 0 ] && targets=(-- "$@")
    CC=clang CXX=clang++ tf_build "$TF_ROOT/build-san" -DTF_TESTS=ON -DTF_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "${targets[@]}"
}
