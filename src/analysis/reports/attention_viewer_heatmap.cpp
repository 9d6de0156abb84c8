// The viewer's static picture (analysis/reports/attention_viewer_heatmap.h).
#include "analysis/reports/attention_viewer_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/reports/svg.h"

namespace tf {

namespace {

constexpr int kShades = 16;
constexpr const char* kShadeColour = "#D55E00";   // the viewer's grid shades with the same vermilion

// The characters of a UTF-8 text (its bytes that do not continue a character): a label's width.
std::size_t characters(const std::string& text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

// "<tspan>position</tspan> token", the position grey.
std::string label(std::size_t position, const std::string& token) {
    return "<tspan fill=\"#888\">" + std::to_string(position) + "</tspan> " + svg::escape(visible_token(token));
}

// shade(i, j) = round(kShades · w_ij / max_k w_ik), 0 (blank) for a row of no positive weight or a
// value that is not finite.
std::vector<std::vector<int>> shades(const std::vector<std::vector<double>>& weights) {
    std::vector<std::vector<int>> out;
    for (const std::vector<double>& row : weights) {
        double largest = 0;
        for (const double w : row)
            if (std::isfinite(w)) largest = std::max(largest, w);
        std::vector<int>& shaded = out.emplace_back();
        for (const double w : row)
            shaded.push_back(largest > 0 && std::isfinite(w) ? static_cast<int>(std::lround(std::max(0.0, w) / largest * kShades)) : 0);
    }
    return out;
}

}  // namespace

std::string viewer_heatmap_svg(const ViewerMap& map) {
    const std::size_t rows = map.weights.size(), columns = rows ? map.weights.front().size() : 0;
    // Cells of 6 to 18 px, the grid near 560 px on its longer side; labels a little smaller.
    const double cell = std::clamp(560.0 / static_cast<double>(std::max<std::size_t>({rows, columns, 1})), 6.0, 18.0);
    const double font = std::min(12.0, cell - 1);
    std::size_t row_label = 1, column_label = 1;   // the longest labels, in characters
    for (std::size_t i = 0; i < rows; ++i)
        row_label = std::max(row_label, std::to_string(i).size() + 1 + characters(visible_token(i < map.queries.size() ? map.queries[i] : "")));
    for (std::size_t j = 0; j < columns; ++j)
        column_label = std::max(column_label, std::to_string(j).size() + 1 + characters(visible_token(j < map.keys.size() ? map.keys[j] : "")));
    const double left = 8 + 0.65 * font * static_cast<double>(row_label), top = 8 + 0.65 * font * static_cast<double>(column_label);
    const double width = left + cell * static_cast<double>(columns) + 8, height = top + cell * static_cast<double>(rows) + 8;

    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"viewer-heatmap\" width=\"" + number(width) + "\" height=\"" +
                      number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
                      "\" font-family=\"monospace\" font-size=\"" + number(font) + "\">\n";
    for (std::size_t j = 0; j < columns; ++j)   // rotated to read upwards, ending just above its column
        out += "<text transform=\"translate(" + number(left + cell * (static_cast<double>(j) + 0.5) + font / 3) + " " + number(top - 4) +
               ") rotate(-90)\">" + label(j, j < map.keys.size() ? map.keys[j] : "") + "</text>\n";
    for (std::size_t i = 0; i < rows; ++i)
        out += "<text x=\"" + number(left - 4) + "\" y=\"" + number(top + cell * (static_cast<double>(i) + 0.5) + font / 3) +
               "\" text-anchor=\"end\">" + label(i, i < map.queries.size() ? map.queries[i] : "") + "</text>\n";
    // The cells in cell units (column j, row i is the square [j, j+1] × [i, i+1]), each run of equal
    // shade in a row one rectangle of that shade's path (appended piece by piece: GCC 12's
    // -Wrestrict misfires on "…" + string).
    std::map<int, std::string> path_of_shade;
    const std::vector<std::vector<int>> shaded = shades(map.weights);
    for (std::size_t i = 0; i < shaded.size(); ++i)
        for (std::size_t j = 0; j < shaded[i].size();) {
            std::size_t end = j + 1;
            while (end < shaded[i].size() && shaded[i][end] == shaded[i][j]) ++end;
            const std::string run = std::to_string(end - j);   // M j i, h run, v 1, h −run: the run's rectangle
            if (shaded[i][j] > 0)
                path_of_shade[shaded[i][j]].append("M").append(std::to_string(j)).append(" ").append(std::to_string(i)).append("h")
                    .append(run).append("v1h-").append(run).append("z");
            j = end;
        }
    out += "<g transform=\"translate(" + number(left) + " " + number(top) + ") scale(" + number(cell) + ")\" shape-rendering=\"crispEdges\">\n";
    out += "<rect width=\"" + std::to_string(columns) + "\" height=\"" + std::to_string(rows) +
           "\" fill=\"none\" stroke=\"#ccc\" stroke-width=\"" + number(1 / cell) + "\"/>\n";
    for (const auto& [shade, path] : path_of_shade)
        out.append("<path fill=\"").append(kShadeColour).append("\" fill-opacity=\"").append(number(static_cast<double>(shade) / kShades))
            .append("\" d=\"").append(path).append("\"><title>").append(number((shade - 0.5) / kShades)).append(" to ")
            .append(number(std::min(1.0, (shade + 0.5) / kShades))).append(" of the row's largest</title></path>\n");
    return out + "</g>\n</svg>\n";
}

}  // namespace tf
