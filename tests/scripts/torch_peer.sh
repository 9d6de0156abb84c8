#!/bin/bash
# bench/torch_peer.py, the PyTorch side of bench/compare_torch.sh, builds W1-W4 from configs/bench/
# with exactly tapeformer's parameter counts (tests/test_throughput.cpp holds tapeformer's to the
# same numbers), times a training step into the JSON line the comparison reads, and refuses an
# unknown workload with exit 2.
# Usage: torch_peer.sh SOURCE_DIR
set -uo pipefail
python=/usr/bin/python3   # Debian's interpreter, where python3-torch installs torch
peer=$1/bench/torch_peer.py
fail() { echo "FAIL: $*" >&2; exit 1; }
"$python" -c "import torch" 2>/dev/null ||
    fail "Debian's python3-torch is not installed; scripts/test.sh installs it (apt-get install python3-torch)"

counts=$(OMP_NUM_THREADS=1 "$python" "$peer" --threads 1 params) || fail "params exited $?"
"$python" - "$counts" <<'PY' || exit 1
import json, sys
expected = {"W1": 963168, "W2": 358368, "W3": 103008, "W4": 834400}
got = {d["workload"]: d["params"] for d in map(json.loads, sys.argv[1].splitlines())}
if got != expected:
    sys.exit(f"FAIL: parameter counts {got}, tapeformer's are {expected}")
PY

line=$(OMP_NUM_THREADS=1 "$python" "$peer" --threads 1 train --workload W3 --warmup 0 --steps 2) ||
    fail "train exited $?"
"$python" - "$line" <<'PY' || exit 1
import json, sys
d = json.loads(sys.argv[1])
checks = {"kind": d["kind"] == "train", "workload": d["workload"] == "W3", "impl": d["impl"] == "torch",
          "shape": (d["batch"], d["seq"]) == (32, 64), "threads": d["threads"] == 1,
          "tokens_per_s": abs(d["tokens_per_s"] - 32 * 64 / d["step_s"]["median"]) < 1e-6 * d["tokens_per_s"],
          "finite loss": 0 < d["loss_last"] < 10}
bad = [name for name, ok in checks.items() if not ok]
if bad:
    sys.exit(f"FAIL: the W3 line is wrong in {bad}: {d}")
PY

"$python" "$peer" train --workload W9 > /dev/null 2>&1
[ $? = 2 ] || fail "an unknown workload did not exit 2"
echo "torch_peer.py: W1-W4 with tapeformer's parameter counts, a W3 step timed, W9 refused"
