// Config names of the attention choices.
#include "layers/attention/attention_choices.h"

namespace tf {

std::string name_of(AttentionKernel kernel) {
    switch (kernel) {
        case AttentionKernel::softmax: return "softmax";
        case AttentionKernel::tiled: return "tiled";
        case AttentionKernel::linear: return "linear";
    }
    return "?";
}

std::string name_of(AttentionPattern pattern) {
    switch (pattern) {
        case AttentionPattern::full: return "full";
        case AttentionPattern::sliding_window: return "sliding_window";
        case AttentionPattern::strided: return "strided";
    }
    return "?";
}

namespace {

template <class Choice>
std::vector<Choice> every();

template <>
std::vector<AttentionKernel> every() {
    return {AttentionKernel::softmax, AttentionKernel::tiled, AttentionKernel::linear};
}

template <>
std::vector<AttentionPattern> every() {
    return {AttentionPattern::full, AttentionPattern::sliding_window, AttentionPattern::strided};
}

}  // namespace

template <class Choice>
std::vector<std::string> attention_choice_names() {
    std::vector<std::string> names;
    for (Choice choice : every<Choice>()) names.push_back(name_of(choice));
    return names;
}

template <class Choice>
std::optional<Choice> attention_choice_from_name(const std::string& name) {
    for (Choice choice : every<Choice>())
        if (name_of(choice) == name) return choice;
    return std::nullopt;
}

template std::vector<std::string> attention_choice_names<AttentionKernel>();
template std::vector<std::string> attention_choice_names<AttentionPattern>();
template std::optional<AttentionKernel> attention_choice_from_name<AttentionKernel>(const std::string&);
template std::optional<AttentionPattern> attention_choice_from_name<AttentionPattern>(const std::string&);

}  // namespace tf
