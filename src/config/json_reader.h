// Reading a JSON config strictly: every value is type- and range-checked, every error names its
// JSON path ("model.heads: expected an integer ≥ 1, got 1.5"), and keys nobody read are errors
// ("model.hedas: unknown key (did you mean 'heads'?)"), so a typo never silently becomes a default.
#pragma once
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/error.h"
#include "config/enum_names.h"

namespace tf::config {

using Json = nlohmann::json;

// The closed range an integer must lie in. A call names its bounds, so a fallback and a bound
// cannot change places unseen: integer("heads", 4, {.min = 1, .max = 64}).
struct IntegerRange {
    int64_t min = std::numeric_limits<int64_t>::min();
    int64_t max = std::numeric_limits<int64_t>::max();
};

class JsonReader {
public:
    // `path` is how errors name this object: "" for the root, "model", "model.layers[1]".
    // With `resolved`, every value read — given or defaulted — is also written there, so after
    // reading, *resolved is the config with every default filled in (what `config print` shows).
    JsonReader(const Json& object, std::string path, Json* resolved = nullptr);
    // The reader keeps a reference to `object`: a temporary would be gone before the first read.
    JsonReader(Json&& object, std::string path, Json* resolved = nullptr) = delete;

    bool has(const std::string& key) const;
    std::string path_of(const std::string& key) const;

    // Each getter marks the key as read. Without a default the key is required.
    int64_t integer(const std::string& key, IntegerRange range = {});
    int64_t integer(const std::string& key, int64_t fallback, IntegerRange range);
    double number(const std::string& key, double min = -std::numeric_limits<double>::infinity(),
                  double max = std::numeric_limits<double>::infinity());
    double number(const std::string& key, double fallback, double min, double max);
    bool boolean(const std::string& key);
    bool boolean(const std::string& key, bool fallback);
    std::string string(const std::string& key);
    std::string string(const std::string& key, const std::string& fallback);
    // A string that must be one of `choices`.
    std::string choice(const std::string& key, const std::vector<std::string>& choices);
    std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices);
    // A choice read straight into an enum, its names from enum_names(Enum{}) (config/enum_names.h):
    // the same checks and messages as the string forms, so only the reader ever sees the name.
    template <class Enum>
        requires std::is_enum_v<Enum>
    Enum choice(const std::string& key) {
        return *enum_from_name<Enum>(choice(key, enum_name_list<Enum>()));
    }
    template <class Enum>
        requires std::is_enum_v<Enum>
    Enum choice(const std::string& key, Enum fallback) {
        return *enum_from_name<Enum>(choice(key, name_of(fallback), enum_name_list<Enum>()));
    }
    std::vector<int64_t> integers(const std::string& key, int64_t min, int64_t max);
    // A nested object, read with its own reader (its own unknown-key check).
    JsonReader object(const std::string& key);
    const Json& raw(const std::string& key);  // the value as is (marked read)
    void mark_read(const std::string& key);
    // For a value read by hand (not by a getter above) that is absent: marks it read and records
    // `fallback` in the resolved config, so `config print` shows it.
    void use_default(const std::string& key, const Json& fallback);

    // Throws for the first key that no getter read, suggesting the closest known name.
    void finish(const std::vector<std::string>& also_known = {}) const;

    const std::string& path() const { return path_; }

private:
    const Json& value(const std::string& key);
    template <class T>
    T resolve(const std::string& key, T result) {
        if (resolved_) (*resolved_)[key] = result;
        return result;
    }
    [[noreturn]] void fail(const std::string& key, const std::string& expected, const Json& got) const;

    const Json& object_;
    std::string path_;
    Json* resolved_;
    std::set<std::string> read_;
};

// The closest of `candidates` to `word` by edit distance, or "" if none is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// A JSON value shown briefly in an error: 1.5, "abc", [1,2], {...}.
std::string describe(const Json& value);

}  // namespace tf::config
