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

#include "analysis/reports/viewer_maps.h"

namespace tf {

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

}  // namespace tf
