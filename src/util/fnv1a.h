// FNV-1a, 64 bits (Fowler, Noll and Vo): a short, fast hash that gives the same number for the same
// bytes on any machine — to tell two configs or two datasets apart, not to resist someone forging one.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tf {

class Fnv1a64 {
public:
    // h ← (h ⊕ b) · 1099511628211  mod 2⁶⁴, for each byte b, from h₀ = 14695981039346656037.
    void add_byte(uint8_t byte) {
        hash_ ^= byte;
        hash_ *= 1099511628211ull;
    }
    void add_bytes(std::string_view bytes) {
        for (const char byte : bytes) add_byte(static_cast<uint8_t>(byte));
    }
    // A number as its 8 bytes, least significant first: the same on every machine.
    void add_u64(uint64_t value) {
        for (int byte = 0; byte < 8; ++byte) add_byte(static_cast<uint8_t>(value >> (8 * byte)));
    }
    uint64_t value() const { return hash_; }
    // The hash as 16 lower-case hex digits.
    std::string hex() const {
        char text[17];
        std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_));
        return text;
    }

private:
    uint64_t hash_ = 14695981039346656037ull;
};

}  // namespace tf
