#!/usr/bin/env bash
# scripts/fuzz.sh [TARGET|all] [SECONDS]     (default: all targets, 60 seconds each)
#
# Builds the libFuzzer harnesses (fuzz/, in the clang ASan + UBSan build build-san/) and
# runs each TARGET (config, safetensors, data, run_dir) for SECONDS from its corpus, one a core: seeds made
# from the shipped configs, the sample data and a real 2-step checkpoint, the saved regressions,
# and what earlier runs found (build-san/corpus/, kept between runs). Dictionaries of config
# keys, safetensors dtypes and metadata keys, and data tokens are in fuzz/*.dict. A crash, a hang, a wrong exception or an out-of-proportion
# allocation is minimised and saved as tests/fuzz-regressions/TARGET/NAME, which ctest replays
# through the same entry point (no clang needed there); the script then exits 1. Commit the file
# with the fix.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

# What one input may take before libFuzzer reports it: seconds, memory.
FUZZ_TIMEOUT_S=10
FUZZ_RSS_LIMIT_MB=2048

targets=(config safetensors data run_dir)
chosen=${1:-all}
seconds=${2:-60}
if [ "$chosen" != all ]; then
    printf '%s\n' "${targets[@]}" | grep -qx "$chosen" || {
        echo "fuzz.sh: unknown target '$chosen' (known: ${targets[*]} or all)" >&2
        exit 2
    }
    targets=("$chosen")
fi
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: SECONDS must be a positive whole number, got '$seconds'" >&2; exit 2; }

# The harnesses live in the sanitizer build that scripts/test.sh --sanitize tests (build-san/),
# which is configured with the suite and so needs the suite's packages too.
TF_PACKAGES+=("${TF_TEST_PACKAGES[@]}" "${TF_SANITIZER_PACKAGES[@]}")
tf_install_missing
tf_prepare_data
build_dir="$TF_ROOT/build-san"
tf_sanitizer_build tapeformer "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=detect_leaks=0   # oneDNN's and OpenMP's process-long allocations are not leaks of ours
export UBSAN_OPTIONS=print_stacktrace=1
cores=$(nproc)   # before OMP_NUM_THREADS is set: nproc answers that instead of the count of cores
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1

# Seeds: every run re-makes them from the current code, so they always match its formats.
seeds="$build_dir/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"/{config,safetensors,data,run_dir}
cp "$TF_ROOT"/configs/*.json "$TF_ROOT"/fuzz/tiny_transformer.json "$seeds/config/"
printf 'model.heads=4\0data.batch_size=8' | cat "$TF_ROOT/configs/default.json" - >"$seeds/config/default-with-overrides"
seed_run="$seeds/tiny-run"
"$build_dir/tapeformer" train "$TF_ROOT/fuzz/tiny_transformer.json" --run-dir "$seed_run" >"$seeds/tiny-run.log" 2>&1 ||
    { cat "$seeds/tiny-run.log" >&2; exit 1; }
cp "$seed_run/checkpoints/step-2.safetensors" "$seeds/safetensors/"
{ cat "$seed_run/config.resolved.json"; printf '\0'; cat "$seed_run/checkpoints/latest"; printf '\0';
  cat "$seed_run/checkpoints/step-2.safetensors"; } >"$seeds/run_dir/tiny-run"
# The data target's first byte picks the reader (fuzz/targets.h DataKind): 0 text/char/lines,
# 1 text/word/stanzas, 2 JSONL seq2seq, 3 JSONL lm, 4 vocab.json.
head -c 4000 "$TF_ROOT/data/poetry/poems.txt" | cat <(printf '\x00') - >"$seeds/data/poems-char"
head -c 4000 "$TF_ROOT/data/poetry/poems.txt" | cat <(printf '\x01') - >"$seeds/data/poems-word"
for file in "$TF_ROOT"/data/bench/*.jsonl; do
    kind='\x02'; [[ $file == *lm* ]] && kind='\x03'
    head -n 20 "$file" | cat <(printf "$kind") - >"$seeds/data/$(basename "$file" .jsonl)"
done
[ -f "$seed_run/vocab.json" ] && cat <(printf '\x04') "$seed_run/vocab.json" >"$seeds/data/vocab"

# already_saved FILE DIR: whether DIR holds a file with FILE's bytes.
already_saved() {
    local saved
    for saved in "$2"/*; do
        cmp -s "$1" "$saved" && return 0
    done
    return 1
}

# fuzz TARGET: one harness for $seconds from its corpus, its output in build-san/fuzz-TARGET.log and
# its exit status in build-san/fuzz-TARGET.status.
fuzz() {
    local target=$1 corpus="$build_dir/corpus/$1" regressions="$TF_ROOT/tests/fuzz-regressions/$1"
    local artifacts="$build_dir/artifacts/$1" dict="$build_dir/$1.dict" status=0
    mkdir -p "$corpus" "$artifacts"
    # A run directory holds a config and a checkpoint: its dictionary is both of theirs.
    case $target in
        run_dir) cat "$TF_ROOT/fuzz/config.dict" "$TF_ROOT/fuzz/safetensors.dict" >"$dict" ;;
        *) cp "$TF_ROOT/fuzz/$target.dict" "$dict" ;;
    esac
    "$build_dir/fuzz/fuzz_$target" "$corpus" "$seeds/$target" "$regressions" -dict="$dict" \
        -max_total_time="$seconds" -timeout=$FUZZ_TIMEOUT_S -rss_limit_mb=$FUZZ_RSS_LIMIT_MB \
        -malloc_limit_mb=$FUZZ_RSS_LIMIT_MB -max_len=1048576 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" >"$build_dir/fuzz-$target.log" 2>&1 || status=$?
    echo $status >"$build_dir/fuzz-$target.status"
}

# A harness is one process on one thread: they run side by side, one a core, so each still has a
# whole core for its SECONDS.
for target in "${targets[@]}"; do
    echo "==> fuzzing $target for ${seconds}s"
    fuzz "$target" &
    while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n || true; done
done
wait

found=0
for target in "${targets[@]}"; do
    regressions="$TF_ROOT/tests/fuzz-regressions/$target"
    artifacts="$build_dir/artifacts/$target"
    log="$build_dir/fuzz-$target.log"
    status=$(cat "$build_dir/fuzz-$target.status")
    echo "==> $target:"
    grep -aE "^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" | sed 's/^/    /'
    if [ "$status" -ne 0 ]; then
        found=1
        for artifact in "$artifacts"/*; do
            [ -f "$artifact" ] || continue
            name=$(basename "$artifact")
            if already_saved "$artifact" "$regressions"; then
                rm "$artifact"
                echo "    FAILS: a saved regression of tests/fuzz-regressions/$target still fails (the log: $log)"
                continue
            fi
            "$build_dir/fuzz/fuzz_$target" -minimize_crash=1 -max_total_time=60 -timeout=$FUZZ_TIMEOUT_S \
                -rss_limit_mb=$FUZZ_RSS_LIMIT_MB -exact_artifact_path="$regressions/$name" "$artifact" >/dev/null 2>&1 ||
                cp "$artifact" "$regressions/$name"
            [ -f "$regressions/$name" ] || cp "$artifact" "$regressions/$name"
            rm "$artifact"
            echo "    FOUND: $(grep -m1 -E "ERROR|SUMMARY|==[0-9]+==|terminate|Timeout|out-of-memory" "$log")"
            echo "    saved as tests/fuzz-regressions/$target/$name (the whole log: $log)"
        done
    fi
done
exit $found
