// xoshiro256** (Blackman & Vigna): 256 bits of state, fast, and well-distributed.
#include "autograd/random.h"

#include <cmath>
#include <numbers>

namespace tf {

namespace {
uint64_t rotate_left(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// splitmix64 spreads one seed over the four state words (all-zero state is forbidden).
uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
}  // namespace

void Rng::reseed(uint64_t seed) {
    for (uint64_t& word : state_) word = splitmix64(seed);
}

uint64_t Rng::next_u64() {
    const uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate_left(state_[3], 45);
    return result;
}

// The top 53 bits make a double in [0, 1) with every value equally likely.
double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::uniform(double low, double high) { return low + (high - low) * uniform(); }

// Box–Muller: z = sqrt(-2 ln u1) · cos(2π u2) is standard normal for independent uniform u1, u2.
double Rng::normal(double mean, double std) {
    const double u1 = 1.0 - uniform();  // in (0, 1], so the log is finite
    const double u2 = uniform();
    return mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

int64_t Rng::below(int64_t n) { return static_cast<int64_t>(uniform() * static_cast<double>(n)); }

}  // namespace tf
