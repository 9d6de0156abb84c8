#!/bin/bash
# tapeformer against its PyTorch peer (bench/torch_peer.py) in one sitting: for each repeat and
# thread count, each workload runs in PyTorch and then in tapeformer, back to back and pinned to the
# same cores, so both see the same machine load. Prints the median over the repeats, the spread
# (min-max) and the ratio tapeformer / PyTorch (tokens/s; for workload A, PyTorch's ms / ours).
#   W1-W4  training steps          `tapeformer bench --only train`   against `torch_peer.py train`
#   D      greedy decoding, no cache `tapeformer bench --only decode` against `torch_peer.py decode`
#   A      causal attention fwd+bwd  `bench_attention` plain / tiled  against `torch_peer.py attention`
#          composed / fused (fused needs PyTorch 2.0 or later; with 1.13 only plain runs)
# Usage (from the repository root, after a build):
#   bench/compare_torch.sh       REPEATS (3), THREADS ("2 1"), STEPS (30), WARMUP (5), DECODE_RUNS (7),
#                                A_LENGTHS (4096), CORES (0,1), PYTHON (/usr/bin/python3) from the
#                                environment; raw JSON lines go to $OUT (default /tmp/tf-vs-torch).
set -euo pipefail
REPEATS=${REPEATS:-3}; THREADS=${THREADS:-"2 1"}; STEPS=${STEPS:-30}; WARMUP=${WARMUP:-5}
DECODE_RUNS=${DECODE_RUNS:-7}; A_LENGTHS=${A_LENGTHS:-4096}
CORES=${CORES:-0,1}; PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-/tmp/tf-vs-torch}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TF=${TF:-$ROOT/build/tapeformer}
ATTENTION=${ATTENTION:-$ROOT/build/bench/bench_attention}
PEER="$ROOT/bench/torch_peer.py"
for binary in "$TF" "$ATTENTION"; do
  [ -x "$binary" ] || { echo "compare_torch.sh: $binary is missing: build first (scripts/test.sh)" >&2; exit 2; }
done
"$PYTHON" -c 'import torch' 2>/dev/null ||
  { echo "compare_torch.sh: $PYTHON cannot import torch: apt-get install python3-torch" >&2; exit 2; }
pin=(); command -v taskset > /dev/null && pin=(taskset -c "$CORES")
mkdir -p "$OUT"
results=$OUT/results.jsonl
: > "$results"

# ours THREADS PATTERN COMMAND...: runs a tapeformer command and keeps its JSON lines that match
# PATTERN, marked as tapeformer's and with the thread count asked for (bench_attention prints none).
ours() {
  local threads=$1 pattern=$2; shift 2
  "${pin[@]}" "$@" | grep "$pattern" | sed "s/^{/{\"impl\":\"tapeformer\",\"asked_threads\":$threads,/" >> "$results"
}
for r in $(seq 1 "$REPEATS"); do
  for th in $THREADS; do
    echo "repeat $r, $th threads, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    for w in W1 W2 W3 W4; do
      "${pin[@]}" "$PYTHON" "$PEER" --threads "$th" train --workload "$w" --steps "$STEPS" --warmup "$WARMUP" >> "$results"
      ours "$th" '"kind":"train"' "$TF" --threads "$th" bench --workload "$w" --only train --steps "$STEPS" \
        --warmup "$WARMUP" --json
    done
    "${pin[@]}" "$PYTHON" "$PEER" --threads "$th" decode --runs "$DECODE_RUNS" >> "$results"
    ours "$th" '"cache":"off"' "$TF" --threads "$th" bench --only decode --decode-runs "$DECODE_RUNS" --json
    peer_variants=$("$PYTHON" -c 'import torch.nn.functional as F; print("composed fused" if hasattr(F, "scaled_dot_product_attention") else "composed")')
    for n in $A_LENGTHS; do
      for variant in $peer_variants; do
        "${pin[@]}" "$PYTHON" "$PEER" --threads "$th" attention --variant "$variant" --lengths "$n" >> "$results"
        ours "$th" '"ms"' "$ATTENTION" --threads "$th" --T "$n" --variant "$([ "$variant" = composed ] && echo plain || echo tiled)" --json
      done
    done
  done
done
"$PYTHON" - "$results" <<'EOF'
import collections, json, statistics, sys
# (row, threads, impl) -> one figure per process; tokens/s for training and decoding, ms for A.
runs, blas = collections.defaultdict(list), set()
peer_name = {"plain": "composed", "tiled": "fused"}
for line in open(sys.argv[1]):
    d = json.loads(line)
    blas.update(d.get("blas", []))
    if d.get("kind") == "train":
        row = d["workload"]
    elif d.get("kind") == "decode":
        row = "D"
    else:
        row = f"A {peer_name.get(d['variant'], d['variant'])} T={d['T']}"
    runs[(row, d.get("asked_threads", d.get("threads")), d["impl"])].append(d["ms"] if row.startswith("A") else d["tokens_per_s"])
print(f"{'workload':22} {'threads':>7} {'tapeformer (range)':>26} {'PyTorch (range)':>26} {'ratio':>6}")
for (row, th) in sorted({(row, th) for (row, th, _) in runs}):
    ours, theirs = runs[(row, th, "tapeformer")], runs[(row, th, "torch")]
    if not ours or not theirs:
        continue
    mo, mt = statistics.median(ours), statistics.median(theirs)
    unit = " ms" if row.startswith("A") else ""
    ratio = mt / mo if row.startswith("A") else mo / mt
    print(f"{row:22} {th:>7} {mo:>10.0f}{unit} ({min(ours):.0f}-{max(ours):.0f}){'':>3} "
          f"{mt:>10.0f}{unit} ({min(theirs):.0f}-{max(theirs):.0f}) {ratio:>6.2f}")
if any(path.rsplit("/", 2)[-2] == "blas" for path in blas):
    print("warning: PyTorch ran on the reference BLAS (" + ", ".join(sorted(blas)) + "); install an optimised "
          "one (apt-get install libopenblas0-openmp) before quoting these ratios", file=sys.stderr)
EOF
