// Strict JSON reading with paths in every error.
#include "config/json_reader.h"

#include <algorithm>
#include <cmath>

namespace tf::config {

JsonReader::JsonReader(const Json& object, std::string path, Json* resolved)
    : object_(object), path_(std::move(path)), resolved_(resolved) {
    if (resolved_ && !resolved_->is_object()) *resolved_ = Json::object();
    if (!object_.is_object())
        throw ConfigError((path_.empty() ? std::string("config") : path_) + ": expected an object, got " + describe(object_));
}

bool JsonReader::has(const std::string& key) const { return object_.contains(key); }

std::string JsonReader::path_of(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonReader::mark_read(const std::string& key) { read_.insert(key); }

void JsonReader::use_default(const std::string& key, const Json& fallback) {
    mark_read(key);
    if (resolved_) (*resolved_)[key] = fallback;
}

const Json& JsonReader::value(const std::string& key) {
    read_.insert(key);
    if (!object_.contains(key)) throw ConfigError(path_of(key) + ": missing (required)");
    return object_.at(key);
}

void JsonReader::fail(const std::string& key, const std::string& expected, const Json& got) const {
    throw ConfigError(path_of(key) + ": expected " + expected + ", got " + describe(got));
}

namespace {
std::string range_text(const std::string& kind, double min, double max) {
    const auto show = [](double v) {
        std::string text = std::to_string(v);
        if (v == std::floor(v) && std::abs(v) < 1e15) text = std::to_string(static_cast<int64_t>(v));
        return text;
    };
    const bool low = std::isfinite(min) && min > -9e18, high = std::isfinite(max) && max < 9e18;
    if (low && high) return kind + " in [" + show(min) + ", " + show(max) + "]";
    if (low) return kind + " ≥ " + show(min);
    if (high) return kind + " ≤ " + show(max);
    return kind;
}
}  // namespace

int64_t JsonReader::integer(const std::string& key, IntegerRange range) {
    const Json& v = value(key);
    const auto [min, max] = range;
    const std::string expected = range_text("an integer", static_cast<double>(min), static_cast<double>(max));
    // nlohmann would turn 1.5 into 1 and −3 into a huge unsigned: check the JSON kind first.
    if (!v.is_number_integer()) fail(key, expected, v);
    // Above 2^63 − 1 does not fit: refused, never clamped.
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        fail(key, expected + " (at most 2^63 − 1)", v);
    const int64_t result = v.get<int64_t>();
    if (result < min || result > max) fail(key, expected, v);
    return resolve(key, result);
}

int64_t JsonReader::integer(const std::string& key, int64_t fallback, IntegerRange range) {
    return has(key) ? integer(key, range) : (read_.insert(key), resolve(key, fallback));
}

double JsonReader::number(const std::string& key, double min, double max) {
    const Json& v = value(key);
    const std::string expected = range_text("a number", min, max);
    if (!v.is_number()) fail(key, expected, v);
    const double result = v.get<double>();
    if (!std::isfinite(result) || result < min || result > max) fail(key, expected, v);
    return resolve(key, result);
}

double JsonReader::number(const std::string& key, double fallback, double min, double max) {
    return has(key) ? number(key, min, max) : (read_.insert(key), resolve(key, fallback));
}

bool JsonReader::boolean(const std::string& key) {
    const Json& v = value(key);
    if (!v.is_boolean()) fail(key, "true or false", v);
    return resolve(key, v.get<bool>());
}

bool JsonReader::boolean(const std::string& key, bool fallback) {
    return has(key) ? boolean(key) : (read_.insert(key), resolve(key, fallback));
}

std::string JsonReader::string(const std::string& key) {
    const Json& v = value(key);
    if (!v.is_string()) fail(key, "a string", v);
    return resolve(key, v.get<std::string>());
}

std::string JsonReader::string(const std::string& key, const std::string& fallback) {
    return has(key) ? string(key) : (read_.insert(key), resolve(key, fallback));
}

std::string JsonReader::choice(const std::string& key, const std::vector<std::string>& choices) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + ("\"" + c + "\"");
    const Json& v = value(key);
    if (!v.is_string()) fail(key, "one of " + list, v);
    const std::string got = v.get<std::string>();
    if (std::find(choices.begin(), choices.end(), got) == choices.end()) {
        const std::string suggestion = closest_match(got, choices);
        throw ConfigError(path_of(key) + ": expected one of " + list + ", got \"" + got + "\"" +
                          (suggestion.empty() ? "" : " (did you mean \"" + suggestion + "\"?)"));
    }
    return resolve(key, got);
}

std::string JsonReader::choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices) {
    return has(key) ? choice(key, choices) : (read_.insert(key), resolve(key, fallback));
}

