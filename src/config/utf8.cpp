// UTF-8 validation by the table of well-formed byte sequences (Unicode 15, table 3-7).
#include "config/utf8.h"

namespace tf::config {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        // Sequence length, and the allowed range of the second byte (it excludes overlong forms,
        // surrogates D800–DFFF and code points above 10FFFF); later bytes are 80–BF.
        std::size_t length = 1;
        unsigned char low = 0x80, high = 0xBF;
        if (lead < 0x80) length = 1;
        else if (lead >= 0xC2 && lead <= 0xDF) length = 2;
        else if (lead == 0xE0) length = 3, low = 0xA0;
        else if (lead >= 0xE1 && lead <= 0xEC) length = 3;
        else if (lead == 0xED) length = 3, high = 0x9F;
        else if (lead >= 0xEE && lead <= 0xEF) length = 3;
        else if (lead == 0xF0) length = 4, low = 0x90;
        else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
        else if (lead == 0xF4) length = 4, high = 0x8F;
        else return i;
        for (std::size_t k = 1; k < length; ++k) {
            if (i + k >= text.size()) return i;
            const auto next = static_cast<unsigned char>(text[i + k]);
            const unsigned char min = k == 1 ? low : 0x80, max = k == 1 ? high : 0xBF;
            if (next < min || next > max) return i;
        }
        i += length;
    }
    return std::nullopt;
}

}  // namespace tf::config
