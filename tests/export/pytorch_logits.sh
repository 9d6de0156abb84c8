#!/usr/bin/env bash
# tests/export/pytorch_logits.sh TAPEFORMER SOURCE_DIR
#
# `tapeformer export --to pytorch` checked in Debian's PyTorch (python3-torch, which the suite's
# set-up, scripts/test.sh, installs): a transformer seq2seq, a GRU seq2seq with additive attention,
# a plain GRU seq2seq and two language models (attention blocks, and the worked example's
# convolution mixer, which model.py writes from its math), each trained briefly, exported, rebuilt by the exported
# model.py with torch.nn and run on the exported check inputs; the logits must agree with
# tapeformer's within 1e-4. model.py's greedy decoding of some text (its own tokenizer, from the
# exported vocab.json) must print what `tapeformer reconstruct` and `generate --top-k 1` print, for
# char, word and byte-pair vocabularies. Then the check must be able to fail (another seed's
# weights), and the refusals must say why: a model option model.py has no module for, a run
# without a checkpoint, an export over an earlier one's vocab.json.
set -euo pipefail

tapeformer=$1
source_dir=$2
python=/usr/bin/python3   # Debian's interpreter, where python3-torch installs torch
if ! "$python" -c "import torch" 2>/dev/null; then
    echo "error: Debian's python3-torch is not installed; scripts/test.sh installs it (apt-get install python3-torch)" >&2
    exit 1
fi
work=$(mktemp -d /tmp/tapeformer-export.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "==> training: a tiny comparison (transformer, GRU with attention, GRU) and a language model"
"$tapeformer" compare "$source_dir/tests/data/tiny_comparison.json" --run-dir "$work/compare" --quiet >/dev/null
for lm in char_lm char_lm_conv; do   # attention blocks; the worked example's convolution mixer
    "$tapeformer" train "$source_dir/configs/$lm.json" --set "data.path=$source_dir/data/poetry/poems.txt" \
        --set model.layers=2 --set model.d_model=32 --set train.max_steps=3 --run-dir "$work/$lm" --quiet >/dev/null
done
for tokenizer in word bpe; do   # the same language model over words, and over 40 byte-pair merges
    vocabulary=$([ "$tokenizer" = bpe ] && echo "--set data.vocab_size=300" || true)
    # shellcheck disable=SC2086
    "$tapeformer" train "$source_dir/configs/char_lm.json" --set "data.path=$source_dir/data/poetry/poems.txt" \
        --set data.tokenizer=$tokenizer $vocabulary --set model.layers=1 --set model.d_model=32 --set train.max_steps=3 \
        --run-dir "$work/${tokenizer}_lm" --quiet >/dev/null
done

echo "==> each exported model's logits against tapeformer's"
for run in compare/runs/transformer-seed1 compare/runs/gru_attention-seed1 compare/runs/gru-seed1 char_lm char_lm_conv word_lm bpe_lm; do
    "$tapeformer" export --run "$work/$run" --to pytorch "$work/exported/$run" >/dev/null
    echo "$run: $("$python" "$work/exported/$run/model.py")"
done

echo "==> model.py --decode: greedy decoding of text, as tapeformer decodes it"
same() {   # same WHAT EXPECTED GOT
    if [ "$2" != "$3" ]; then
        echo "error: $1: tapeformer decodes '$2', model.py '$3'" >&2
        exit 1
    fi
    echo "$1: '$3'"
}
for run in compare/runs/transformer-seed1 compare/runs/gru_attention-seed1 compare/runs/gru-seed1; do
    expected=$("$tapeformer" reconstruct --run "$work/$run" --input "abcfed" --max-length 8 | sed -n 's/^output: //p')
    same "$run" "$expected" "$("$python" "$work/exported/$run/model.py" --decode "abcfed" --max-length 8)"
done
prompt="The sea's light -- and, \"alone\""   # word: an apostrophe inside a word, a run of dashes, quotes
for run in char_lm word_lm bpe_lm; do
    expected=$("$tapeformer" generate --run "$work/$run" --prompt "$prompt" --top-k 1 --max-length 12 --json |
        "$python" -c 'import json, sys
result = json.load(sys.stdin)   # bytes that are not UTF-8 come as hex too: write those bytes
hex = result.get("generated_hex")
sys.stdout.buffer.write(bytes.fromhex(hex) if hex else result["generated"].encode())')
    same "$run" "$expected" "$("$python" "$work/exported/$run/model.py" --decode "$prompt" --max-length 12)"
done

echo "==> the check fails on other weights: seed 2's transformer in seed 1's place"
"$tapeformer" export --run "$work/compare/runs/transformer-seed2" --to pytorch "$work/exported/seed2" >/dev/null
cp "$work/exported/seed2/model.safetensors" "$work/exported/compare/runs/transformer-seed1/model.safetensors"
if "$python" "$work/exported/compare/runs/transformer-seed1/model.py"; then
    echo "error: model.py accepted another seed's weights" >&2
    exit 1
fi

echo "==> refusals: exit 2, saying why"
refused() {   # refused EXPECTED-TEXT COMMAND...
    local expected=$1 status=0
    shift
    "$@" >"$work/out" 2>"$work/err" || status=$?
    if [ "$status" -ne 2 ] || ! grep -qF "$expected" "$work/err"; then
        echo "error: '$*' exited $status, expected 2 and '$expected'; it said: $(cat "$work/err")" >&2
        exit 1
    fi
    echo "refused as expected: $(cat "$work/err")"
}
"$tapeformer" train "$source_dir/configs/copy_transformer.json" --set model.kv_heads=1 --set train.max_steps=1 \
    --set optimizer.schedule.warmup_steps=0 --run-dir "$work/gqa" --quiet >/dev/null
refused "model.kv_heads = 1 has no counterpart" "$tapeformer" export --run "$work/gqa" --to pytorch "$work/exported/gqa"
mkdir -p "$work/untrained"
cp "$work/gqa/config.resolved.json" "$work/untrained/"
refused "no checkpoint" "$tapeformer" export --run "$work/untrained" --to pytorch "$work/exported/untrained"
mkdir -p "$work/exported/over"
echo '{}' >"$work/exported/over/vocab.json"
refused "vocab.json exists; add --force" "$tapeformer" export --run "$work/char_lm" --to pytorch "$work/exported/over"
if [ "$(cat "$work/exported/over/vocab.json")" != '{}' ] || [ -e "$work/exported/over/model.py" ]; then
    echo "error: the refused export wrote into $work/exported/over" >&2
    exit 1
fi
