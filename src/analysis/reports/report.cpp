// Report assembly.
#include "analysis/reports/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/reports/html_page.h"
#include "analysis/reports/markdown_text.h"
#include "util/files.h"

namespace tf {

Report::Report(std::string directory) : directory_(std::move(directory)) { make_directories(directory_ + "/plots"); }

void Report::heading(int level, const std::string& text) {
    markdown_ += std::string(static_cast<std::size_t>(level), '#') + " " + text + "\n\n";
    const std::string tag = std::string("h").append(std::to_string(level));   // (not "h" + …: GCC 12's -Wrestrict misfires)
    html_ += "<" + tag + ">" + html::inline_markup(text) + "</" + tag + ">\n";
    if (title_.empty()) title_ = text;
}

void Report::paragraph(const std::string& text) {
    markdown_ += text + "\n\n";
    html_ += "<p>" + html::inline_markup(text) + "</p>\n";
}

void Report::box(const std::string& title, const std::vector<std::string>& items) {
    markdown_ += "> **" + title + "**\n>\n";
    for (const std::string& item : items) markdown_ += "> - " + item + "\n";
    markdown_ += "\n";
    html_ += "<aside class=\"findings\"><h2>" + html::inline_markup(title) + "</h2><ul>\n";
    for (const std::string& item : items) html_ += "<li>" + html::inline_markup(item) + "</li>\n";
    html_ += "</ul></aside>\n";
}

void Report::table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    const auto line = [](const std::vector<std::string>& cells) {
        std::string text = "|";
        for (const auto& cell : cells) text += " " + cell + " |";
        return text + "\n";
    };
    markdown_ += line(header);
    markdown_ += line(std::vector<std::string>(header.size(), "---"));
    for (const auto& row : rows) markdown_ += line(row);
    markdown_ += "\n";
    const auto html_row = [](const std::vector<std::string>& cells, const char* tag) {
        std::string text = "<tr>";
        for (const auto& cell : cells) text += std::string("<") + tag + ">" + html::inline_markup(cell) + "</" + tag + ">";
        return text + "</tr>\n";
    };
    html_ += "<table class=\"sortable\"><thead>" + html_row(header, "th") + "</thead><tbody>\n";
    for (const auto& row : rows) html_ += html_row(row, "td");
    html_ += "</tbody></table>\n";
}

void Report::add_plot(const std::string& name, const std::string& title, const std::string& svg) {
    write_file_atomic(directory_ + "/plots/" + name + ".svg", svg);
    markdown_ += "![" + markdown::literal(title) + "](plots/" + name + ".svg)\n\n(data: [plots/" + name + ".csv](plots/" + name + ".csv))\n\n";
    html_ += "<figure>" + svg + "<figcaption>" + html::escape(title) + " (data: <a href=\"plots/" + name + ".csv\">plots/" +
             name + ".csv</a>)</figcaption></figure>\n";
}

void Report::also_write_slides(const std::string& directory) {
    make_directories(directory);
    slides_directory_ = directory;
}

void Report::plot(const std::string& name, const svg::LinePlot& plot) {
    write_file_atomic(directory_ + "/plots/" + name + ".csv", to_csv(plot));
    add_plot(name, plot.title, svg::render(plot));
    if (!slides_directory_.empty()) write_file_atomic(slides_directory_ + "/" + name + ".svg", svg::render(plot, svg::slide()));
}

void Report::plot(const std::string& name, const svg::Heatmap& heatmap) {
    write_file_atomic(directory_ + "/plots/" + name + ".csv", to_csv(heatmap));
    add_plot(name, heatmap.title, svg::render(heatmap));
    if (!slides_directory_.empty()) write_file_atomic(slides_directory_ + "/" + name + ".svg", svg::render(heatmap, svg::slide()));
}

void Report::viewer(const std::vector<ViewerExample>& examples) {
    markdown_ += "(report.html has these maps in an interactive viewer.)\n\n";
    html_ += attention_viewer_html(examples);
}

std::string Report::write() const {
    const std::string path = directory_ + "/report.md";
    write_file_atomic(path, markdown_);
    write_file_atomic(directory_ + "/report.html", html::page(title_, html_));
    return path;
}

namespace {
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}
std::string csv_number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}
}  // namespace

std::string to_csv(const svg::LinePlot& plot) {
    const bool bands = std::any_of(plot.series.begin(), plot.series.end(), [](const svg::Series& s) { return !s.low.empty(); });
    std::string text = "series," + csv_field(plot.x_label) + "," + csv_field(plot.y_label) + (bands ? ",low,high" : "") + "\n";
    // ",low,high" at point i, a field left empty where the series has no band there.
    const auto band_fields = [](const svg::Series& series, std::size_t i) {
        std::string fields;
        for (const auto* end : {&series.low, &series.high}) fields.append(",").append(i < end->size() ? csv_number((*end)[i]) : "");
        return fields;
    };
    for (const auto& series : plot.series)
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i)
            text += csv_field(series.name) + "," + csv_number(series.x[i]) + "," + csv_number(series.y[i]) +
                    (bands ? band_fields(series, i) : std::string()) + "\n";
    return text;
}

std::string to_csv(const svg::Heatmap& heatmap) {
    std::string text = "row,column," + csv_field(heatmap.value_label.empty() ? "value" : heatmap.value_label) + "\n";
    for (std::size_t r = 0; r < heatmap.values.size(); ++r)
        for (std::size_t c = 0; c < heatmap.values[r].size(); ++c)
            text += std::to_string(r) + "," + std::to_string(c) + "," + csv_number(heatmap.values[r][c]) + "\n";
    return text;
}

std::string format_number(double value, int significant) {
    if (std::isnan(value)) return "–";
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", significant, value);
    return text;
}

double mean_of(const std::vector<double>& values) {
    double total = 0;
    for (double v : values) total += v;
    return values.empty() ? NAN : total / static_cast<double>(values.size());
}

double std_of(const std::vector<double>& values) {
    if (values.size() < 2) return 0;
    const double mean = mean_of(values);
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

std::string format_count(double value) {
    if (std::isnan(value)) return "–";
    const std::string digits = std::to_string(static_cast<long long>(std::llround(std::abs(value))));
    std::string grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
        grouped += digits[i];
    }
    return (value <= -0.5 ? "-" : "") + grouped;
}

std::string format_mean_std(const std::vector<double>& values, int significant) {
    if (values.size() < 2) return format_number(values.empty() ? NAN : values[0], significant);
    const double mean = mean_of(values), spread = std_of(values);
    if (spread <= 1e-9 * std::abs(mean)) return format_number(mean, significant);
    return format_number(mean, significant) + " ± " + format_number(spread, 2);
}

}  // namespace tf
