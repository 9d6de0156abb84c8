// Byte-level byte-pair encoding (Sennrich et al. 2016, on bytes as GPT-2 does, Radford et al.
// 2019). The vocabulary starts from the 256 byte values, so every byte string — UTF-8 or not — has
// an encoding, and decoding concatenates the tokens' bytes back. Training repeats one step: count
// every adjacent pair of tokens in the training text, make the most frequent pair a new token, and
// replace it everywhere. Encoding replays the merges, earliest first. docs/bpe.md works an example.
//
// Merges never cross a chunk boundary: a chunk is a run of whitespace and the run of other bytes
// after it ("the cat  sat" → "the", " cat", "  sat"), so a token is a piece of one word with the
// space before it, never the end of one word and the start of the next.
//
// Ids: the caller's first `first_id` ids are its own (the tokenizer's 4 specials); byte b is id
// first_id + b; merge k makes id first_id + 256 + k.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tf::train {

class BytePairEncoding {
public:
    using Pair = std::pair<int64_t, int64_t>;   // (left id, right id)

    // Learns merges until there are `vocab_size` ids in all (first_id + 256 + merges), or no pair
    // occurs twice. The two trainers learn the same merges (a test holds them equal): the textbook
    // loop recounts every pair each step; the fast one updates only the chunks a merge touched.
    // Ties go to the smallest pair (by ids), so training is deterministic.
    static BytePairEncoding train_textbook(const std::vector<std::string>& texts, int64_t vocab_size, int64_t first_id);
    static BytePairEncoding train(const std::vector<std::string>& texts, int64_t vocab_size, int64_t first_id);
    // From saved merges; ValueError when a merge names an id not made before it, or repeats a pair.
    static BytePairEncoding from_merges(std::vector<Pair> merges, int64_t first_id);

    std::vector<int64_t> encode(const std::string& text) const;
    const std::string& bytes_of(int64_t id) const;   // the bytes token `id` stands for (id ≥ first_id)
    const std::vector<Pair>& merges() const { return merges_; }
    int64_t size() const { return static_cast<int64_t>(bytes_.size()); }   // 256 + merges
    int64_t first_id() const { return first_id_; }

private:
    BytePairEncoding(int64_t first_id);
    void add_merge(const Pair& pair);
    std::vector<int64_t> encode_chunk(const std::string& chunk) const;

    int64_t first_id_ = 0;
    std::vector<Pair> merges_;
    std::vector<std::string> bytes_;                  // bytes_[id − first_id]
    std::unordered_map<uint64_t, int64_t> rank_of_;   // a pair's merge index (key: left·2³² + right)
};

// The chunks of `text` (see above), in order; their concatenation is `text`.
std::vector<std::string> bpe_chunks(const std::string& text);

}  // namespace tf::train
