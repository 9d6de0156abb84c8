// The attention viewer of report.html: pick a map (model, layer, head, example) from a list, then
// hover a query token to light up its row of weights over the key tokens, the characters
// themselves shown (the view bertviz draws). The same view serves a dependency kernel: outputs as
// queries, inputs as keys. The maps travel in the page as JSON; the page's script draws them.
#pragma once
#include <string>
#include <vector>

namespace tf {

struct ViewerMap {
    std::string label;                          // "encoder.layers.0.self_attn, head 1 (self)"
    std::vector<std::string> queries, keys;     // the tokens of each row and each column
    std::vector<std::vector<double>> weights;   // weights[query][key]
};

// A <section class="attention-viewer">: its chooser (a <select>, one <option> per map), the two rows
// of tokens the script fills, and the maps' JSON. An empty list gives a paragraph saying so.
std::string attention_viewer_html(const std::vector<ViewerMap>& maps);

}  // namespace tf
