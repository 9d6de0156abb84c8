// Comparisons and number formatting shared by the theorem checks.
#include "analysis/theorems/measured.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/reports/report.h"
#include "autograd/error.h"

namespace tf {

double rounding_tolerance(const Tensor& x) { return x.dtype() == DType::f64 ? 1e-12 : 1e-5; }

double worse_of(double worst, double error) {
    if (std::isnan(error)) return std::numeric_limits<double>::infinity();
    return error > worst ? error : worst;
}

double max_relative_difference(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape())
        throw ShapeError("max_relative_difference: shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) + " differ");
    const std::vector<double> x = a.to_vector(), y = b.to_vector();
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;   // equal infinities too
        // NaN for a NaN or an infinity on one side (∞/∞), which worse_of counts as infinite
        worst = worse_of(worst, std::abs(x[i] - y[i]) / (1 + std::abs(y[i])));
    }
    return worst;
}

std::string short_number(double value, int significant) { return format_number(value, significant); }

std::string short_numbers(const std::vector<double>& values) {
    std::string text;
    for (const double value : values) text += (text.empty() ? "" : ", ") + short_number(value);
    return text;
}

}  // namespace tf
