// The pieces both kinds of plot draw: numbers, decades, the header and the axis labels
// (analysis/reports/svg_parts.h).
#include "analysis/reports/svg_parts.h"

#include <cstdio>
#include <sstream>

namespace tf::svg {

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

}  // namespace tf::svg
