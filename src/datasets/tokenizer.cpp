// Splitting text into tokens, building a deterministic vocabulary, and vocab.json.
#include "datasets/tokenizer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "config/json_text.h"
#include "util/files.h"

namespace tf::train {

namespace {

// The byte length of the UTF-8 sequence that starts with `lead` (1 for a malformed lead byte).
std::size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead >> 5) == 0x6) return 2;
    if ((lead >> 4) == 0xE) return 3;
    if ((lead >> 3) == 0x1E) return 4;
    return 1;
}

bool is_continuation(unsigned char byte) { return (byte >> 6) == 0x2; }

bool is_word_byte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || std::isalnum(byte);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Is `token` made only of characters in `set` ("..." is made of ".")?
bool is_one_of(const std::string& token, const char* set) {
    return !token.empty() && token.find_first_not_of(set) == std::string::npos;
}

}  // namespace

std::vector<std::string> split_chars(const std::string& text) {
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < text.size();) {
        std::size_t length = utf8_length(static_cast<unsigned char>(text[i]));
        if (i + length > text.size()) length = 1;
        for (std::size_t k = 1; k < length; ++k)
            if (!is_continuation(static_cast<unsigned char>(text[i + k]))) length = 1;
        tokens.push_back(text.substr(i, length));
        i += length;
    }
    return tokens;
}

std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> tokens;
    std::string word;
    const auto flush = [&] {
        if (!word.empty()) tokens.push_back(word);
        word.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool joiner = (c == '\'' || c == '-') && !word.empty() && i + 1 < text.size() &&
                            is_word_byte(text[i + 1]);
        if (is_word_byte(c) || joiner) {
            word += c;
            continue;
        }
        flush();
        if (c == '\n') tokens.emplace_back("\n");
        else if (!is_space(c)) {
            std::string mark(1, c);  // a run of one mark is one token ("--", "..."), but not of quotes or brackets
            while (std::string("\"'()[]{}").find(c) == std::string::npos && i + 1 < text.size() && text[i + 1] == c)
                mark += text[++i];
            tokens.push_back(mark);
        }
    }
    flush();
    return tokens;
}

std::string join_words(const std::vector<std::string>& tokens) {
    std::string text;
    bool double_open = false, single_open = false;  // is a " or ' quote currently open?
    bool glue_next = true;                          // no space before the next token
    for (const std::string& token : tokens) {
        bool space = !glue_next;
        bool glue_after = false;
        if (token == "\n") space = false, glue_after = true;
        else if (is_one_of(token, ".,;:!?)]}")) space = false;
        else if (is_one_of(token, "([{")) glue_after = true;
        else if (token == "\"" || token == "'") {
            bool& open = token == "\"" ? double_open : single_open;
            if (open) space = false;  // a closing quote hugs the word before it
            else glue_after = true;   // an opening quote hugs the word after it
            open = !open;
        }
        if (space) text += ' ';
        text += token;
        glue_next = glue_after;
    }
    return text;
}

Tokenizer::Tokenizer(TokenizerKind kind, std::vector<std::string> tokens) : kind_(kind) {
    for (std::string& token : tokens) {
        if (ids_.count(token)) continue;  // the specials, or a duplicate symbol
        ids_.emplace(token, static_cast<int64_t>(tokens_.size()));
        tokens_.push_back(std::move(token));
    }
}

// tokens_ holds each id's bytes (two merges can make the same bytes: ids_ keeps the first).
Tokenizer::Tokenizer(BytePairEncoding bpe) : kind_(TokenizerKind::bpe) {
    for (int64_t id = kNumSpecial; id < kNumSpecial + bpe.size(); ++id) {
        ids_.emplace(bpe.bytes_of(id), id);
        tokens_.push_back(bpe.bytes_of(id));
    }
    bpe_ = std::make_shared<const BytePairEncoding>(std::move(bpe));
}

Tokenizer Tokenizer::train_bpe(const std::vector<std::string>& texts, int64_t vocab_size) {
    return Tokenizer(BytePairEncoding::train(texts, vocab_size, kNumSpecial));
}

Tokenizer Tokenizer::build(const std::vector<std::string>& texts, TokenizerKind kind, int64_t min_count,
                           int64_t max_size) {
    std::vector<std::vector<std::string>> split_texts;
    for (const std::string& text : texts) split_texts.push_back(kind == TokenizerKind::word ? split_words(text) : split_chars(text));
    return build_from_tokens(split_texts, kind, min_count, max_size);
}

