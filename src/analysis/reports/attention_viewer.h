// The attention viewer of report.html: pick an example and a map (model, layer, head) from two
// lists; the map is drawn as a grid, query tokens down and key tokens across, each labelled with its
// position, a cell shaded by its weight over its row's largest (its tooltip gives the number). The
// same view serves a dependency kernel: outputs as queries, inputs as keys. The viewer opens on the
// first attention map (on a kernel when there is none), and a caption says what a row is for the
// chosen map's kind. The maps travel in the page as JSON and the page's script draws them; beside
// them, a static picture of the opening map (analysis/reports/attention_viewer_heatmap.h) reads without scripts.
#pragma once
#include <string>
#include <vector>

namespace tf {

// What a map's rows and columns are, which decides what its caption says a row predicts.
enum class ViewerMapKind {
    causal_self_attention,    // a language model's or a decoder's: query i reads token i and predicts token i + 1
    encoder_self_attention,   // over the source, unmasked: predicts nothing itself
    cross_attention,          // decoder queries over the source (also a recurrent decoder's attention)
    dependency_kernel,        // K(i, j) = ||dy_i/dx_j||: outputs down, inputs across
};

struct ViewerMap {
    std::string label;                          // "encoder.layers.0.self_attn, head 1 (self)"
    ViewerMapKind kind;
    std::vector<std::string> queries, keys;     // the tokens of each row and each column
    std::vector<std::vector<double>> weights;   // weights[query][key]
};

// One input's maps. Every example of a viewer has the same maps (the same labels, in order), drawn
// on its own tokens.
struct ViewerExample {
    std::string label;             // the input's text
    std::vector<ViewerMap> maps;
};

// A <section class="attention-viewer">: its two choosers (<select class="viewer-example">, one
// <option> per example, and <select class="viewer-choice">, one per map, the opening map's
// option selected and each option's caption in data-caption), a line saying which map the viewer
// opened on, the caption, the static picture of that map on the first example, the grid the script
// fills, and the maps' JSON (tokens as visible_token writes them, weights to 6 significant
// digits). Examples without maps give a paragraph saying so.
std::string attention_viewer_html(const std::vector<ViewerExample>& examples);

// The map the viewer opens on: the first attention map, else the first (a kernel).
std::size_t opening_map(const std::vector<ViewerMap>& maps);

// What a row and a column of a map of this kind are, in a sentence.
std::string viewer_caption(ViewerMapKind kind);

// A token as the viewer shows it: a space as "␣"; a tab, newline or carriage return as \t \n \r; any
// other control character as \xNN; a no-break or zero-width space (U+00A0, U+200B–U+200D, U+2060,
// U+FEFF) as \uNNNN; everything else as it is.
std::string visible_token(const std::string& token);

}  // namespace tf
