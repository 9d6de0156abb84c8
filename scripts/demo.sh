#!/usr/bin/env bash
# The README's demo command: install what is missing, build the CLI (Release, in build/), then run the
# main job on the shipped default: the poetry comparison — an RNN, a GRU, an LSTM, a GRU with
# attention and a transformer autoencoding lines of verse on the same data and budget, 3 seeds each —
# at a size that finishes in a few minutes on 2 cores, then show a few reconstructions and where the
# report is.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

tf_install_missing
tf_prepare_data
# The CLI alone: the demo needs neither the suite nor what it needs (Catch2, chromium, PyTorch).
tf_build "$TF_ROOT/build" -DTF_TESTS=OFF -- tapeformer

cd "$TF_ROOT"
run_dir=runs/demo
# TF_DEMO_STEPS: the steps each model trains (default 300); scripts/check-fresh.sh, which only needs
# to see the command work on a fresh system, passes fewer.
steps=${TF_DEMO_STEPS:-300}
[[ $steps =~ ^[1-9][0-9]*$ ]] || { echo "demo.sh: TF_DEMO_STEPS must be a positive whole number, got '$steps'" >&2; exit 2; }
echo
echo "==> tapeformer compare configs/compare_poetry.json (demo budget: 3 seeds, $steps steps each)"
build/tapeformer compare configs/compare_poetry.json --set "train.max_steps=$steps" --run-dir "$run_dir"
echo
echo "==> reconstructions by the GRU with attention:"
build/tapeformer reconstruct --run "$run_dir/runs/gru_attention-seed1" --count 3
echo "==> and by the GRU without attention:"
build/tapeformer reconstruct --run "$run_dir/runs/gru-seed1" --count 3
echo
echo "The report: $run_dir/report.md (plots in $run_dir/plots/, numbers in $run_dir/report.json)"
echo
echo "Each prediction's verdict comes with a 95 % interval over the 3 seeds (docs/experiments.md explains"
echo "the measures). Where recurrence runs out of memory, as input grows: the length sweep, about 1.5 min:"
echo "  build/tapeformer compare configs/compare_length_sweep.json   # accuracy against input length, τ of each RNN"
