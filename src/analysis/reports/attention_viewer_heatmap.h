// The viewer's static picture of one map (analysis/reports/attention_viewer.h): an SVG grid drawn without a
// script, so report.html reads with scripts off. Query tokens down the left and key tokens across
// the top, each labelled with its position; a cell's shade is its weight over its row's largest,
// as in the viewer's grid.
#pragma once
#include <string>

#include "analysis/reports/viewer_maps.h"

namespace tf {

// An <svg class="viewer-heatmap">: the labels as visible_token writes them, the cells as one path
// per shade (16 shades; a cell under 1/32 of its row's largest is left blank).
std::string viewer_heatmap_svg(const ViewerMap& map);

}  // namespace tf
