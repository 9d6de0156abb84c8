// Tokenizers: text ↔ token ids. "char" (one UTF-8 code point per token), "word" (words and single
// punctuation marks, see split_words), "bpe" (byte-level byte-pair encoding learned from the
// training text, datasets/bpe.h) and "ids" (data that is already ids). Four special tokens sit at
// fixed ids in every vocabulary, so padding and the start/end of a sequence mean the same everywhere.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/error.h"
#include "config/enum_names.h"
#include "datasets/bpe.h"

namespace tf::train {

inline constexpr int64_t kPadId = 0;      // <pad>: fills batches; cross_entropy ignore_index
inline constexpr int64_t kBosId = 1;      // <bos>: the first decoder input
inline constexpr int64_t kEosId = 2;      // <eos>: the last decoder target
inline constexpr int64_t kUnkId = 3;      // <unk>: any token not in the vocabulary
inline constexpr int64_t kNumSpecial = 4;  // ordinary tokens start at this id

// The largest vocab.json read (docs/limits.md). The vocabulary of a 32 MiB data file
// (kMaxDataBytes) stays below it even when every byte is a token escaped as \u00XX in the JSON.
inline constexpr std::size_t kMaxVocabBytes = std::size_t{256} << 20;

// How text becomes tokens: data.tokenizer of a text corpus ("char", "word", "bpe"), and "ids" for
// a jsonl file's ids; vocab.json's "kind" spells it the same way.
enum class TokenizerKind { character, word, bpe, ids };
inline constexpr EnumName<TokenizerKind> kTokenizerKindNames[] = {
    {TokenizerKind::character, "char"}, {TokenizerKind::word, "word"}, {TokenizerKind::bpe, "bpe"}, {TokenizerKind::ids, "ids"}};
inline std::span<const EnumName<TokenizerKind>> enum_names(TokenizerKind) { return kTokenizerKindNames; }

// "char": the UTF-8 code points of the text (a malformed byte is a token of its own).
std::vector<std::string> split_chars(const std::string& text);
// "word": whitespace separates tokens and is dropped, except '\n', which is a token (a line break
// in a stanza). A word is a maximal run of letters, digits and non-ASCII bytes; an apostrophe or
// hyphen with a word character on both sides stays inside the word ("don't", "jag-time"). Any
// other character is a token of its own ("Hi, you!" → Hi , you !), and so is a run of the same
// one ("--", "..."), except for quotes and brackets, which are always single.
std::vector<std::string> split_words(const std::string& text);
// The inverse of split_words on ordinary text: tokens joined by one space, except no space before
// a token made of . , ; : ! ? ) ] } and no space after ( [ {; the straight quotes " and '
// alternate between opening (no space after) and closing (no space before); no space around '\n'.
std::string join_words(const std::vector<std::string>& tokens);

class Tokenizer {
public:
    Tokenizer() = default;  // an empty "char" tokenizer holding only the specials

    // A vocabulary from `texts`: tokens seen at least `min_count` times, ordered by count
    // (descending), ties by the token's bytes (ascending); at most `max_size` ids in total
    // including the 4 specials (0 = no cap). `kind` is character or word.
    static Tokenizer build(const std::vector<std::string>& texts, TokenizerKind kind,
                           int64_t min_count = 1, int64_t max_size = 0);
    // The same from texts already split into tokens (by split_chars or split_words).
    static Tokenizer build_from_tokens(const std::vector<std::vector<std::string>>& texts, TokenizerKind kind,
                                       int64_t min_count = 1, int64_t max_size = 0);
    // A fixed vocabulary: the specials, then `symbols` in the given order (ids 4, 5, …).
    static Tokenizer from_symbols(TokenizerKind kind, const std::vector<std::string>& symbols);
    // Data that is already ids in [0, vocab_size): encode parses integers, decode prints them.
    static Tokenizer ids(int64_t vocab_size);
    // Byte-level BPE learned from `texts` with at most `vocab_size` ids in all (the specials, the
    // 256 bytes, then the merges); ValueError when vocab_size < 4 + 256.
    static Tokenizer train_bpe(const std::vector<std::string>& texts, int64_t vocab_size);

    // The kind's token strings (bpe: the bytes of each token of encode(text)).
    std::vector<std::string> split(const std::string& text) const;
    int64_t id(const std::string& token) const;  // kUnkId if unknown (bpe: the first id with those bytes)
    // char/word/bpe (ids: the specials only; bpe: the token's bytes); ValueError if out of range
    const std::string& token(int64_t id) const;
    std::vector<int64_t> encode(const std::string& text) const;   // bpe: never <unk>, every byte string
    std::vector<int64_t> encode_tokens(const std::vector<std::string>& tokens) const;
    // Stops at the first <eos>; skips <pad> and <bos>. char and bpe: concatenation (bpe: of the
    // tokens' bytes, so decode(encode(x)) = x for any bytes x); word: join_words; ids: the numbers
    // separated by spaces.
    std::string decode(const std::vector<int64_t>& ids) const;

    int64_t size() const { return kind_ == TokenizerKind::ids ? ids_size_ : static_cast<int64_t>(tokens_.size()); }
    TokenizerKind kind() const { return kind_; }

    // {"kind": "char"|"word", "tokens": ["<pad>", "<bos>", "<eos>", "<unk>", …]},
    // {"kind": "bpe", "merges": [[left id, right id], …]} (ids as datasets/bpe.h numbers them; the
    // tokens' bytes follow from the merges, and need not be UTF-8, which JSON strings must be) or
    // {"kind": "ids", "vocab_size": N}. from_json checks every field; errors name `source`.
    nlohmann::json to_json() const;
    static Tokenizer from_json(const nlohmann::json& json, const std::string& source);
    void save(const std::string& path) const;         // writes vocab.json
    // Reads and validates it: a regular file within kMaxVocabBytes, JSON within the bounds of
    // config::parse_json_bounded; DataError naming the file otherwise.
    static Tokenizer load(const std::string& path);

private:
    Tokenizer(TokenizerKind kind, std::vector<std::string> tokens);
    explicit Tokenizer(BytePairEncoding bpe);

    TokenizerKind kind_ = TokenizerKind::character;
    std::vector<std::string> tokens_{"<pad>", "<bos>", "<eos>", "<unk>"};
    std::unordered_map<std::string, int64_t> ids_{{"<pad>", 0}, {"<bos>", 1}, {"<eos>", 2}, {"<unk>", 3}};
    int64_t ids_size_ = 0;  // vocab_size of an "ids" tokenizer
    std::shared_ptr<const BytePairEncoding> bpe_;   // the merges of a "bpe" tokenizer
};

// The tokens of text a user typed for a model to read (`option` names where it came from, as
// "reconstruct --input"), or ValueError saying "the input is empty" when there are none: an
// empty string, or one the tokenizer drops whole (blanks, for "word"). Every model needs at least
// one token to read; refused here, before any model code sees a sequence of length 0.
std::vector<int64_t> encode_typed_text(const Tokenizer& tokenizer, const std::string& text, const std::string& option);

}  // namespace tf::train
