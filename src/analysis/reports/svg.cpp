// What both kinds of plot share: the canvases, ticks and escaping (svg_parts.cpp: header and axes).
#include "analysis/reports/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tf::svg {

Canvas slide() {
    Canvas canvas;
    canvas.width = 1280, canvas.height = 720;
    canvas.left = 170, canvas.right = 360, canvas.top = 100, canvas.bottom = 110;
    canvas.font = 24, canvas.title_font = 32, canvas.small_font = 22;
    canvas.line_width = 4;
    return canvas;
}

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

}  // namespace tf::svg
