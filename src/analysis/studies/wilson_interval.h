// A 95 % interval for a share measured on n trials — here the test accuracy at one target position,
// where n is the number of test tokens at that position — so a plot can show which points rest on few.
#pragma once

namespace tf {

struct ShareInterval {
    double low, high;
};

// The Wilson score interval (Wilson 1927) for a share p̂ = k / n, z = 1.96 for 95 %:
//     centre = (p̂ + z²/2n) / (1 + z²/n),   half-width = z / (1 + z²/n) · √( p̂(1 − p̂)/n + z²/4n² ).
// Unlike p̂ ± z√(p̂(1 − p̂)/n) it stays inside [0, 1] and is not empty at p̂ = 0 or 1.
// n = 0 gives [0, 1]: no trials say nothing.
ShareInterval wilson_interval(double share, double trials, double z = 1.959963984540054);

}  // namespace tf
