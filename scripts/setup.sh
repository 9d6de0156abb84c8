# Sourced by demo.sh and test.sh: install what is missing, then configure and build once.
# Works on a fresh Debian 12 machine with only g++, cmake, git and python3; as root or with sudo.

TF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TF_PACKAGES=(g++ cmake ninja-build libdnnl-dev libcli11-dev nlohmann-json3-dev catch2 fortunes)

tf_install_missing() {
    local missing=()
    for package in "${TF_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; return 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq || return 1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null || return 1
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

# tf_build BUILD_DIR [cmake args...]: configure once (reused later), then build everything.
tf_build() {
    local build_dir=$1
    shift
    if [ ! -f "$build_dir/CMakeCache.txt" ]; then
        echo "==> configuring $build_dir"
        cmake -S "$TF_ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null || return 1
    fi
    echo "==> building $build_dir"
    cmake --build "$build_dir" -j "$(nproc)" || return 1
}
