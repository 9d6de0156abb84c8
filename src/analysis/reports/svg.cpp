// What both kinds of plot share: the canvases, the header, axis labels, ticks and escaping.
#include "analysis/reports/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/reports/svg_parts.h"

namespace tf::svg {

Canvas slide() {
    Canvas canvas;
    canvas.width = 1280, canvas.height = 720;
    canvas.left = 170, canvas.right = 360, canvas.top = 100, canvas.bottom = 110;
    canvas.font = 24, canvas.title_font = 32, canvas.small_font = 22;
    canvas.line_width = 4;
    return canvas;
}

namespace parts {

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

// (append, not "1e" + …: GCC 12's -Wrestrict misfires on that)
std::string decade(int exponent) { return exponent == 0 ? "1" : std::string("1e").append(std::to_string(exponent)); }

std::string header(const std::string& title, const Canvas& canvas) {
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << canvas.width << "\" height=\"" << canvas.height
        << "\" viewBox=\"0 0 " << canvas.width << " " << canvas.height << "\" font-family=\"sans-serif\" font-size=\""
        << canvas.font << "\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << canvas.width / 2 << "\" y=\"" << canvas.title_font + 12 * canvas.unit()
        << "\" text-anchor=\"middle\" font-size=\"" << canvas.title_font << "\">" << escape(title) << "</text>\n";
    return out.str();
}

std::string axis_labels(const std::string& x_label, const std::string& y_label, const Canvas& canvas) {
    std::ostringstream out;
    const double u = canvas.unit();
    const double plot_middle_x = canvas.left + (canvas.width - canvas.left - canvas.right) / 2;
    const double plot_middle_y = canvas.top + (canvas.height - canvas.top - canvas.bottom) / 2;
    out << "<text x=\"" << plot_middle_x << "\" y=\"" << canvas.height - 15 * u << "\" text-anchor=\"middle\">"
        << escape(x_label) << "</text>\n"
        << "<text x=\"" << 18 * u << "\" y=\"" << plot_middle_y << "\" text-anchor=\"middle\" transform=\"rotate(-90 "
        << 18 * u << " " << plot_middle_y << ")\">" << escape(y_label) << "</text>\n";
    return out.str();
}

}  // namespace parts

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
