#!/usr/bin/env bash
# scripts/check-fresh.sh [--prepare] [bookworm|trixie]...   (no release: both)
#
# The README's two commands as a new user meets them: a freshly made Debian root of each release
# (debootstrap --variant=minbase, then only the toolchain the README names: g++ cmake git python3
# ca-certificates), the current commit cloned into it, then scripts/test.sh and scripts/demo.sh run
# inside it (chroot, with /proc mounted), then imports the Python module they built as the README says
# (`PYTHONPATH=build/python python3 -c "import tapeformer"`). It prints one line per release: passed,
# or the first error. A machine with leftovers hides a missing install step; a fresh root does not.
#
#   - Needs root, and the Debian mirror this machine's apt sources name (read from apt, never
#     written here); TF_DEBIAN_MIRROR=URL picks another.
#   - Base roots (debootstrap + toolchain) are cached in $TF_FRESH_CACHE, default
#     /var/cache/tapeformer-fresh, so a later run pays for the builds, not for debootstrap. A base
#     is made under a temporary name and renamed only when complete, so a run that was cut off
#     never leaves a half-made root that a later run would trust. Each check runs in a copy of
#     the base, which stays clean. Downloaded .debs are kept beside the bases, and so is each
#     release's compiler cache, mounted at the root's ~/.cache/ccache: for the release this
#     machine runs, this machine's own cache (the same compiler, so the root takes the objects
#     scripts/test.sh compiled here); for the other, $TF_FRESH_CACHE/ccache/RELEASE. The root
#     still installs every package (ccache among them, as setup.sh does for everyone) and clones
#     the sources itself; only compiler outputs, keyed by compiler, flags and preprocessed
#     source, are reused. dpkg in the roots skips syncing to disk (force-unsafe-io).
#   - --prepare makes the base roots and downloads the packages the commands will install into
#     the package caches, installing nothing; CI runs it in the background while this machine
#     builds, then the check.
#   - The demo trains each model 20 steps a seed (TF_DEMO_STEPS), not 300: the check is that the command
#     installs, builds, trains, compares and reports on a fresh system, not how far the models get.
#   - This machine's release builds as scripts/test.sh does here (-march=native); the other builds
#     with TF_NATIVE=OFF (plain x86-64, so the non-AVX-512 code paths are built and tested somewhere)
#     where this machine has AVX-512, and native where it has not (those paths are then its own).
#   - Exit 0 when every release passed, 1 when one failed, 2 on bad input (an unknown release,
#     not root, no debootstrap, the mirror unreachable).
set -uo pipefail

TF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${TF_FRESH_CACHE:-/var/cache/tapeformer-fresh}
BASE_TOOLCHAIN=(g++ cmake git python3 ca-certificates)
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

bad_input() {
    echo "check-fresh: $*" >&2
    exit 2
}

# The release this machine runs (bookworm on Debian 12), empty elsewhere.
HOST_RELEASE=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

# The TF_NATIVE setting each release's check builds with: this machine's own release builds as
# scripts/test.sh does here (-march=native), so its root takes every object from this machine's
# compiler cache (same compiler, flags and sources). The other builds for plain x86-64 on a machine
# with AVX-512, so that the code paths for CPUs without it are built and tested somewhere; on a
# machine without AVX-512 every build here already takes those paths, and the other release builds
# native too (on a 2-core Zen 3 the Debian 13 root's suite took 405 s built for plain x86-64, the
# Debian 12 root's 198 s built native).
native_setting() {
    case $1 in
        bookworm | trixie)
            if [ "$1" = "$HOST_RELEASE" ] || ! grep -qw avx512f /proc/cpuinfo; then echo ON; else echo OFF; fi ;;
    esac
}

# The compiler cache a release's root builds with: this machine's own (ccache's cache_dir) for this
# machine's release, whose compiler is the same; a cache of the release's own beside the bases
# for the other.
ccache_dir_for() {
    local dir=""
    if [ "$1" = "$HOST_RELEASE" ] && command -v ccache >/dev/null; then
        dir=$(ccache -k cache_dir 2>/dev/null)
    fi
    echo "${dir:-$CACHE/ccache/$1}"
}

