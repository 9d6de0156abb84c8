#!/bin/bash
# tapeformer vs the PyTorch peer in one sitting: for each repeat and thread count, each workload runs
# in PyTorch ($PEER/torch_workloads.py, OpenBLAS forced to SkylakeX) and then in
# `tapeformer bench`, back to back, so both see the same machine load. Prints medians over the
# repeats, the spread, and ours/theirs ratios; raw JSON lines go to $OUT (default /tmp/tf-vs-torch).
# $PEER, the shared bench folder, defaults to shared/bench beside the repository's directory.
# Usage: bench/compare_torch.sh [REPEATS=3] [THREADS="2 1"] [STEPS=30]   (from the repository root)
set -euo pipefail
REPEATS=${REPEATS:-3}; THREADS=${THREADS:-"2 1"}; STEPS=${STEPS:-30}
OUT=${OUT:-/tmp/tf-vs-torch}; mkdir -p "$OUT"
PEER=${PEER:-$(dirname "$0")/../../shared/bench}
for needed in torch_env.sh torch_workloads.py; do
  if [ ! -f "$PEER/$needed" ]; then
    echo "compare_torch.sh: $PEER/$needed is missing: the PyTorch peer lives in shared/bench beside the" \
         "repository's directory; set PEER=/path/to/that/bench folder" >&2
    exit 2
  fi
done
TF=${TF:-build/tapeformer}
source "$PEER/torch_env.sh" && torch_blas ob-skx
: > "$OUT/results.jsonl"
for r in $(seq 1 "$REPEATS"); do
  for th in $THREADS; do
    echo "repeat $r, $th threads, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    for w in W1 W2 W3 W4; do
      /usr/bin/python3 "$PEER/torch_workloads.py" --workload $w --threads "$th" --steps "$STEPS" |
        sed -n 's/^RESULT {/{"impl": "torch", /p' >> "$OUT/results.jsonl"
      "$TF" --threads "$th" bench --workload $w --only train --steps "$STEPS" --json |
        grep '"kind":"train"' | sed 's/^{/{"impl":"tapeformer",/' >> "$OUT/results.jsonl"
    done
    /usr/bin/python3 "$PEER/torch_workloads.py" --workload W1 --decode --threads "$th" --steps 7 |
      sed -n 's/^RESULT {/{"impl": "torch", "workload_id": "D", /p' >> "$OUT/results.jsonl"
    "$TF" --threads "$th" bench --only decode --decode-runs 7 --json |
      grep '"kind":"decode"' | sed 's/^{/{"impl":"tapeformer","workload_id":"D",/' >> "$OUT/results.jsonl"
  done
done
/usr/bin/python3 - "$OUT/results.jsonl" <<'EOF'
import collections, json, statistics, sys
runs = collections.defaultdict(list)   # (workload, threads, impl) -> tokens/s medians, one per process
for line in open(sys.argv[1]):
    d = json.loads(line)
    tps = d["tokens_per_s"]["median"] if isinstance(d["tokens_per_s"], dict) else d["tokens_per_s"]
    runs[(d.get("workload_id", d["workload"]), d["threads"], d["impl"])].append(tps)
print(f"{'workload':8} {'threads':>7} {'tapeformer tok/s (range)':>28} {'PyTorch tok/s (range)':>26} {'ratio':>6}")
for (w, th) in sorted({(w, th) for (w, th, _) in runs}):
    ours, theirs = runs[(w, th, "tapeformer")], runs[(w, th, "torch")]
    if not ours or not theirs: continue
    mo, mt = statistics.median(ours), statistics.median(theirs)
    print(f"{w:8} {th:>7} {mo:>10.0f} ({min(ours):.0f}-{max(ours):.0f}){'':>4} {mt:>10.0f} ({min(theirs):.0f}-{max(theirs):.0f}) {mo / mt:>6.2f}")
EOF
