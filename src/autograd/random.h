// A small, explicit, seeded random number generator (xoshiro256**). Every random tensor,
// dropout mask and data shuffle takes one by reference, so a run is reproducible from its seed
// and its state can be saved in a checkpoint and restored bit for bit.
#pragma once
#include <array>
#include <cstdint>

namespace tf {

class Rng {
public:
    explicit Rng(uint64_t seed = 0) { reseed(seed); }
    void reseed(uint64_t seed);

    uint64_t next_u64();
    double uniform();                                  // in [0, 1)
    double uniform(double low, double high);           // in [low, high)
    double normal(double mean = 0.0, double std = 1.0);
    int64_t below(int64_t n);                          // integer in [0, n)

    using State = std::array<uint64_t, 4>;
    State state() const { return state_; }
    void set_state(const State& state) { state_ = state; }

private:
    State state_{};
};

}  // namespace tf
