// Checking that a name is one plain path component.
#include "train/run_name.h"

#include <cstdio>
#include <utility>

#include "config/utf8.h"

namespace tf::train {

namespace {

// The code point of the (valid) UTF-8 sequence at name[at], and its length in bytes.
std::pair<char32_t, std::size_t> code_point_at(const std::string& name, std::size_t at) {
    const auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(name[at + k])); };
    const char32_t lead = byte(0);
    if (lead < 0x80) return {lead, 1};
    if (lead < 0xE0) return {(lead & 0x1F) << 6 | (byte(1) & 0x3F), 2};
    if (lead < 0xF0) return {(lead & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F), 3};
    return {(lead & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F), 4};
}

std::string code_point_name(char32_t c) {
    char text[16];
    std::snprintf(text, sizeof text, "U+%04X", static_cast<unsigned>(c));
    return text;
}

// Why the character c cannot be in a name, or "": a name is shown in terminals, logs and reports,
// where a control character acts (an escape sequence recolours a terminal), a bidirectional
// override shows the characters in another order than they are, and < > " read as markup.
std::string character_problem(char32_t c) {
    if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F)) return "the control character " + code_point_name(c);
    if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F)
        return "the bidirectional-text control " + code_point_name(c) + ", which shows text in another order than it is";
    if (c == '<' || c == '>' || c == '"') return std::string("'") + static_cast<char>(c) + "', which reads as markup in a report";
    return "";
}

}  // namespace

std::string run_name_problem(const std::string& name) {
    if (name.empty()) return "it is empty";
    if (name == "." || name == "..") return "\"" + name + "\" is not a directory of its own";
    if (name.find('/') != std::string::npos) return "it contains '/'";
    if (name.find('\0') != std::string::npos) return "it contains a NUL byte";
    if (const auto bad = config::first_invalid_utf8(name)) return "byte " + std::to_string(*bad) + " is not UTF-8";
    if (name.size() > kMaxRunNameBytes)
        return "it is " + std::to_string(name.size()) + " bytes, above the limit of " + std::to_string(kMaxRunNameBytes);
    for (std::size_t at = 0; at < name.size();) {
        const auto [c, length] = code_point_at(name, at);
        if (const std::string problem = character_problem(c); !problem.empty())
            return "it contains " + problem + " (byte " + std::to_string(at) + ")";
        at += length;
    }
    return "";
}

}  // namespace tf::train
