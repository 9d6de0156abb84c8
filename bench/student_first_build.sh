#!/usr/bin/env bash
# A student's first `scripts/test.sh`, timed: writes the student tree into a new folder, runs its
# README test command (install what is missing, build build/, run the suite), and prints the
# build's and the tests' wall time, the compiler cache's hits over that build, and the build's
# warnings. Run it after the teacher's tree has been built (scripts/test.sh here), on an idle
# machine: what it measures is what a student on the same machine (or a lab server) waits for.
#   bench/student_first_build.sh [OUT]     (default: a new folder under /tmp, removed at the end)
set -euo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d /tmp/tapeformer-student-XXXXXX)}
keep=${1:+yes}
python3 "$kit/scripts/course.py" student "$out"
log=$(mktemp /tmp/tapeformer-student-build-XXXXXX.log)
command -v ccache >/dev/null && ccache -z >/dev/null
start=$(date +%s)
# test.sh's "==> testing" line ends the build: the time at that line splits the two.
(cd "$out" && scripts/test.sh 2>&1) | while IFS= read -r line; do
    [[ $line == "==> testing"* ]] && date +%s > "$log.built"
    printf '%s\n' "$line"
done > "$log" || { tail -30 "$log"; echo "student_first_build: scripts/test.sh failed (log: $log)"; exit 1; }
end=$(date +%s)
built=$(cat "$log.built")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "build (set-up and compile): $((built - start)) s; tests: $((end - built)) s; in all: $((end - start)) s"
if command -v ccache >/dev/null; then
    ccache -s | grep -E 'Hits:|Misses:' | head -2 | sed 's/^ */compiler cache /'
fi
echo "warnings: $(grep -c 'warning:' "$log" || true)"
grep -E 'tests passed|tests failed' "$log" || true
rm -f "$log.built"
[ "$keep" = yes ] || rm -rf "$out"
echo "log: $log"
