// Bounded JSON reading: one parser callback sees every event, so depth and duplicate keys are
// checked before the value is built and before anything walks it.
#include "config/json_text.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

namespace tf::config {

namespace {

// Thrown from inside the parser callback to stop at the first problem.
struct Refused {
    JsonProblem kind;
    std::string problem;
};

class ParseWatch {
public:
    void operator()(int depth, Json::parse_event_t event, const Json& parsed) {
        switch (event) {
            case Json::parse_event_t::object_start:
            case Json::parse_event_t::array_start:
                // `depth` counts the containers already open around this one.
                if (depth >= kMaxJsonDepth)
                    throw Refused{JsonProblem::too_deep, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
                if (event == Json::parse_event_t::object_start) keys_per_object_.emplace_back();
                break;
            case Json::parse_event_t::object_end:
                keys_per_object_.pop_back();
                break;
            case Json::parse_event_t::key: {
                const std::string key = parsed.get<std::string>();
                path_.resize(keys_per_object_.size() - 1);  // the path of the object this key is in
                auto& seen = keys_per_object_.back();
                if (!seen.insert(key).second) throw Refused{JsonProblem::duplicate_key, joined(key) + ": duplicate key"};
                path_.push_back(key);
                break;
            }
            default:
                break;
        }
    }

private:
    std::string joined(const std::string& last) const {
        std::string text;
        for (const auto& part : path_) text += part + ".";
        return text + last;
    }

    // A set, not a list: a safetensors header may hold 100,000 names, and a linear search per
    // key made reading it quadratic (minutes for one header).
    std::vector<std::unordered_set<std::string>> keys_per_object_;
    std::vector<std::string> path_;
};

// "line:column" of byte `offset` (nlohmann reports one past the offending byte), for a person.
std::string line_and_column(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < offset; ++i) {
        if (text[i] == '\n') ++line, column = 1;
        else ++column;
    }
    return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

JsonParse parse_json_bounded(const std::string& text) {
    ParseWatch watch;
    JsonParse result;
    try {
        // Two passes. The watched one checks the text and keeps nothing below the top level:
        // nlohmann's callback parser rescans a container's elements each time one of them ends,
        // which over 100,000 kept entries (a safetensors header) takes minutes. The plain second
        // pass then builds the value from a text known to be within bounds.
        [[maybe_unused]] const Json top_level_only = Json::parse(text, [&watch](int depth, Json::parse_event_t event, Json& parsed) {
            watch(depth, event, parsed);
            const bool ends_a_value = event == Json::parse_event_t::value || event == Json::parse_event_t::object_end ||
                                      event == Json::parse_event_t::array_end;
            return !(ends_a_value && depth > 0);
        });
        result.value = Json::parse(text);
    } catch (const Refused& refused) {
        result = {Json(), refused.kind, refused.problem};
    } catch (const Json::parse_error& error) {
        const std::string reason = error.what();
        const auto start = reason.find("syntax error");
        result.kind = JsonProblem::syntax;
        result.problem = line_and_column(text, error.byte) + ": invalid JSON (" +
                         (start == std::string::npos ? reason : reason.substr(start)) + ")";
    } catch (const Json::out_of_range& error) {
        // nlohmann's only out_of_range while parsing: "number overflow parsing '1e999'".
        const std::string reason = error.what();
        const auto start = reason.find("] ");
        result.kind = JsonProblem::number_out_of_range;
        result.problem = (start == std::string::npos ? reason : reason.substr(start + 2)).substr(0, 120) +
                         " (beyond the range of a double)";
    }
    if (!result.ok()) result.value = Json();
    return result;
}

}  // namespace tf::config
