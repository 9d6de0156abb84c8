// A heatmap as SVG: its cells on a linear or log colour scale, tick labels, and the colour bar
// (its two ends, or on a log scale each decade).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "analysis/reports/svg.h"
#include "analysis/reports/svg_parts.h"

namespace tf::svg {

using parts::number;

namespace {

// Interpolates a perceptually ordered scale (dark blue → teal → yellow, like viridis) at t ∈ [0, 1].
std::string colour_at(double t) {
    static const double anchors[][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4;
    const int i = std::min(3, static_cast<int>(t));
    const double f = t - i;
    char text[16];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(anchors[i][0] + f * (anchors[i + 1][0] - anchors[i][0])),
                  static_cast<int>(anchors[i][1] + f * (anchors[i + 1][1] - anchors[i][1])),
                  static_cast<int>(anchors[i][2] + f * (anchors[i + 1][2] - anchors[i][2])));
    return text;
}

// The colour scale in this many steps: a cell's colour is the middle of its value's step.
constexpr int kColourSteps = 64;

// How the colour scale reads a value: the value itself, or on a log scale log10 of it, clipped at
// the floor max × 10^−decades (values at or below 0 too).
struct ColourScale {
    bool log = false;
    double floor = 0;          // log scale: log10 of the lowest value coloured apart
    bool clipped = false;      // log scale: some value lay under the floor
    double operator()(double v) const {
        if (!std::isfinite(v) || !log) return v;
        return v > 0 ? std::max(std::log10(v), floor) : floor;
    }
    double shown(double scaled) const { return log ? std::pow(10.0, scaled) : scaled; }   // back to the value
};

// A heatmap's cells, drawn in cell units (column c, row r is the square [c, c+1] × [r, r+1]) as
// one path per colour step, each run of same-coloured cells in a row one rectangle of it. One
// element per cell made a 40 × 40 attention map 140 KB, too much for a page with 24 of them; this
// is a tenth of that. Hovering a cell shows its colour step's range of values (the page's viewer
// and plots/<name>.csv give each cell's number); a non-finite value is white. `low` and `high` are
// the range of the scaled values.
std::string heatmap_cells(const std::vector<std::vector<double>>& values, const ColourScale& scale, double low, double high,
                          double cell_width, double cell_height, const Canvas& canvas) {
    const auto step_of = [&](double v) {
        if (!std::isfinite(v)) return -1;
        if (high <= low) return kColourSteps / 2;
        return std::clamp(static_cast<int>((scale(v) - low) / (high - low) * kColourSteps), 0, kColourSteps - 1);
    };
    std::map<int, std::string> path_of_step;
    for (std::size_t r = 0; r < values.size(); ++r)
        for (std::size_t c = 0; c < values[r].size();) {
            const int step = step_of(values[r][c]);
            std::size_t end = c + 1;
            while (end < values[r].size() && step_of(values[r][end]) == step) ++end;
            const std::string run = std::to_string(end - c);   // M c r, h run, v 1, h −run: the run's rectangle
            path_of_step[step].append("M").append(std::to_string(c)).append(" ").append(std::to_string(r));
            path_of_step[step].append("h").append(run).append("v1h-").append(run).append("z");
            c = end;
        }
    std::ostringstream out;
    // crispEdges: neighbouring rectangles meet without an anti-aliased seam between them.
    out << "<g transform=\"translate(" << canvas.left << " " << canvas.top << ") scale(" << number(cell_width) << " "
        << number(cell_height) << ")\" shape-rendering=\"crispEdges\">\n";
    for (const auto& [step, path] : path_of_step) {
        const double from = low + (high - low) * step / kColourSteps, to = low + (high - low) * (step + 1) / kColourSteps;
        const std::string range = step < 0              ? "not a number"
                                  : high <= low         ? number(scale.shown(low))
                                  : step == 0 && scale.clipped ? "≤ " + number(scale.shown(to))
                                                       : number(scale.shown(from)) + " to " + number(scale.shown(to));
        out << "<path class=\"cells\" fill=\"" << (step < 0 ? std::string("#ffffff") : colour_at((step + 0.5) / kColourSteps))
            << "\" d=\"" << path << "\"><title>" << range << "</title></path>\n";
    }
    out << "</g>\n";
    return out.str();
}

}  // namespace

std::string render(const Heatmap& heatmap, const Canvas& canvas) {
    const double u = canvas.unit();
    const std::size_t rows = heatmap.values.size();
    const std::size_t columns = rows ? heatmap.values[0].size() : 0;
    double largest = -std::numeric_limits<double>::infinity();
    for (const auto& row : heatmap.values)
        for (double v : row)
            if (std::isfinite(v)) largest = std::max(largest, v);
    ColourScale scale;
    if (heatmap.log_decades > 0 && largest > 0) scale.log = true, scale.floor = std::log10(largest) - heatmap.log_decades;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const auto& row : heatmap.values)
        for (double v : row)
            if (std::isfinite(v)) {
                low = std::min(low, scale(v)), high = std::max(high, scale(v));
                scale.clipped = scale.clipped || (scale.log && !(v > 0 && std::log10(v) >= scale.floor));
            }
    if (!std::isfinite(low)) low = 0, high = 1;
    const double area_width = canvas.width - canvas.left - canvas.right, area_height = canvas.height - canvas.top - canvas.bottom;
    const double cell_width = columns ? area_width / static_cast<double>(columns) : 0;
    const double cell_height = rows ? area_height / static_cast<double>(rows) : 0;
    // Tick labels on at most ~12 rows/columns so they stay readable.
    const std::size_t column_every = std::max<std::size_t>(1, columns / 12), row_every = std::max<std::size_t>(1, rows / 12);

