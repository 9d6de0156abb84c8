#!/bin/bash
# Data parallel on one machine: W1 and W4 (configs/bench) trained as 1 process with 1 thread, as
# 2 MPI ranks with 1 thread each (gradients summed in buckets during the backward pass, the default,
# and in one buffer after it), and as 1 process with 2 threads, alternated in one sitting.
# Prints, per workload and layout, the median over the repeats of each run's median tokens/s (the
# first log interval, warm-up, and the last, which holds the final evaluation, left out) and, for 2
# ranks, the share of the step rank 0 spends in the step's all-reduces, waiting for the other rank
# included (metrics.jsonl's all_reduce_share).
# Usage: bench/data_parallel.sh [REPEATS=3] [STEPS=100]   (from the repository root)
set -euo pipefail
REPEATS=${REPEATS:-3}; STEPS=${STEPS:-100}
TF=${TF:-build/tapeformer}
OUT=${OUT:-/tmp/tf-data-parallel}; rm -rf "$OUT"; mkdir -p "$OUT"
mpirun=(mpirun --allow-run-as-root --oversubscribe)
settings=(--set train.max_steps="$STEPS" --set train.log_every=10 --quiet)
for r in $(seq 1 "$REPEATS"); do
    echo "repeat $r, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    for w in w1 w4; do
        "$TF" --threads 1 train configs/bench/$w.json "${settings[@]}" --run-dir "$OUT/$w-1x1-$r" > /dev/null
        "${mpirun[@]}" -np 2 "$TF" --threads 1 train configs/bench/$w.json "${settings[@]}" --run-dir "$OUT/$w-2x1-$r" > /dev/null
        "${mpirun[@]}" -np 2 "$TF" --threads 1 train configs/bench/$w.json "${settings[@]}" --gradient-sum after-backward \
            --run-dir "$OUT/$w-2x1after-$r" > /dev/null
        "$TF" --threads 2 train configs/bench/$w.json "${settings[@]}" --run-dir "$OUT/$w-1x2-$r" > /dev/null
    done
done
python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def run_figures(path):
    rows = [json.loads(line) for line in open(os.path.join(path, "metrics.jsonl"))][1:-1]   # warm-up, final evaluation
    share = [row["all_reduce_share"] for row in rows if "all_reduce_share" in row]
    return statistics.median(row["tokens_per_s"] for row in rows), (statistics.median(share) if share else None)
layouts = [("1x1", "1 process × 1 thread"), ("2x1", "2 ranks × 1 thread"),
           ("2x1after", "2 ranks × 1 thread, summed after backward"), ("1x2", "1 process × 2 threads")]
print("| workload | layout | tokens/s (median) | spread | vs 1 × 1 | all-reduce share |")
print("|---|---|---:|---:|---:|---:|")
for w in ("w1", "w4"):
    base = None
    for key, name in layouts:
        figures = [run_figures(p) for p in sorted(glob.glob(f"{out}/{w}-{key}-*"))]
        rates = [f[0] for f in figures]
        median = statistics.median(rates)
        base = base or median
        shares = [f[1] for f in figures if f[1] is not None]
        share = f"{100 * statistics.median(shares):.1f} %" if shares else ""
        print(f"| {w.upper()} | {name} | {median:,.0f} | {min(rates):,.0f}–{max(rates):,.0f} | {median / base:.2f} | {share} |")
PY
