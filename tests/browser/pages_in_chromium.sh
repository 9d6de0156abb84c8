#!/usr/bin/env bash
# tests/browser/pages_in_chromium.sh TAPEFORMER SOURCE_DIR
#
# Every kind of page tapeformer writes, opened in a real browser (Debian's chromium, headless; the
# suite's set-up, scripts/test.sh, installs it): a comparison's report, analyze's reports of an
# attention model, an additive-attention model and a model without attention, bench's report, the
# tape, and collect's report of two copies of the comparison. For each, chromium's document after the page's script ran (--dump-dom) is checked by
# check_page.py: the table rows, one entry per variant, the viewer's controls, the map it opens on
# (the first attention map, else a kernel) with its caption, its grid with a label per column, its
# static picture, and no script error (the page's own hooks mark one on <html>). The comparison is also checked as
# written, without its script (its tables and plots are there), and photographed (--screenshot): the
# picture must show text and the plots' colours, and a blank picture must fail that check.
set -euo pipefail

tapeformer=$1
source_dir=$2
check="python3 $source_dir/tests/browser/check_page.py"

chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
    echo "error: chromium is not installed; scripts/test.sh installs it (apt-get install chromium)" >&2
    exit 1
fi
work=$(mktemp -d /tmp/tapeformer-browser.XXXXXX)
trap 'rm -rf "$work"' EXIT

# As root (CI) chromium needs --no-sandbox; there is no GPU, and /dev/shm may be small in a chroot.
# Its own complaints about D-Bus and the like go to stderr, kept in the log only when a check fails.
headless=("$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$work/profile")
dom_of() { "${headless[@]}" --dump-dom "file://$1" 2>>"$work/chromium.log"; }
screenshot_of() { "${headless[@]}" --window-size="$3" --screenshot="$2" "file://$1" >>"$work/chromium.log" 2>&1; }
on_failure() { echo "chromium's log:" >&2; tail -20 "$work/chromium.log" >&2; }
trap 'on_failure' ERR

echo "==> the pages (a tiny comparison, analyze on three of its runs, bench, tape, collect)"
"$tapeformer" compare "$source_dir/tests/data/tiny_comparison.json" --run-dir "$work/compare" --quiet
for variant in transformer gru_attention gru; do
    "$tapeformer" analyze --run "$work/compare/runs/$variant-seed1" --probes 2 --out "$work/analyze-$variant" >/dev/null
done
"$tapeformer" --threads 1 bench --workload W3 --steps 1 --warmup 0 --only train decode scaling --decode-runs 1 \
    --decode-tokens 4 --lengths 32 64 --reps 1 --out "$work/bench" >/dev/null
"$tapeformer" tape "$source_dir/configs/copy_transformer.json" --out "$work/tape" >/dev/null
cp -r "$work/compare" "$work/compare-copy"   # a second student's submission of the same comparison
"$tapeformer" collect "$work/compare" "$work/compare-copy" --out "$work/collect" >/dev/null
tape_entries=$("$tapeformer" tape "$source_dir/configs/copy_transformer.json" --text | sed -n 's/^\([0-9]*\) entries,.*/\1/p')

echo "==> each page in headless chromium"
dom_of "$work/compare/report.html" >"$work/compare.dom"
$check dom "$work/compare.dom" --row gru --row gru_attention --row transformer --text "full sequence as context" \
    --option "gru (seed 1): dependency kernel" --option "gru_attention (seed 1): " --option "transformer (seed 1): " --examples 1 --svgs 4 \
    --selected "gru_attention (seed 1): attention, head 0 (additive)" --text "Cross-attention (a decoder's attention over the source" \
    --findings 5 --text "Ranking by test token accuracy" --text "Budget: equal steps" --filled-column "known confound"
dom_of "$work/analyze-transformer/report.html" >"$work/analyze-transformer.dom"
$check dom "$work/analyze-transformer.dom" --option "encoder.layers.0.self_attn, head 1 (self)" \
    --option "decoder.layers.0.cross_attn, head 0 (cross)" --option "dependency kernel" --examples 3 --rows 6 --svgs 6 \
    --selected "encoder.layers.0.self_attn, head 0 (self)" --text "row i is the query at source position i"
dom_of "$work/analyze-gru_attention/report.html" >"$work/analyze-gru_attention.dom"
$check dom "$work/analyze-gru_attention.dom" --option "attention, head 0 (additive)" --option "dependency kernel" --examples 3 \
    --selected "attention, head 0 (additive)"
dom_of "$work/analyze-gru/report.html" >"$work/analyze-gru.dom"
$check dom "$work/analyze-gru.dom" --text "This model has no attention." --option "dependency kernel" --examples 3 \
    --selected "dependency kernel" --text "the viewer opens on a dependency kernel" \
    --text "row i is the output at position i, which predicts token i + 1"
dom_of "$work/bench/report.html" >"$work/bench.dom"
$check dom "$work/bench.dom" --row W3 --row tiled --row rnn --rows 11 --svgs 2
dom_of "$work/collect/report.html" >"$work/collect.dom"
$check dom "$work/collect.dom" --row "$work/compare: gru, seed 1" --row "$work/compare-copy: transformer, seed 1" --rows 12 \
    --text "Where each run was trained" --svgs 2
dom_of "$work/tape/tape.html" >"$work/tape.dom"
$check dom "$work/tape.dom" --script absent --nodes "$tape_entries" --svgs 1

# chromium's --dump-dom and --screenshot run a script of their own, so neither works with scripts
# off; but our script only adds (the viewer's grid, click handlers), so the page as written is
# what a browser with scripts off shows: there the viewer is its static picture and caption.
echo "==> the comparison as written, which is what a browser with scripts off shows: its tables, plots and the viewer's picture"
$check dom "$work/compare/report.html" --script disabled --row gru --row gru_attention --row transformer --svgs 4 \
    --selected "gru_attention (seed 1): attention, head 0 (additive)" --text "Cross-attention (a decoder's attention over the source"

echo "==> a screenshot of the comparison"
screenshot_of "$work/compare/report.html" "$work/compare.png" 1200,2400
$check png "$work/compare.png" 1200x2400
# and the check must be able to fail: a blank page of the same size (one uniform colour) is refused
python3 -c '
import struct, sys, zlib
width, height = 1200, 2400
rows = b"".join(b"\x00" + b"\xff" * (3 * width) for _ in range(height))
chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
sys.stdout.buffer.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                        chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))' >"$work/blank.png"
if $check png "$work/blank.png" 1200x2400; then echo "error: the screenshot check passed a blank page" >&2; exit 1; fi