    std::ostringstream out;
    out << parts::header(heatmap.title, canvas);
    out << heatmap_cells(heatmap.values, scale, low, high, cell_width, cell_height, canvas);
    for (std::size_t c = 0; c < columns; c += column_every)
        out << "<text x=\"" << number(canvas.left + cell_width * (c + 0.5)) << "\" y=\"" << canvas.height - canvas.bottom + 16 * u
            << "\" text-anchor=\"middle\" font-size=\"" << canvas.small_font << "\">"
            << escape(c < heatmap.column_names.size() ? heatmap.column_names[c] : std::to_string(c)) << "</text>\n";
    for (std::size_t r = 0; r < rows; r += row_every)
        out << "<text x=\"" << canvas.left - 6 * u << "\" y=\"" << number(canvas.top + cell_height * (r + 0.5) + 4 * u)
            << "\" text-anchor=\"end\" font-size=\"" << canvas.small_font << "\">"
            << escape(r < heatmap.row_names.size() ? heatmap.row_names[r] : std::to_string(r)) << "</text>\n";
    out << parts::axis_labels(heatmap.x_label, heatmap.y_label, canvas);
    // The colour bar: 20 steps from low (bottom) to high (top), with its value label.
    const double bar_x = canvas.width - canvas.right + 30 * u;
    for (int i = 0; i < 20; ++i)
        out << "<rect x=\"" << bar_x << "\" y=\"" << number(canvas.top + area_height * (19 - i) / 20.0) << "\" width=\"" << 20 * u
            << "\" height=\"" << number(area_height / 20.0 + 0.3) << "\" fill=\"" << colour_at((i + 0.5) / 20.0) << "\"/>\n";
    // The ends' values; on a log scale only when it spans fewer than two decade marks (else those say it).
    const int first = static_cast<int>(std::ceil(low - 1e-9)), last = static_cast<int>(std::floor(high + 1e-9));
    const bool ends_labelled = !scale.log || last - first < 1;
    if (ends_labelled)
        out << "<text x=\"" << bar_x + 26 * u << "\" y=\"" << canvas.top + 10 * u << "\">" << number(scale.shown(high)) << "</text>\n"
            << "<text x=\"" << bar_x + 26 * u << "\" y=\"" << canvas.top + area_height << "\">" << number(scale.shown(low))
            << "</text>\n";
    if (scale.log) {
        // A mark at each decade (every second or more when there are many), and what the lowest colour holds.
        const int every = std::max(1, (last - first + 7) / 8);
        for (int k = last; k >= first; k -= every) {
            const double y = high > low ? canvas.top + area_height * (high - k) / (high - low) : canvas.top + area_height / 2;
            out << "<line class=\"decade\" x1=\"" << bar_x + 20 * u << "\" y1=\"" << number(y) << "\" x2=\"" << bar_x + 24 * u
                << "\" y2=\"" << number(y) << "\" stroke=\"#333\"/>";
            // Its label, unless it would overlap an end's.
            if (!ends_labelled || (y > canvas.top + 2 * canvas.font && y < canvas.top + area_height - 1.5 * canvas.font))
                out << "<text x=\"" << bar_x + 26 * u << "\" y=\"" << number(y + 4 * u) << "\">" << parts::decade(k) << "</text>";
            out << "\n";
        }
        if (scale.clipped)
            out << "<text class=\"note\" x=\"" << bar_x << "\" y=\"" << canvas.top + area_height + 18 * u << "\">lowest: ≤ "
                << parts::decade(-heatmap.log_decades) << " × max</text>\n";
    }
    out << "<text x=\"" << bar_x << "\" y=\"" << canvas.top - 8 * u << "\">" << escape(heatmap.value_label) << "</text>\n"
        << "</svg>\n";
    return out.str();
}

}  // namespace tf::svg
