#!/usr/bin/env bash
# The README's demo command: install what is missing, build once (Release, in build/), then run
# the main job on the shipped default: every op's gradient check, then the matmul benchmark.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

tf_install_missing
tf_prepare_data
tf_build "$TF_ROOT/build"

echo
echo "==> every op's backward against central differences (f64): build/tapeformer gradcheck"
"$TF_ROOT/build/tapeformer" gradcheck
echo
echo "==> matrix multiply: oneDNN vs the reference loop vs this machine's FP32 peak"
"$TF_ROOT/build/bench/bench_matmul" --quick