Tokenizer Tokenizer::build_from_tokens(const std::vector<std::vector<std::string>>& texts, TokenizerKind kind,
                                       int64_t min_count, int64_t max_size) {
    if (kind != TokenizerKind::character && kind != TokenizerKind::word)
        throw ValueError("Tokenizer::build: kind must be \"char\" or \"word\", got \"" + name_of(kind) + "\"");
    std::map<std::string, int64_t> counts;  // ordered by bytes: the stable sort below keeps that for ties
    for (const auto& tokens : texts)
        for (const std::string& token : tokens) ++counts[token];
    std::vector<std::pair<std::string, int64_t>> ranked(counts.begin(), counts.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::string> tokens;
    for (const auto& [token, count] : ranked) {
        if (count < min_count) break;
        if (max_size > 0 && static_cast<int64_t>(tokens.size()) + kNumSpecial >= max_size) break;
        tokens.push_back(token);
    }
    return Tokenizer(kind, std::move(tokens));
}

Tokenizer Tokenizer::from_symbols(TokenizerKind kind, const std::vector<std::string>& symbols) {
    if (kind != TokenizerKind::character && kind != TokenizerKind::word)
        throw ValueError("Tokenizer::from_symbols: kind must be \"char\" or \"word\", got \"" + name_of(kind) + "\"");
    return Tokenizer(kind, symbols);
}

Tokenizer Tokenizer::ids(int64_t vocab_size) {
    if (vocab_size <= kNumSpecial)
        throw ValueError("Tokenizer::ids: vocab_size must exceed the " + std::to_string(kNumSpecial) +
                         " special ids, got " + std::to_string(vocab_size));
    Tokenizer tokenizer;
    tokenizer.kind_ = TokenizerKind::ids;
    tokenizer.ids_size_ = vocab_size;
    return tokenizer;
}

std::vector<std::string> Tokenizer::split(const std::string& text) const {
    if (kind_ == TokenizerKind::word) return split_words(text);
    if (kind_ == TokenizerKind::character) return split_chars(text);
    if (kind_ == TokenizerKind::bpe) {
        std::vector<std::string> tokens;
        for (const int64_t id : bpe_->encode(text)) tokens.push_back(token(id));
        return tokens;
    }
    std::vector<std::string> numbers;
    std::istringstream stream(text);
    for (std::string number; stream >> number;) numbers.push_back(number);
    return numbers;
}

int64_t Tokenizer::id(const std::string& token) const {
    if (kind_ == TokenizerKind::ids) {
        const bool digits = !token.empty() && token.size() < 19 &&
                            std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int64_t value = digits ? std::stoll(token) : kUnkId;
        return value < ids_size_ ? value : kUnkId;
    }
    const auto found = ids_.find(token);
    return found == ids_.end() ? kUnkId : found->second;
}

const std::string& Tokenizer::token(int64_t id) const {
    if (id < 0 || id >= static_cast<int64_t>(tokens_.size()))
        throw ValueError("Tokenizer::token: id " + std::to_string(id) + " outside the vocabulary of " +
                         std::to_string(tokens_.size()));
    return tokens_[static_cast<std::size_t>(id)];
}

std::vector<int64_t> Tokenizer::encode_tokens(const std::vector<std::string>& tokens) const {
    std::vector<int64_t> result;
    result.reserve(tokens.size());
    for (const std::string& token : tokens) result.push_back(id(token));
    return result;
}

std::vector<int64_t> Tokenizer::encode(const std::string& text) const {
    return kind_ == TokenizerKind::bpe ? bpe_->encode(text) : encode_tokens(split(text));
}

std::string Tokenizer::decode(const std::vector<int64_t>& ids) const {
    std::vector<std::string> tokens;
    for (const int64_t id : ids) {
        if (id == kEosId) break;
        if (id == kPadId || id == kBosId) continue;
        if (kind_ == TokenizerKind::ids) tokens.push_back(std::to_string(id));
        else tokens.push_back(id >= 0 && id < size() ? token(id) : tokens_[kUnkId]);
    }
    if (kind_ == TokenizerKind::word) return join_words(tokens);
    std::string text;
    for (const std::string& token : tokens) text += (kind_ == TokenizerKind::ids && !text.empty() ? " " : "") + token;
    return text;
}

nlohmann::json Tokenizer::to_json() const {
    if (kind_ == TokenizerKind::ids) return {{"kind", name_of(kind_)}, {"vocab_size", ids_size_}};
    if (kind_ == TokenizerKind::bpe) {
        nlohmann::json merges = nlohmann::json::array();
        for (const auto& [left, right] : bpe_->merges()) merges.push_back({left, right});
        return {{"kind", name_of(kind_)}, {"merges", merges}};
    }
    return {{"kind", name_of(kind_)}, {"tokens", tokens_}};
}

namespace {
// The "tokens" list: strings, the specials first and in order, no duplicates.
std::vector<std::string> read_tokens(const nlohmann::json& list) {
    if (!list.is_array()) throw ConfigError("tokens: expected a list of strings, got " + config::describe(list));
    const std::vector<std::string> specials{"<pad>", "<bos>", "<eos>", "<unk>"};
    std::vector<std::string> tokens;
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = "tokens[" + std::to_string(i) + "]";
        if (!list[i].is_string()) throw ConfigError(where + ": expected a string, got " + config::describe(list[i]));
        const std::string token = list[i].get<std::string>();
        if (i < specials.size() && token != specials[i])
            throw ConfigError(where + ": expected the special token \"" + specials[i] + "\", got \"" + token + "\"");
        if (!seen.emplace(token, i).second)
            throw ConfigError(where + ": duplicate of tokens[" + std::to_string(seen[token]) + "]");
        tokens.push_back(token);
    }
    if (tokens.size() < specials.size())
        throw ConfigError("tokens: expected at least the 4 special tokens, got " + std::to_string(tokens.size()));
    return tokens;
}

// The "merges" list: [left id, right id] pairs of integers (from_merges checks what they name).
std::vector<BytePairEncoding::Pair> read_merges(const nlohmann::json& list) {
    if (!list.is_array()) throw ConfigError("merges: expected a list of [left, right] id pairs, got " + config::describe(list));
    std::vector<BytePairEncoding::Pair> merges;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const nlohmann::json& pair = list[i];
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer())
            throw ConfigError("merges[" + std::to_string(i) + "]: expected [left id, right id], got " + config::describe(pair));
        merges.emplace_back(pair[0].get<int64_t>(), pair[1].get<int64_t>());
    }
    return merges;
}
}  // namespace

