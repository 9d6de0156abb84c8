// SVG plots written by our own code — line plots (several series, legend, linear or log y, bands,
// markers, dashes) and heatmaps (linear or log colour scale) — so every report opens in a browser
// with nothing else installed. Each plot's numbers are also written as CSV by the caller (see report.h).
#pragma once
#include <string>
#include <vector>

namespace tf::svg {

// Whether a series draws a marker at each point: automatically when it has at most
// kFewPoints finite points (a curve through three points should show they are three).
enum class Markers { automatic, on, off };
inline constexpr int kFewPoints = 12;

struct Series {
    std::string name;
    std::vector<double> x, y;  // equal lengths; non-finite points are skipped
    // Optional band around the curve (a spread over seeds, an interval): low[i] ≤ high[i] at x[i],
    // drawn as a translucent polygon behind the lines. Empty: no band.
    std::vector<double> low = {}, high = {};
    Markers markers = Markers::automatic;
    bool dashed = false;  // a dashed line (a fit, a reference level), in the legend too
};

struct LinePlot {
    std::string title, x_label, y_label;
    std::vector<Series> series;
    bool log_y = false;  // log10 axis (non-positive values are skipped)
    // Log axis only: > 0 clips the axis to this many decades below the largest value. Values under
    // that floor (0 too) are drawn at the floor with a ▼ marker, and the legend says so.
    int log_decades = 0;
};

struct Heatmap {
    std::string title, x_label, y_label, value_label;
    std::vector<std::vector<double>> values;  // values[row][column]; rows run top to bottom
    std::vector<std::string> column_names, row_names;  // optional tick labels (else indices)
    // > 0: colour by log10(value) over this many decades below the largest value, the colour bar
    // marked at each decade; values under that floor (0 too) take the lowest colour.
    int log_decades = 0;
};

// What a plot is drawn on: its size, margins, fonts and line width.
struct Canvas {
    double width = 720, height = 440;
    double left = 80, right = 190, top = 50, bottom = 60;  // margins around the plot area
    double font = 12, title_font = 16, small_font = 10;    // small: a heatmap's tick labels
    double line_width = 2;
    // Offsets and gaps (tick lengths, legend rows) are in units of font / 12 px.
    double unit() const { return font / 12; }
};
// The report's canvas is Canvas{}; slide() is one for a projector: 1280 × 720, fonts ≥ 22 px,
// lines twice as thick.
Canvas slide();

std::string render(const LinePlot& plot, const Canvas& canvas = {});
std::string render(const Heatmap& heatmap, const Canvas& canvas = {});

// "Nice" axis ticks covering [low, high]: steps of 1, 2 or 5 × 10^k, about `count` of them.
std::vector<double> nice_ticks(double low, double high, int count = 5);
// Escapes &, <, >, " for text inside SVG/XML.
std::string escape(const std::string& text);

}  // namespace tf::svg
