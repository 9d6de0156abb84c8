// The Wilson score interval (analysis/studies/wilson_interval.h).
#include "analysis/studies/wilson_interval.h"

#include <algorithm>
#include <cmath>

namespace tf {

ShareInterval wilson_interval(double share, double trials, double z) {
    if (!(trials > 0)) return {0, 1};
    const double z2_n = z * z / trials;
    const double centre = (share + z2_n / 2) / (1 + z2_n);
    const double half_width = z / (1 + z2_n) * std::sqrt(share * (1 - share) / trials + z2_n / (4 * trials));
    return {std::max(0.0, centre - half_width), std::min(1.0, centre + half_width)};
}

}  // namespace tf