# "1m05s" for 65 seconds.
duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# The URL of the Debian archive (origin and label "Debian", not the security archive) that this
# machine's apt sources name, as apt reports it.
debian_mirror_from_apt() {
    apt-cache policy 2>/dev/null | awk '
        /^ *[0-9]+ (https?|file):/ { url = $2; next }
        /release / && /o=Debian,/ && /l=Debian,/ && url != "" { print url; exit }'
}

find_mirror() {
    [ -n "${TF_DEBIAN_MIRROR:-}" ] && { echo "$TF_DEBIAN_MIRROR"; return 0; }
    local mirror
    mirror=$(debian_mirror_from_apt)
    if [ -z "$mirror" ]; then
        apt-get update -qq >/dev/null 2>&1
        mirror=$(debian_mirror_from_apt)
    fi
    [ -n "$mirror" ] || return 1
    echo "$mirror"
}

# Unmount everything mounted at or below DIR, deepest first.
unmount_under() {
    local dir=$1 mount_point
    awk -v dir="$dir" '$2 == dir || index($2, dir "/") == 1 { print $2 }' /proc/self/mounts |
        sort -r | while read -r mount_point; do
            umount "$mount_point" 2>/dev/null || umount -l "$mount_point"
        done
}

# Remove a root: first whatever is mounted inside it, then the files, never crossing into
# another file system (a mount that would not go away is left alone, not emptied).
remove_root() {
    [ -e "$1" ] || return 0
    unmount_under "$1"
    rm -rf --one-file-system "$1"
}

