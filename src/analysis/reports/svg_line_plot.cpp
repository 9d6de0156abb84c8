// A line plot as SVG: the frame and ticks, then each series' band, line, hover points, markers and
// legend entry; on a clipped log axis, the points below its floor drawn at the floor as ▼.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "analysis/reports/svg.h"
#include "analysis/reports/svg_parts.h"

namespace tf::svg {

using parts::number;

namespace {

bool has_band(const Series& series) { return !series.low.empty() && !series.high.empty(); }

int finite_points(const Series& series) {
    int count = 0;
    for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i)
        count += std::isfinite(series.x[i]) && std::isfinite(series.y[i]);
    return count;
}

bool draws_markers(const Series& series) {
    return series.markers == Markers::on || (series.markers == Markers::automatic && finite_points(series) <= kFewPoints);
}

// A downward triangle centred on (x, y): the marker of a value below a log axis's floor.
std::string floor_marker(double x, double y, double r) {
    // (append, not "M" + …: GCC 12's -Wrestrict misfires on that)
    return std::string("M").append(number(x - r)).append(" ").append(number(y - r)).append("h").append(number(2 * r))
        .append("l").append(number(-r)).append(" ").append(number(2 * r)).append("z");
}

}  // namespace

std::string render(const LinePlot& plot, const Canvas& c) {
    const double u = c.unit();
    // y as the axis measures it: log10(y) on a log axis, where y ≤ 0 has no place (NaN).
    const auto axis_y = [&](double y) { return !plot.log_y ? y : y > 0 ? std::log10(y) : NAN; };
    double x_low = std::numeric_limits<double>::infinity(), x_high = -x_low, y_low = x_low, y_high = -x_low;
    for (const Series& series : plot.series)
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
            if (!std::isfinite(series.x[i]) || !std::isfinite(axis_y(series.y[i]))) continue;
            x_low = std::min(x_low, series.x[i]), x_high = std::max(x_high, series.x[i]);
            for (const auto* ys : {&series.y, &series.low, &series.high})
                if (i < ys->size() && std::isfinite(axis_y((*ys)[i])))
                    y_low = std::min(y_low, axis_y((*ys)[i])), y_high = std::max(y_high, axis_y((*ys)[i]));
        }
    if (!std::isfinite(x_low)) x_low = 0, x_high = 1, y_low = 0, y_high = 1;
    const bool clipped = plot.log_y && plot.log_decades > 0;
    if (clipped) y_low = std::max(y_low, y_high - plot.log_decades);
    if (y_high == y_low) y_low -= 0.5, y_high += 0.5;
    if (x_high == x_low) x_low -= 0.5, x_high += 0.5;
    // A finite value under a clipped axis's floor (0 too) sits on the floor; otherwise NaN is skipped.
    const auto below_floor = [&](double y) { return clipped && std::isfinite(y) && !(axis_y(y) >= y_low); };
    const auto drawn_y = [&](double y) { return below_floor(y) ? y_low : axis_y(y); };
    const parts::Scale sx{x_low, x_high, c.left, c.width - c.right}, sy{y_low, y_high, c.height - c.bottom, c.top};
    const auto drawn = [&](const Series& series, std::size_t i) {
        return i < series.y.size() && std::isfinite(series.x[i]) && std::isfinite(drawn_y(series.y[i]));
    };

    std::ostringstream out;
    out << parts::header(plot.title, c);
    out << "<rect x=\"" << c.left << "\" y=\"" << c.top << "\" width=\"" << c.width - c.left - c.right << "\" height=\""
        << c.height - c.top - c.bottom << "\" fill=\"none\" stroke=\"#333\"/>\n";
    for (double tick : nice_ticks(x_low, x_high))
        out << "<line class=\"tick\" x1=\"" << sx(tick) << "\" y1=\"" << c.height - c.bottom << "\" x2=\"" << sx(tick)
            << "\" y2=\"" << c.height - c.bottom + 5 * u << "\" stroke=\"#333\"/><text x=\"" << sx(tick) << "\" y=\""
            << c.height - c.bottom + 18 * u << "\" text-anchor=\"middle\">" << number(tick) << "</text>\n";
    for (double tick : nice_ticks(y_low, y_high))
        out << "<line class=\"tick\" x1=\"" << c.left - 5 * u << "\" y1=\"" << sy(tick) << "\" x2=\"" << c.width - c.right
            << "\" y2=\"" << sy(tick) << "\" stroke=\"#ddd\"/><text x=\"" << c.left - 8 * u << "\" y=\"" << sy(tick) + 4 * u
            << "\" text-anchor=\"end\">" << (plot.log_y ? number(std::pow(10.0, tick)) : number(tick)) << "</text>\n";
    out << parts::axis_labels(plot.x_label, plot.y_label, c);
    // Bands first, so every line is drawn over them: high from left to right, then low back.
    for (std::size_t s = 0; s < plot.series.size(); ++s) {
        const Series& series = plot.series[s];
        if (!has_band(series)) continue;
        std::string upper, lower;
        for (std::size_t i = 0; i < std::min({series.x.size(), series.low.size(), series.high.size()}); ++i) {
            const double low = drawn_y(series.low[i]), high = drawn_y(series.high[i]);
            if (!std::isfinite(series.x[i]) || !std::isfinite(low) || !std::isfinite(high)) continue;
            upper += number(sx(series.x[i])) + "," + number(sy(high)) + " ";
            lower = number(sx(series.x[i])) + "," + number(sy(low)) + " " + lower;
        }
        out << "<polygon class=\"band\" data-name=\"" << escape(series.name) << "\" fill=\""
            << parts::kPalette[s % std::size(parts::kPalette)] << "\" fill-opacity=\"0.2\" stroke=\"none\" points=\"" << upper
            << lower << "\"/>\n";
    }
    const std::string dashes = "stroke-dasharray=\"" + number(3 * c.line_width) + " " + number(2 * c.line_width) + "\" ";
    bool any_below_floor = false;
    for (std::size_t s = 0; s < plot.series.size(); ++s) {
        const Series& series = plot.series[s];
        const char* colour = parts::kPalette[s % std::size(parts::kPalette)];
        out << "<polyline class=\"series\" data-name=\"" << escape(series.name) << "\" fill=\"none\" stroke=\"" << colour
            << "\" stroke-width=\"" << c.line_width << "\" " << (series.dashed ? dashes : "") << "points=\"";
        for (std::size_t i = 0; i < series.x.size(); ++i)
            if (drawn(series, i)) out << number(sx(series.x[i])) << "," << number(sy(drawn_y(series.y[i]))) << " ";
        out << "\"/>\n";
        // Each point again as a clear dot whose tooltip reads its values (hover in a browser); as a
        // visible marker when the series has few points; as ▼ when it lies below the axis's floor.
        const bool markers = draws_markers(series);
        for (std::size_t i = 0; i < series.x.size(); ++i) {
            if (!drawn(series, i)) continue;
            const double x = sx(series.x[i]), y = sy(drawn_y(series.y[i]));
            out << "<circle class=\"point\" cx=\"" << number(x) << "\" cy=\"" << number(y) << "\" r=\"" << 4 * u << "\" fill=\""
                << colour << "\" fill-opacity=\"0\"><title>" << escape(series.name) << ": " << escape(plot.x_label) << " "
                << number(series.x[i]) << ", " << escape(plot.y_label) << " " << number(series.y[i]) << "</title></circle>\n";
            if (below_floor(series.y[i])) {
                any_below_floor = true;
                out << "<path class=\"below-floor\" d=\"" << floor_marker(x, y, 2 * c.line_width) << "\" fill=\"" << colour << "\"/>\n";
            } else if (markers) {
                out << "<circle class=\"marker\" cx=\"" << number(x) << "\" cy=\"" << number(y) << "\" r=\""
                    << 1.75 * c.line_width << "\" fill=\"" << colour << "\"/>\n";
            }
        }
        const double legend_y = c.top + 10 * u + 20 * u * static_cast<double>(s), legend_x = c.width - c.right + 15 * u;
        if (has_band(series))
            out << "<rect x=\"" << legend_x << "\" y=\"" << legend_y - 6 * u << "\" width=\"" << 25 * u << "\" height=\"" << 12 * u
                << "\" fill=\"" << colour << "\" fill-opacity=\"0.2\"/>";
        out << "<line x1=\"" << legend_x << "\" y1=\"" << legend_y << "\" x2=\"" << legend_x + 25 * u << "\" y2=\"" << legend_y
            << "\" stroke=\"" << colour << "\" stroke-width=\"" << 1.5 * c.line_width << "\"" << (series.dashed ? " " + dashes : "") << "/>";
        if (markers)
            out << "<circle cx=\"" << legend_x + 12.5 * u << "\" cy=\"" << legend_y << "\" r=\"" << 1.75 * c.line_width
                << "\" fill=\"" << colour << "\"/>";
        out << "<text class=\"legend\" x=\"" << legend_x + 31 * u << "\" y=\"" << legend_y + 4 * u << "\">" << escape(series.name)
            << "</text>\n";
    }
    if (any_below_floor) {   // the legend says what ▼ means, on three rows under the series
        const double note_y = c.top + 10 * u + 20 * u * static_cast<double>(plot.series.size()), note_x = c.width - c.right + 15 * u;
        const std::string rows[] = {"values below", parts::decade(-plot.log_decades) + " × max are", "drawn at the floor"};
        out << "<path d=\"" << floor_marker(note_x + 12.5 * u, note_y, 2 * c.line_width) << "\" fill=\"#666\"/>";
        for (int row = 0; row < 3; ++row)
            out << "<text class=\"note\" x=\"" << note_x + 31 * u << "\" y=\"" << note_y + 4 * u + 20 * u * row << "\">" << rows[row]
                << "</text>";
        out << "\n";
    }
    out << "</svg>\n";
    return out.str();
}

}  // namespace tf::svg
