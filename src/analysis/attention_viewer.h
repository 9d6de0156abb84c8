// The attention viewer of report.html: pick an example and a map (model, layer, head) from two
// lists, then hover a query token to light up its row of weights over the key tokens, the
// characters themselves shown (the view bertviz draws). The same view serves a dependency kernel:
// outputs as queries, inputs as keys. The maps travel in the page as JSON; the page's script draws them.
#pragma once
#include <string>
#include <vector>

namespace tf {

struct ViewerMap {
    std::string label;                          // "encoder.layers.0.self_attn, head 1 (self)"
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
// <option> per example, and <select class="viewer-choice">, one per map), the two rows of tokens
// the script fills, and the maps' JSON (weights to 6 significant digits). Examples without maps
// give a paragraph saying so.
std::string attention_viewer_html(const std::vector<ViewerExample>& examples);

}  // namespace tf
