#!/bin/bash
# A sweep of free-space levels across a whole `train`: on a small tmpfs of each size in turn, a
# run either finishes (exit 0) with every file whole — config, vocabulary, log, checkpoints — and
# `eval` reads it, or stops with exit 2 naming what it could not write. Never exit 0 with a short
# file, never another exit code. The tmpfs is mounted in a mount namespace of its own (as root, as
# CI runs; else a user namespace), on a mount made private there first, so no other namespace sees it.
# Usage: free_space_sweep.sh TAPEFORMER
set -uo pipefail
tapeformer=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --propagation unchanged: unshare's default makes / private, which fails where / is no mount
# point (a chroot, as in scripts/check-fresh.sh); the mount holding $work is made private instead.
if unshare -m --propagation unchanged true 2> /dev/null; then namespace=(unshare -m --propagation unchanged)
elif unshare -rm --propagation unchanged true 2> /dev/null; then namespace=(unshare -rm --propagation unchanged)
else fail "cannot make a mount namespace for the tmpfs (unshare -m needs root, unshare -rm user namespaces)"; fi

cat > "$work/config.json" <<'JSON'
{"name": "disk", "seed": 1, "threads": 1,
 "model": {"type": "transformer", "d_model": 8, "heads": 2, "encoder_layers": 1, "decoder_layers": 1,
           "ffn_hidden": 16, "max_length": 16},
 "data": {"source": "synthetic", "task": "copy", "num_symbols": 5, "min_length": 2, "max_length": 5,
          "train_size": 32, "valid_size": 8, "test_size": 8, "batch_size": 8},
 "optimizer": {"name": "adam", "lr": 0.01},
 "train": {"max_steps": 12, "log_every": 1, "eval_every": 4, "checkpoint_every": 4, "keep_checkpoints": 2}}
JSON
mkdir "$work/disk"

# One train on a tmpfs of $1 KiB, then the checks, inside one namespace; prints "exit N".
train_on_disk_of() {
    "${namespace[@]}" bash -s "$1" "$tapeformer" "$work" <<'INSIDE'
size=$1 tapeformer=$2 work=$3
holding=$(stat -c %m "$work") && [ -n "$holding" ] && mount --make-rprivate "$holding" ||
    { echo "cannot make the mount holding $work private"; exit 1; }
mount -t tmpfs -o "size=${size}k" tmpfs "$work/disk" || { echo "mount failed"; exit 1; }
run="$work/disk/run"
"$tapeformer" train "$work/config.json" --run-dir "$run" --quiet > "$work/out" 2> "$work/err"
status=$?
echo "exit $status"
if [ $status = 0 ]; then
    for file in config.resolved.json vocab.json metrics.jsonl checkpoints/latest best.safetensors \
                "checkpoints/$(cat "$run/checkpoints/latest" 2> /dev/null)"; do
        [ -s "$run/$file" ] || echo "short file: $file"
    done
    "$tapeformer" eval --run "$run" > /dev/null 2> "$work/eval.err" || echo "eval failed: $(cat "$work/eval.err")"
elif [ $status = 2 ]; then
    grep -q "No space left on device" "$work/err" || echo "no reason given: $(cat "$work/err")"
else
    echo "stderr: $(cat "$work/err")"
fi
INSIDE
}

finished=0 refused=0
for size in $(seq 8 8 256); do
    result=$(train_on_disk_of "$size")
    case "$result" in
        "exit 0") finished=$((finished + 1)) ;;
        "exit 2") refused=$((refused + 1)) ;;
        *) fail "a tmpfs of ${size} KiB: $result" ;;
    esac
done
# The sweep must span the boundary: too small to finish at its low end, enough at its high end.
[ $refused -gt 0 ] && [ $finished -gt 0 ] || fail "the sweep did not cross the boundary: $finished finished, $refused refused"
echo "$((finished + refused)) free-space levels: $refused refused with exit 2 naming the file, $finished finished whole"