# What a program inside the root needs beyond its files: /proc, /sys, /dev, the host's DNS, and a
# /tmp of its own (a mount point, as on a real system: the suite mounts a small tmpfs below it in a
# namespace of its own, and must first make the mount that holds it private there).
mount_system_dirs() {
    local root=$1
    mount -t proc proc "$root/proc" &&
        mount -t tmpfs tmpfs "$root/tmp" &&
        mount --bind /sys "$root/sys" &&
        mount --bind /dev "$root/dev" &&
        mount --bind /dev/pts "$root/dev/pts" &&
        cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

# On any exit: nothing stays mounted, and no half-made base root stays behind (a later run would
# not trust one, having no completion mark, but it should not cost the disk either).
clean_up_after_stop() {
    unmount_under "$CACHE"
    local partial
    for partial in "$CACHE"/*.partial; do
        [ -e "$partial" ] && remove_root "$partial"
    done
}

# in_root ROOT COMMAND...: run a shell command inside ROOT with a clean environment.
in_root() {
    local root=$1
    shift
    chroot "$root" /usr/bin/env -i HOME=/root PATH="$CHROOT_PATH" LANG=C.UTF-8 TERM=dumb "$@"
}

# The first line of LOG that says what went wrong (a compiler or CMake error, a failed test, an
# apt error, a Python exception), with CMake's message line joined to its "CMake Error at" line.
first_error() {
    awk '
        joining { if ($0 ~ /[^ ]/) { sub(/^ +/, ""); print prefix " " $0; exit } next }
        / Passed / { next }
        /CMake Error/ { prefix = $0; joining = 1; next }
        /error:|Error:|ERROR|Could NOT find|\*\*\*Failed|\(Failed\)|\(Subprocess aborted\)|^E: |Traceback|No such file/ {
            sub(/^[ \t]+/, ""); gsub(/ \.\.\.+/, ""); print; exit }
        ' "$1"
}

# make_base RELEASE MIRROR: a minimal root with the README's toolchain, at $CACHE/RELEASE.
# Progress goes to stderr; on failure, the reason to stdout.
make_base() {
    local release=$1 mirror=$2
    local base=$CACHE/$release partial=$CACHE/$release.partial
    local log=$CACHE/logs/$release-base.log
    local stamp="debootstrap --variant=minbase $release + ${BASE_TOOLCHAIN[*]}, dpkg force-unsafe-io"
    [ -f "$base/.tf-base-complete" ] && [ "$(cat "$base/.tf-base-complete")" = "$stamp" ] && return 0
    remove_root "$base"
    remove_root "$partial"
    echo "==> $release: making a minimal root (debootstrap; the log: $log)" >&2
    if ! debootstrap --variant=minbase "$release" "$partial" "$mirror" >"$log" 2>&1; then
        echo "debootstrap failed: $(first_error "$log")"
        remove_root "$partial"
        return 1
    fi
    # dpkg syncs each file it unpacks to disk, which a throwaway root does not need: the packages
    # install the same, in a fraction of the time (the Debian installer's own setting, while it installs).
    echo force-unsafe-io >"$partial/etc/dpkg/dpkg.cfg.d/tapeformer-unsafe-io"
    mount_system_dirs "$partial" &&
        in_root "$partial" /bin/sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -q --no-install-recommends ${BASE_TOOLCHAIN[*]} && apt-get clean" >>"$log" 2>&1
    local status=$?
    unmount_under "$partial"
    if [ $status -ne 0 ]; then
        echo "installing the toolchain failed: $(first_error "$log")"
        remove_root "$partial"
        return 1
    fi
    echo "$stamp" >"$partial/.tf-base-complete"
    mv "$partial" "$base"
}

# prepare_release RELEASE MIRROR: the release's base root, and every package the README's two
# commands install in it downloaded into its package cache (nothing installed: the base stays as
# debootstrap and the toolchain left it, less a fresher package list). CI starts this while this
# machine builds, so the check later pays for installing, not for fetching. Progress to stderr; on
# failure, the reason to stdout.
prepare_release() {
    local release=$1 mirror=$2 base=$CACHE/$1 log=$CACHE/logs/$1-prepare.log
    make_base "$release" "$mirror" || return 1
    mkdir -p "$CACHE/debs/$release" || return 1
    echo "==> $release: downloading the packages scripts/test.sh installs (the log: $log)" >&2
    # setup.sh's own lists and its choice between a release's names, in the root's private /tmp.
    mount_system_dirs "$base" &&
        mount --bind "$CACHE/debs/$release" "$base/var/cache/apt/archives" &&
        cp "$TF_ROOT/scripts/setup.sh" "$base/tmp/setup.sh" &&
        in_root "$base" /bin/bash -c 'source /tmp/setup.sh && apt-get update -qq && names=() &&
            for entry in "${TF_PACKAGES[@]}" "${TF_TEST_PACKAGES[@]}"; do
                names+=("$(tf_available_name "$entry")") || exit 1
            done &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --download-only --no-install-recommends "${names[@]}"' \
            >"$log" 2>&1
    local status=$?
    unmount_under "$base"
    [ $status -eq 0 ] || { echo "downloading the packages failed: $(first_error "$log")"; return 1; }
}

# versions ROOT: the compiler and library versions a check used, from the root's dpkg.
versions() {
    in_root "$1" dpkg-query -W -f='${Package} ${Version}\n' g++ libdnnl-dev libcatch2-dev catch2 pybind11-dev 2>/dev/null |
        awk '$2 != "" { sub(/^[0-9]+:/, "", $2); sub(/[-+~].*/, "", $2); printf "%s%s %s", sep, $1, $2; sep = ", " }'
}

