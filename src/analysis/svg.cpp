// Line plots and heatmaps as SVG text: a fixed canvas, a plot area with margins for the title,
// tick labels, axis labels and the legend / colour bar.
#include "analysis/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

namespace tf::svg {

namespace {

constexpr double kWidth = 720, kHeight = 440;
constexpr double kLeft = 80, kRight = 190, kTop = 50, kBottom = 60;  // margins around the plot area
// A colour-blind-friendly categorical palette (Okabe–Ito, then two greys).
const char* const kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                "#56B4E9", "#F0E442", "#000000", "#999999", "#666666"};

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

std::string header(const std::string& title) {
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << kWidth / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">" << escape(title) << "</text>\n";
    return out.str();
}

std::string axis_labels(const std::string& x_label, const std::string& y_label) {
    std::ostringstream out;
    const double plot_middle_x = kLeft + (kWidth - kLeft - kRight) / 2;
    const double plot_middle_y = kTop + (kHeight - kTop - kBottom) / 2;
    out << "<text x=\"" << plot_middle_x << "\" y=\"" << kHeight - 15 << "\" text-anchor=\"middle\">" << escape(x_label)
        << "</text>\n"
        << "<text x=\"18\" y=\"" << plot_middle_y << "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " << plot_middle_y
        << ")\">" << escape(y_label) << "</text>\n";
    return out.str();
}

// Maps data coordinates into the plot area.
struct Scale {
    double low, high, pixel_low, pixel_high;
    double operator()(double value) const {
        const double span = high - low;
        return pixel_low + (span == 0 ? 0.5 : (value - low) / span) * (pixel_high - pixel_low);
    }
};

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

// A heatmap's cells, drawn in cell units (column c, row r is the square [c, c+1] × [r, r+1]) as
// one path per colour step, each run of same-coloured cells in a row one rectangle of it. One
// element per cell made a 40 × 40 attention map 140 KB, too much for a page with 24 of them; this
// is a tenth of that. Hovering a cell shows its colour step's range of values (the page's viewer
// and plots/<name>.csv give each cell's number); a non-finite value is white.
std::string heatmap_cells(const std::vector<std::vector<double>>& values, double low, double high, double cell_width,
                          double cell_height) {
    const auto step_of = [&](double v) {
        if (!std::isfinite(v)) return -1;
        if (high <= low) return kColourSteps / 2;
        return std::clamp(static_cast<int>((v - low) / (high - low) * kColourSteps), 0, kColourSteps - 1);
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
    out << "<g transform=\"translate(" << kLeft << " " << kTop << ") scale(" << number(cell_width) << " "
        << number(cell_height) << ")\" shape-rendering=\"crispEdges\">\n";
    for (const auto& [step, path] : path_of_step) {
        const double from = low + (high - low) * step / kColourSteps, to = low + (high - low) * (step + 1) / kColourSteps;
        const std::string range = step < 0 ? "not a number" : high <= low ? number(low) : number(from) + " to " + number(to);
        out << "<path class=\"cells\" fill=\"" << (step < 0 ? std::string("#ffffff") : colour_at((step + 0.5) / kColourSteps))
            << "\" d=\"" << path << "\"><title>" << range << "</title></path>\n";
    }
    out << "</g>\n";
    return out.str();
}

}  // namespace

std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::vector<double> nice_ticks(double low, double high, int count) {
    if (!std::isfinite(low) || !std::isfinite(high)) return {};
    if (high <= low) return {low};
    const double raw_step = (high - low) / std::max(1, count);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw_step)));
    double multiple = 10;
    for (double candidate : {1.0, 2.0, 5.0})
        if (candidate * magnitude >= raw_step) {
            multiple = candidate;
            break;
        }
    // tick k is k·multiple·magnitude; for magnitude < 1 divide by 1/magnitude instead, which is exact
    // for round numbers (6 / 10 is 0.6, while 6 · 0.1 is 0.6000000000000001).
    const double inverse = magnitude < 1 ? std::round(1 / magnitude) : 0;
    const auto tick_at = [&](double k) { return inverse ? k * multiple / inverse : k * multiple * magnitude; };
    const double step = multiple * magnitude;
    std::vector<double> ticks;
    for (double k = std::ceil(low / step - 1e-9); tick_at(k) <= high + step * 1e-9; ++k) ticks.push_back(tick_at(k) + 0.0);
    return ticks;
}

