// Dropout masks that do not depend on how a batch is cut up. Gradient accumulation runs a batch as
// k smaller ones and data parallelism spreads it over processes; for either to train exactly like
// the whole batch, example b of the batch must get the same mask wherever it is computed, and
// padding a row to a different width must not move its mask.
//
// So a mask element is a hash of where it is, not the next number of a stream:
//   keep (b, i₁, …, iₙ)  ⇔  u ≥ p,   u = hash(call key, first_row + b, i₁, …, iₙ) / 2⁶⁴ ∈ [0, 1)
// The call key is one draw of the model's dropout Rng per dropout call (the calls of a forward pass
// are the same whatever the batch), first_row is the global index of the batch's first example.
#pragma once
#include <cstdint>

namespace tf {

// The global index of the current batch's first example (0 unless a BatchRowsScope says otherwise).
int64_t batch_first_row();

// Declares, while alive, that the batch being run starts at example `first_row` of a larger one.
class BatchRowsScope {
public:
    explicit BatchRowsScope(int64_t first_row);
    ~BatchRowsScope();
    BatchRowsScope(const BatchRowsScope&) = delete;
    BatchRowsScope& operator=(const BatchRowsScope&) = delete;

private:
    int64_t previous_;
};

// splitmix64's finaliser (Steele, Lea & Flood 2014): every input bit moves about half the output bits.
inline uint64_t mix_bits(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// hash(h, c): one more coordinate into a running hash.
inline uint64_t hash_coordinate(uint64_t h, int64_t coordinate) {
    return mix_bits(h + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(coordinate) + 1));
}

}  // namespace tf