std::vector<int64_t> JsonReader::integers(const std::string& key, int64_t min, int64_t max) {
    const Json& v = value(key);
    const std::string expected = "a list of " + range_text("integers", static_cast<double>(min), static_cast<double>(max));
    if (!v.is_array()) fail(key, expected, v);
    std::vector<int64_t> result;
    for (const Json& item : v) {
        if (!item.is_number_integer() || item.get<int64_t>() < min || item.get<int64_t>() > max) fail(key, expected, v);
        result.push_back(item.get<int64_t>());
    }
    return resolve(key, result);
}

JsonReader JsonReader::object(const std::string& key) {
    const Json& v = value(key);
    if (!v.is_object()) fail(key, "an object", v);
    return JsonReader(v, path_of(key), resolved_ ? &(*resolved_)[key] : nullptr);
}

const Json& JsonReader::raw(const std::string& key) {
    const Json& v = value(key);
    if (resolved_) (*resolved_)[key] = v;
    return v;
}

void JsonReader::finish(const std::vector<std::string>& also_known) const {
    std::vector<std::string> known(read_.begin(), read_.end());
    known.insert(known.end(), also_known.begin(), also_known.end());
    for (const auto& [key, unused] : object_.items()) {
        if (read_.count(key) || std::find(also_known.begin(), also_known.end(), key) != also_known.end()) continue;
        const std::string suggestion = closest_match(key, known);
        throw ConfigError(path_of(key) + ": unknown key" +
                          (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"));
    }
}

// Levenshtein distance; a match is offered within max(2, a third of the word) edits, at most 3.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
    std::string best;
    std::size_t best_distance = std::min<std::size_t>(3, std::max<std::size_t>(2, word.size() / 3)) + 1;
    for (const std::string& candidate : candidates) {
        std::vector<std::size_t> previous(candidate.size() + 1), current(candidate.size() + 1);
        for (std::size_t j = 0; j <= candidate.size(); ++j) previous[j] = j;
        for (std::size_t i = 1; i <= word.size(); ++i) {
            current[0] = i;
            for (std::size_t j = 1; j <= candidate.size(); ++j)
                current[j] = std::min({previous[j] + 1, current[j - 1] + 1,
                                       previous[j - 1] + (word[i - 1] == candidate[j - 1] ? 0 : 1)});
            std::swap(previous, current);
        }
        if (previous[candidate.size()] < best_distance) {
            best_distance = previous[candidate.size()];
            best = candidate;
        }
    }
    return best;
}

std::string describe(const Json& value) {
    constexpr std::size_t kShownBytes = 60;
    if (value.is_object()) return "an object";
    if (value.is_array()) {
        // Short lists of scalars are shown whole; anything nested only by its size, so the message
        // stays short and never walks a deep value.
        const bool flat = std::all_of(value.begin(), value.end(), [](const Json& item) { return item.is_primitive(); });
        if (value.size() > 4 || !flat) return "a list of " + std::to_string(value.size());
        std::string text = "[";
        for (const Json& item : value) text += (text.size() > 1 ? "," : "") + describe(item);
        return text + "]";
    }
    if (value.is_string() && value.get_ref<const std::string&>().size() > kShownBytes) {
        const auto& text = value.get_ref<const std::string&>();
        return Json(text.substr(0, kShownBytes)).dump(-1, ' ', false, Json::error_handler_t::replace) + "… (" +
               std::to_string(text.size()) + " bytes)";
    }
    // replace: a string that is not UTF-8 is shown with U+FFFD instead of throwing.
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace tf::config
