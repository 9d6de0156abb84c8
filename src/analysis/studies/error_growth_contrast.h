// The sentence the length sweep's report says about two variants' error growth, from their
// intervals over seeds (analysis/studies/error_growth_seeds.h):
//   - τ's intervals do not overlap: which variant's error grows faster with length, and, τ being a
//     rate relative to the error already there, where each starts (e₀) when that differs ×2 or more;
//   - they overlap and e₀ differs by a factor ≥ 2: the errors grow at the same rate, as far as the
//     seeds tell, and what differs is the error at zero length e₀, with the factor;
//   - they overlap and e₀ is within a factor 2: the sweep does not tell them apart;
//   - fewer than two seeds with a fit in either: too few seeds to tell.
// Overlap is judged on the growth rates r = 1/τ with r ≤ 0 taken as 0 (τ = ∞ is no growth
// however negative the slope), which is overlap of the τ intervals.
#pragma once
#include <string>

#include "analysis/studies/error_growth_seeds.h"

namespace tf {

// Names are used as given (escape them for Markdown before).
std::string error_growth_contrast(const std::string& first_name, const ErrorGrowthOverSeeds& first,
                                  const std::string& second_name, const ErrorGrowthOverSeeds& second);

// "4.8 [3.9, 6.2]", "4.8 [3.9, ∞]", "∞ (no growth)", "4.8 (one seed: no interval)", "not measurable".
std::string tau_interval_text(const ErrorGrowthOverSeeds& growth);
// "0.032 [0.011, 0.093]", "0.032 (one seed: no interval)", "not measurable".
std::string error_at_zero_interval_text(const ErrorGrowthOverSeeds& growth);

}  // namespace tf