# check_release RELEASE MIRROR: prints the release's one line (progress to stderr); returns 0 if
# it passed.
check_release() {
    local release=$1 mirror=$2
    local work=$CACHE/$release.work log=$CACHE/logs/$release.log native ccache_dir
    native=$(native_setting "$release")
    ccache_dir=$(ccache_dir_for "$release")
    local reason
    reason=$(make_base "$release" "$mirror") || { echo "$release: FAILED making the root: $reason"; return 1; }
    remove_root "$work"
    cp -a --reflink=auto "$CACHE/$release" "$work" &&
        mkdir -p "$CACHE/debs/$release" "$ccache_dir" "$work/root/.cache/ccache" &&
        mount_system_dirs "$work" &&
        mount --bind "$CACHE/debs/$release" "$work/var/cache/apt/archives" &&
        mount --bind "$ccache_dir" "$work/root/.cache/ccache" &&
        git clone --quiet --no-checkout "$TF_ROOT" "$work/root/tapeformer" &&
        git -C "$work/root/tapeformer" checkout --quiet --detach "$(git -C "$TF_ROOT" rev-parse HEAD)" ||
        { unmount_under "$work"; echo "$release: FAILED preparing the copy of the root"; return 1; }
    : >"$log"
    local step started seconds timings=()
    for step in scripts/test.sh scripts/demo.sh; do
        echo "==> $release: $step (TF_NATIVE=$native; the log: $log)" >&2
        started=$(date +%s)
        in_root "$work" TF_NATIVE="$native" TF_DEMO_STEPS=20 /bin/bash -c "cd /root/tapeformer && $step" >>"$log" 2>&1
        local status=$?
        seconds=$(($(date +%s) - started))
        if [ $status -ne 0 ]; then
            unmount_under "$work"
            echo "$release: FAILED in $step after $(duration "$seconds"): $(first_error "$log") (log: $log; root kept: $work)"
            return 1
        fi
        timings+=("$step $(duration "$seconds")")
    done
    if ! in_root "$work" /bin/bash -c 'cd /root/tapeformer && PYTHONPATH=build/python python3 -c "import tapeformer"' >>"$log" 2>&1; then
        unmount_under "$work"
        echo "$release: FAILED: PYTHONPATH=build/python python3 -c \"import tapeformer\": $(first_error "$log") (log: $log)"
        return 1
    fi
    if [ ! -s "$work/root/tapeformer/runs/demo/report.md" ]; then
        unmount_under "$work"
        echo "$release: FAILED: scripts/demo.sh wrote no runs/demo/report.md (log: $log)"
        return 1
    fi
    local used
    used=$(versions "$work")
    remove_root "$work"
    local joined
    joined=$(printf '%s, ' "${timings[@]}")
    echo "$release: passed (${joined%, }; TF_NATIVE=$native; $used)"
}

main() {
    local prepare=no
    [ "${1:-}" = "--prepare" ] && { prepare=yes; shift; }
    local releases=("$@") release
    [ ${#releases[@]} -gt 0 ] || releases=(bookworm trixie)
    for release in "${releases[@]}"; do
        [ -n "$(native_setting "$release")" ] ||
            bad_input "unknown release '$release' (known: bookworm for Debian 12, trixie for Debian 13)"
    done
    [ "$(id -u)" -eq 0 ] || bad_input "needs root (debootstrap, mount and chroot); run it as root or with sudo"
    if ! command -v debootstrap >/dev/null; then
        echo "==> installing debootstrap"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; } >/dev/null 2>&1 ||
            bad_input "debootstrap is not installed and apt-get could not install it"
    fi
    local mirror
    mirror=$(find_mirror) || bad_input "no Debian archive in this machine's apt sources (set TF_DEBIAN_MIRROR=URL)"
    for release in "${releases[@]}"; do
        wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$release/InRelease" ||
            bad_input "cannot reach $release on the Debian mirror $mirror (from apt's sources): no network?"
    done

    mkdir -p "$CACHE/logs" || bad_input "cannot create the cache directory $CACHE"
    exec 9>"$CACHE/.lock"
    flock -n 9 || bad_input "another check-fresh.sh is running on $CACHE"
    trap 'clean_up_after_stop' EXIT
    trap 'exit 130' INT TERM
    [ -z "$(git -C "$TF_ROOT" status --porcelain --untracked-files=no)" ] ||
        echo "note: uncommitted changes are not checked: the roots get the commit $(git -C "$TF_ROOT" rev-parse --short HEAD)"

    if [ $prepare = yes ]; then
        local reason failed=0
        for release in "${releases[@]}"; do
            reason=$(prepare_release "$release" "$mirror") || { echo "$release: preparing failed: $reason"; failed=1; }
        done
        return $failed
    fi

    local results=() failed=0 result
    for release in "${releases[@]}"; do
        result=$(check_release "$release" "$mirror") || failed=1
        results+=("$result")
        echo "$result"
    done
    echo
    echo "check-fresh at $(git -C "$TF_ROOT" rev-parse --short HEAD):"
    printf '%s\n' "${results[@]}"
    return $failed
}

main "$@"
