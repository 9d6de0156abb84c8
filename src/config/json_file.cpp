// JSON files with duplicate-key detection, and dotted overrides.
#include "config/json_file.h"

#include <fstream>
#include <sstream>

namespace tf::config {

namespace {

// nlohmann keeps the last of two equal keys silently; a parser callback sees every key as it is
// read, so a stack of "keys seen in this object" catches the duplicate with its path.
struct DuplicateKeyCheck {
    std::vector<std::vector<std::string>> keys_per_object;
    std::vector<std::string> path;
    std::string source;

    std::string joined(const std::string& last) const {
        std::string text;
        for (const auto& part : path) text += part + ".";
        return text + last;
    }

    bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
        switch (event) {
            case Json::parse_event_t::object_start:
                keys_per_object.emplace_back();
                break;
            case Json::parse_event_t::object_end:
                keys_per_object.pop_back();
                break;
            case Json::parse_event_t::key: {
                const std::string key = parsed.get<std::string>();
                path.resize(keys_per_object.size() - 1);  // the path of the object this key is in
                auto& seen = keys_per_object.back();
                for (const auto& earlier : seen)
                    if (earlier == key) throw ConfigError(source + ": " + joined(key) + ": duplicate key");
                seen.push_back(key);
                path.push_back(key);
                break;
            }
            default:
                break;
        }
        return true;
    }
};

}  // namespace

Json parse_json_text(const std::string& text, const std::string& source_name) {
    DuplicateKeyCheck check{{}, {}, source_name};
    try {
        return Json::parse(text, [&check](int depth, Json::parse_event_t event, Json& parsed) {
            return check(depth, event, parsed);
        });
    } catch (const Json::parse_error& error) {
        // Turn the byte offset into line:column for a person reading the file.
        const std::size_t offset = std::min<std::size_t>(error.byte, text.size());
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i + 1 < offset; ++i) {
            if (text[i] == '\n') ++line, column = 1;
            else ++column;
        }
        std::string reason = error.what();
        const auto colon = reason.find("syntax error");
        throw ConfigError(source_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                          ": invalid JSON (" + (colon == std::string::npos ? reason : reason.substr(colon)) + ")");
    }
}

Json load_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ConfigError(path + ": cannot open config file");
    std::stringstream text;
    text << in.rdbuf();
    return parse_json_text(text.str(), path);
}

void apply_override(Json& config, const std::string& assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("--set " + assignment + ": expected key.path=value");
    const std::string dotted = assignment.substr(0, equals);
    const std::string text = assignment.substr(equals + 1);
    Json value;
    try {
        value = Json::parse(text);
    } catch (const Json::parse_error&) {
        value = text;  // a bare word is a string: --set data.tokenizer=word
    }
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