Tokenizer Tokenizer::from_json(const nlohmann::json& json, const std::string& source) {
    try {
        config::JsonReader reader(json, "");
        const auto kind = reader.choice<TokenizerKind>("kind");
        Tokenizer tokenizer;
        if (kind == TokenizerKind::ids) {
            tokenizer = ids(reader.integer("vocab_size", {.min = kNumSpecial + 1}));
        } else if (kind == TokenizerKind::bpe) {
            try {
                tokenizer = Tokenizer(BytePairEncoding::from_merges(read_merges(reader.raw("merges")), kNumSpecial));
            } catch (const ValueError& error) {
                throw ConfigError(error.what());
            }
        } else {
            std::vector<std::string> tokens = read_tokens(reader.raw("tokens"));
            tokens.erase(tokens.begin(), tokens.begin() + kNumSpecial);
            tokenizer = Tokenizer(kind, std::move(tokens));
        }
        reader.finish();
        return tokenizer;
    } catch (const ConfigError& error) {
        throw DataError(source + ": " + error.what());
    }
}

void Tokenizer::save(const std::string& path) const { write_file_atomic(path, to_json().dump(1) + "\n"); }

Tokenizer Tokenizer::load(const std::string& path) {
    if (const std::string problem = input_file_problem(path, kMaxVocabBytes); !problem.empty())
        throw DataError(shown_path(path) + ": cannot open the vocabulary (" + problem + ")");
    config::JsonParse parsed = config::parse_json_bounded(read_file(path));
    if (parsed.kind == config::JsonProblem::syntax) throw DataError(path + ": not valid JSON (" + parsed.problem + ")");
    if (!parsed.ok()) throw DataError(path + ": " + parsed.problem);
    return from_json(parsed.value, path);
}

std::vector<int64_t> encode_typed_text(const Tokenizer& tokenizer, const std::string& text, const std::string& option) {
    std::vector<int64_t> tokens = tokenizer.encode(text);
    if (tokens.empty())
        throw ValueError(option + ": the input is empty" +
                         (text.empty() ? std::string() : " (the run's \"" + name_of(tokenizer.kind()) + "\" tokenizer finds no token in it)") +
                         "; give some text to read");
    return tokens;
}

}  // namespace tf::train
