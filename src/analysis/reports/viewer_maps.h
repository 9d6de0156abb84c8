// The maps the attention viewer shows (analysis/reports/attention_viewer.h) and the static picture
// beside it (attention_viewer_heatmap.h) draw: what a map is, an example's maps, and a token as both
// show it.
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

// A token as the viewer shows it: a space as "␣"; a tab, newline or carriage return as \t \n \r; any
// other control character as \xNN; a no-break or zero-width space (U+00A0, U+200B–U+200D, U+2060,
// U+FEFF) as \uNNNN; everything else as it is.
std::string visible_token(const std::string& token);

}  // namespace tf
