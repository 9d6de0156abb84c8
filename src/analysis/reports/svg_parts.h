// Pieces the line plot and the heatmap (svg_line_plot.cpp, svg_heatmap.cpp) share: number
// formatting, the document header with its title, the axis labels and the data-to-pixel scale.
#pragma once
#include <string>

#include "analysis/reports/svg.h"

namespace tf::svg::parts {

// A colour-blind-friendly categorical palette (Okabe–Ito, then two greys).
inline const char* const kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                       "#56B4E9", "#F0E442", "#000000", "#999999", "#666666"};

std::string number(double value);   // 4 significant digits
// "1e-8" for 10^-8, "1" for 10^0: a decade's tick label.
std::string decade(int exponent);
// The <svg> element's opening, a white background and the centred title.
std::string header(const std::string& title, const Canvas& canvas);
std::string axis_labels(const std::string& x_label, const std::string& y_label, const Canvas& canvas);

// Maps data coordinates into the plot area: low ↦ pixel_low, high ↦ pixel_high.
struct Scale {
    double low, high, pixel_low, pixel_high;
    double operator()(double value) const {
        const double span = high - low;
        return pixel_low + (span == 0 ? 0.5 : (value - low) / span) * (pixel_high - pixel_low);
    }
};

}  // namespace tf::svg::parts
