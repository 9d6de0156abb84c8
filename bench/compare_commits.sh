#!/bin/bash
# Two commits of tapeformer measured in one sitting: builds OLD and NEW side by side (Release, in
# git worktrees under build-compare/), then runs `bench` for each in turn, ROUNDS times, pinned to
# the same cores, and prints for every measurement the median tokens/s of each commit, their spread
# (min-max over the rounds) and the ratio NEW / OLD. A machine that is shared and noisy moves both
# alike within a round; alternating them is what makes the ratio mean something.
# Usage (from the repository root):
#   bench/compare_commits.sh OLD NEW [BENCH ARGUMENTS...]      e.g.
#   bench/compare_commits.sh 97e01a0 HEAD --only decode --decode-runs 5
# ROUNDS (default 3), THREADS (default 2) and CORES (default 0,1) come from the environment; raw
# JSON lines go to $OUT (default /tmp/tf-compare-commits). A measurement the old commit does not
# have (say, decoding with the key/value cache) is set against the old commit's nearest one, its
# uncached decoding, and marked so.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
OLD=$1 NEW=$2
shift 2
ROUNDS=${ROUNDS:-3}; THREADS=${THREADS:-2}; CORES=${CORES:-0,1}
OUT=${OUT:-/tmp/tf-compare-commits}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/setup.sh"
tf_install_missing
mkdir -p "$OUT"

# build_commit REV: a Release build of REV in build-compare/SHA, its binary path on stdout.
build_commit() {
    local sha tree
    sha=$(git -C "$ROOT" rev-parse --short "$1^{commit}") || { echo "compare_commits.sh: no commit '$1'" >&2; exit 2; }
    tree=$ROOT/build-compare/$sha
    [ -d "$tree" ] || git -C "$ROOT" worktree add --detach --force "$tree" "$sha" >&2
    cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
    cmake --build "$tree/build" -j "$(nproc)" --target tapeformer >&2
    echo "$tree/build/tapeformer"
}
old_binary=$(build_commit "$OLD")
new_binary=$(build_commit "$NEW")

: > "$OUT/results.jsonl"
for round in $(seq 1 "$ROUNDS"); do
    for side in old new; do
        binary=$old_binary; [ $side = new ] && binary=$new_binary
        echo "round $round, $side, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
        taskset -c "$CORES" "$binary" --threads "$THREADS" bench "$@" --json |
            grep '"tokens_per_s"' | sed "s/^{/{\"side\":\"$side\",/" >> "$OUT/results.jsonl"
    done
done

python3 - "$OUT/results.jsonl" "$OLD" "$NEW" <<'EOF'
import collections, json, statistics, sys
path, old_name, new_name = sys.argv[1:]
runs = collections.defaultdict(list)   # (side, measurement) -> tokens/s, one per round
for line in open(path):
    row = json.loads(line)
    cache = row.get("cache", "off") if row["kind"] == "decode" else ""
    key = (row["kind"], row["workload"], row.get("gen_tokens", ""), cache)
    runs[(row["side"], key)].append(row["tokens_per_s"])

def label(key):
    kind, workload, tokens, cache = key
    return " ".join(str(part) for part in (kind, workload, f"{tokens} tokens" if tokens else "", cache) if part)

def stats(values):
    return statistics.median(values), min(values), max(values)

print(f"tokens/s, median (min-max) of the rounds; ratio = {new_name} / {old_name}")
print(f"{'measurement':36} {old_name:>24} {new_name:>24} {'ratio':>8}")
for key in sorted({key for (_, key) in runs}):
    new = runs.get(("new", key))
    if not new:
        continue
    old, note = runs.get(("old", key)), ""
    if not old and key[0] == "decode":   # the old commit had no cache: its uncached decoding
        old, note = runs.get(("old", key[:3] + ("off",))), " (vs old uncached)"
    n_med, n_lo, n_hi = stats(new)
    old_text, ratio = "-", ""
    if old:
        o_med, o_lo, o_hi = stats(old)
        old_text, ratio = f"{o_med:,.0f} ({o_lo:,.0f}-{o_hi:,.0f})", f"{n_med / o_med:.2f}x"
    print(f"{label(key):36} {old_text:>24} {f'{n_med:,.0f} ({n_lo:,.0f}-{n_hi:,.0f})':>24} {ratio:>8}{note}")
EOF