std::string render(const LinePlot& plot) {
    const auto transform_y = [&](double y) { return plot.log_y ? std::log10(y) : y; };
    double x_low = std::numeric_limits<double>::infinity(), x_high = -x_low, y_low = x_low, y_high = -x_low;
    for (const Series& series : plot.series)
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
            if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i]) || (plot.log_y && series.y[i] <= 0)) continue;
            x_low = std::min(x_low, series.x[i]), x_high = std::max(x_high, series.x[i]);
            y_low = std::min(y_low, transform_y(series.y[i])), y_high = std::max(y_high, transform_y(series.y[i]));
        }
    if (!std::isfinite(x_low)) x_low = 0, x_high = 1, y_low = 0, y_high = 1;
    if (y_high == y_low) y_low -= 0.5, y_high += 0.5;
    if (x_high == x_low) x_low -= 0.5, x_high += 0.5;
    const Scale sx{x_low, x_high, kLeft, kWidth - kRight}, sy{y_low, y_high, kHeight - kBottom, kTop};

    std::ostringstream out;
    out << header(plot.title);
    out << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kWidth - kLeft - kRight << "\" height=\""
        << kHeight - kTop - kBottom << "\" fill=\"none\" stroke=\"#333\"/>\n";
    for (double tick : nice_ticks(x_low, x_high))
        out << "<line class=\"tick\" x1=\"" << sx(tick) << "\" y1=\"" << kHeight - kBottom << "\" x2=\"" << sx(tick)
            << "\" y2=\"" << kHeight - kBottom + 5 << "\" stroke=\"#333\"/><text x=\"" << sx(tick) << "\" y=\""
            << kHeight - kBottom + 18 << "\" text-anchor=\"middle\">" << number(tick) << "</text>\n";
    for (double tick : nice_ticks(y_low, y_high))
        out << "<line class=\"tick\" x1=\"" << kLeft - 5 << "\" y1=\"" << sy(tick) << "\" x2=\"" << kWidth - kRight
            << "\" y2=\"" << sy(tick) << "\" stroke=\"#ddd\"/><text x=\"" << kLeft - 8 << "\" y=\"" << sy(tick) + 4
            << "\" text-anchor=\"end\">" << (plot.log_y ? number(std::pow(10.0, tick)) : number(tick)) << "</text>\n";
    out << axis_labels(plot.x_label, plot.y_label);
    for (std::size_t s = 0; s < plot.series.size(); ++s) {
        const Series& series = plot.series[s];
        const char* colour = kPalette[s % std::size(kPalette)];
        out << "<polyline class=\"series\" data-name=\"" << escape(series.name) << "\" fill=\"none\" stroke=\"" << colour
            << "\" stroke-width=\"2\" points=\"";
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
            if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i]) || (plot.log_y && series.y[i] <= 0)) continue;
            out << number(sx(series.x[i])) << "," << number(sy(transform_y(series.y[i]))) << " ";
        }
        out << "\"/>\n";
        // Each point again as a clear dot whose tooltip reads its values (hover in a browser).
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
            if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i]) || (plot.log_y && series.y[i] <= 0)) continue;
            out << "<circle class=\"point\" cx=\"" << number(sx(series.x[i])) << "\" cy=\"" << number(sy(transform_y(series.y[i])))
                << "\" r=\"4\" fill=\"" << colour << "\" fill-opacity=\"0\"><title>" << escape(series.name) << ": "
                << escape(plot.x_label) << " " << number(series.x[i]) << ", " << escape(plot.y_label) << " "
                << number(series.y[i]) << "</title></circle>\n";
        }
        const double legend_y = kTop + 10 + 20 * static_cast<double>(s);
        out << "<line x1=\"" << kWidth - kRight + 15 << "\" y1=\"" << legend_y << "\" x2=\"" << kWidth - kRight + 40
            << "\" y2=\"" << legend_y << "\" stroke=\"" << colour << "\" stroke-width=\"3\"/><text class=\"legend\" x=\""
            << kWidth - kRight + 46 << "\" y=\"" << legend_y + 4 << "\">" << escape(series.name) << "</text>\n";
    }
    out << "</svg>\n";
    return out.str();
}

std::string render(const Heatmap& heatmap) {
    const std::size_t rows = heatmap.values.size();
    const std::size_t columns = rows ? heatmap.values[0].size() : 0;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const auto& row : heatmap.values)
        for (double v : row)
            if (std::isfinite(v)) low = std::min(low, v), high = std::max(high, v);
    if (!std::isfinite(low)) low = 0, high = 1;
    const double area_width = kWidth - kLeft - kRight, area_height = kHeight - kTop - kBottom;
    const double cell_width = columns ? area_width / static_cast<double>(columns) : 0;
    const double cell_height = rows ? area_height / static_cast<double>(rows) : 0;
    // Tick labels on at most ~12 rows/columns so they stay readable.
    const std::size_t column_every = std::max<std::size_t>(1, columns / 12), row_every = std::max<std::size_t>(1, rows / 12);

    std::ostringstream out;
    out << header(heatmap.title);
    out << heatmap_cells(heatmap.values, low, high, cell_width, cell_height);
    for (std::size_t c = 0; c < columns; c += column_every)
        out << "<text x=\"" << number(kLeft + cell_width * (c + 0.5)) << "\" y=\"" << kHeight - kBottom + 16
            << "\" text-anchor=\"middle\" font-size=\"10\">"
            << escape(c < heatmap.column_names.size() ? heatmap.column_names[c] : std::to_string(c)) << "</text>\n";
    for (std::size_t r = 0; r < rows; r += row_every)
        out << "<text x=\"" << kLeft - 6 << "\" y=\"" << number(kTop + cell_height * (r + 0.5) + 4)
            << "\" text-anchor=\"end\" font-size=\"10\">"
            << escape(r < heatmap.row_names.size() ? heatmap.row_names[r] : std::to_string(r)) << "</text>\n";
    out << axis_labels(heatmap.x_label, heatmap.y_label);
    // The colour bar: 20 steps from low (bottom) to high (top), with its value label.
    const double bar_x = kWidth - kRight + 30;
    for (int i = 0; i < 20; ++i)
        out << "<rect x=\"" << bar_x << "\" y=\"" << number(kTop + area_height * (19 - i) / 20.0) << "\" width=\"20\" height=\""
            << number(area_height / 20.0 + 0.3) << "\" fill=\"" << colour_at((i + 0.5) / 20.0) << "\"/>\n";
    out << "<text x=\"" << bar_x + 26 << "\" y=\"" << kTop + 10 << "\">" << number(high) << "</text>\n"
        << "<text x=\"" << bar_x + 26 << "\" y=\"" << kTop + area_height << "\">" << number(low) << "</text>\n"
        << "<text x=\"" << bar_x << "\" y=\"" << kTop - 8 << "\">" << escape(heatmap.value_label) << "</text>\n"
        << "</svg>\n";
    return out.str();
}

}  // namespace tf::svg
