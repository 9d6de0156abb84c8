// JSON files with duplicate-key detection, and dotted overrides.
#include "config/json_file.h"

#include "config/json_text.h"
#include "config/utf8.h"
#include "util/files.h"

namespace tf::config {

Json parse_json_text(const std::string& text, const std::string& source_name) {
    if (text.size() > kMaxConfigBytes)
        throw ConfigError(source_name + ": " + std::to_string(text.size()) + " bytes, above the limit of " +
                          std::to_string(kMaxConfigBytes) + " for a config");
    JsonParse parsed = parse_json_bounded(text);
    if (!parsed.ok()) {
        // "x.json:3:14: invalid JSON (...)" but "x.json: model.heads: duplicate key".
        const char* separator = parsed.kind == JsonProblem::syntax ? ":" : ": ";
        throw ConfigError(source_name + separator + parsed.problem);
    }
    return std::move(parsed.value);
}

Json load_json_file(const std::string& path) {
    if (const std::string problem = input_file_problem(path, kMaxConfigBytes); !problem.empty())
        throw ConfigError(shown_path(path) + ": cannot open config file (" + problem + ")");
    return parse_json_text(read_file(path), path);
}

void apply_override(Json& config, const std::string& assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("--set " + assignment + ": expected key.path=value");
    const std::string dotted = assignment.substr(0, equals);
    const std::string text = assignment.substr(equals + 1);
    JsonParse parsed = parse_json_bounded(text);
    if (parsed.kind == JsonProblem::syntax) {
        if (const auto bad = first_invalid_utf8(text))
            throw ConfigError("--set " + dotted + ": byte " + std::to_string(*bad) + " of the value is not UTF-8");
        parsed.value = text;  // a bare word is a string: --set data.tokenizer=word
    } else if (!parsed.ok()) {
        throw ConfigError("--set " + dotted + ": " + parsed.problem);
    }
    const Json value = std::move(parsed.value);
    Json* node = &config;
    std::string walked;
    std::size_t start = 0;
    while (true) {
        const auto dot = dotted.find('.', start);
        const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (key.empty()) throw ConfigError("--set " + assignment + ": empty key in '" + dotted + "'");
        if (!node->is_object()) throw ConfigError("--set " + dotted + ": '" + walked + "' is not an object");
        walked += (walked.empty() ? "" : ".") + key;
        if (dot == std::string::npos) {
            (*node)[key] = value;
            return;
        }
        if (!node->contains(key)) throw ConfigError("--set " + dotted + ": there is no section '" + walked + "'");
        node = &(*node)[key];
        start = dot + 1;
    }
}

}  // namespace tf::config
