// Config choices as enums. Each enum lists its config names once, in a table that
// `enum_names(Enum{})` returns (found by argument-dependent lookup next to the enum); the config
// reader turns the validated string into the value where it reads it, and core code compares values.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "autograd/error.h"

namespace tf {

template <class Enum>
struct EnumName {
    Enum value;
    std::string_view name;
};

// Every name of Enum, in the order its table lists them (the order config errors show).
template <class Enum>
    requires std::is_enum_v<Enum>
std::vector<std::string> enum_name_list() {
    std::vector<std::string> names;
    for (const EnumName<Enum>& entry : enum_names(Enum{})) names.emplace_back(entry.name);
    return names;
}

// The config name of `value`.
template <class Enum>
    requires std::is_enum_v<Enum>
std::string name_of(Enum value) {
    for (const EnumName<Enum>& entry : enum_names(Enum{}))
        if (entry.value == value) return std::string(entry.name);
    throw ValueError("name_of: enum value " + std::to_string(static_cast<long long>(value)) + " has no name");
}

// The value named `name`, or nullopt when no value has that name.
template <class Enum>
    requires std::is_enum_v<Enum>
std::optional<Enum> enum_from_name(std::string_view name) {
    for (const EnumName<Enum>& entry : enum_names(Enum{}))
        if (entry.name == name) return entry.value;
    return std::nullopt;
}

}  // namespace tf
