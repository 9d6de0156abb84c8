// Reports with SVG plots, written twice from the same calls: report.md (plots linked) and
// report.html (plots inline, tables sortable; one file that opens offline in a browser,
// analysis/reports/html_page.h). Every plot is also written as plots/<name>.svg with its numbers beside it
// in plots/<name>.csv, so a reader can check any picture; and, when asked, again as <dir>/<name>.svg
// drawn for a slide (svg::slide()).
#pragma once
#include <string>
#include <vector>

#include "analysis/reports/attention_viewer.h"
#include "analysis/reports/svg.h"

namespace tf {

class Report {
public:
    // Creates `directory` and directory/plots.
    explicit Report(std::string directory);
    void heading(int level, const std::string& text);
    void paragraph(const std::string& text);
    // A box of findings under its own title: a quoted list in report.md, an <aside class="findings"> on the page.
    void box(const std::string& title, const std::vector<std::string>& items);
    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
    // From now on every plot is also written as directory/<name>.svg at slide size; creates directory.
    void also_write_slides(const std::string& directory);
    void plot(const std::string& name, const svg::LinePlot& plot);
    void plot(const std::string& name, const svg::Heatmap& heatmap);
    // The page's interactive viewer of these maps (report.md, which cannot hold one, names the page).
    void viewer(const std::vector<ViewerExample>& examples);
    // Writes directory/report.md and directory/report.html (atomically); returns report.md's path.
    std::string write() const;

private:
    void add_plot(const std::string& name, const std::string& title, const std::string& svg);
    std::string directory_;
    std::string slides_directory_;   // "": no slide versions
    std::string markdown_, html_;
    std::string title_;   // the first heading's text: the page's title
};

std::string to_csv(const svg::LinePlot& plot);     // series,x,y rows (and low,high when a series has a band)
std::string to_csv(const svg::Heatmap& heatmap);   // row,column,value rows
// A number for a table: 4 significant digits, "–" for NaN.
std::string format_number(double value, int significant = 4);
// A count for a table: rounded to a whole number, digits grouped by thousands ("101,504"); "–" for NaN.
std::string format_count(double value);
// "mean ± std" of the values; just the mean when there is one value, or when the spread is float
// noise (std ≤ 10⁻⁹·|mean|: every seed gave the same number).
std::string format_mean_std(const std::vector<double>& values, int significant = 4);
double mean_of(const std::vector<double>& values);
double std_of(const std::vector<double>& values);  // sample standard deviation (n − 1); 0 for one value

}  // namespace tf
