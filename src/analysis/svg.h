// SVG plots written by our own code — line plots (several series, legend, linear or log y) and
// heatmaps (colour scale) — so every report opens in a browser with nothing else installed.
// Each plot's numbers are also written as CSV by the caller (see report.h).
#pragma once
#include <string>
#include <vector>

namespace tf::svg {

struct Series {
    std::string name;
    std::vector<double> x, y;  // equal lengths; non-finite points are skipped
};

struct LinePlot {
    std::string title, x_label, y_label;
    std::vector<Series> series;
    bool log_y = false;  // log10 axis (non-positive values are skipped)
};

struct Heatmap {
    std::string title, x_label, y_label, value_label;
    std::vector<std::vector<double>> values;  // values[row][column]; rows run top to bottom
    std::vector<std::string> column_names, row_names;  // optional tick labels (else indices)
};

std::string render(const LinePlot& plot);
std::string render(const Heatmap& heatmap);

// "Nice" axis ticks covering [low, high]: steps of 1, 2 or 5 × 10^k, about `count` of them.
std::vector<double> nice_ticks(double low, double high, int count = 5);
// Escapes &, <, >, " for text inside SVG/XML.
std::string escape(const std::string& text);

}  // namespace tf::svg
