#!/bin/bash
# scripts/setup.sh on a checkout that was copied or moved after a build: a build folder whose
# CMakeCache.txt names another source folder is started afresh (CMake would refuse it with two
# errors), while one made for this checkout is kept as it is.
# Usage: moved_build.sh SOURCE_DIR
set -uo pipefail
source "$1/scripts/setup.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$work/moved" "$work/here"
echo "CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else/tapeformer" > "$work/moved/CMakeCache.txt"
touch "$work/moved/tapeformer"
echo "CMAKE_HOME_DIRECTORY:INTERNAL=$TF_ROOT" > "$work/here/CMakeCache.txt"
touch "$work/here/tapeformer"

said=$(tf_forget_moved_build "$work/moved")
[ ! -e "$work/moved" ] || fail "the build folder made for /somewhere/else was kept"
grep -q "configured for /somewhere/else/tapeformer: starting it afresh" <<< "$said" || fail "no line saying why: '$said'"
tf_forget_moved_build "$work/here"
[ -e "$work/here/tapeformer" ] || fail "the build folder made for this checkout was removed"
tf_forget_moved_build "$work/never-built" || fail "a missing build folder is not an error"
echo "a moved build folder is started afresh, this checkout's is kept"
