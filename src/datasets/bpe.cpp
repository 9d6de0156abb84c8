// Byte-level BPE: the textbook trainer, the fast one, and encoding (datasets/bpe.h).
#include "datasets/bpe.h"

#include <map>
#include <set>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"

namespace tf::train {

namespace {

using Pair = BytePairEncoding::Pair;

uint64_t key_of(const Pair& pair) { return (static_cast<uint64_t>(pair.first) << 32) | static_cast<uint64_t>(pair.second); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Each occurrence of `pair` in `ids` replaced by `merged`, left to right: (a, a) in "a a a" gives "aa a".
std::vector<int64_t> merge_in(const std::vector<int64_t>& ids, const Pair& pair, int64_t merged) {
    std::vector<int64_t> out;
    out.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i + 1 < ids.size() && ids[i] == pair.first && ids[i + 1] == pair.second) {
            out.push_back(merged);
            ++i;
        } else {
            out.push_back(ids[i]);
        }
    }
    return out;
}

bool contains(const std::vector<int64_t>& ids, const Pair& pair) {
    for (std::size_t i = 0; i + 1 < ids.size(); ++i)
        if (ids[i] == pair.first && ids[i + 1] == pair.second) return true;
    return false;
}

// The training text as its distinct chunks, each as byte ids, with how often it occurs.
struct ChunkTable {
    std::vector<std::vector<int64_t>> ids;
    std::vector<int64_t> counts;
};

ChunkTable chunk_table(const std::vector<std::string>& texts, int64_t first_id) {
    std::map<std::string, int64_t> counts;   // ordered, so both trainers see the chunks in one order
    for (const std::string& text : texts)
        for (const std::string& chunk : bpe_chunks(text)) ++counts[chunk];
    ChunkTable table;
    for (const auto& [chunk, count] : counts) {
        std::vector<int64_t> ids;
        for (const char byte : chunk) ids.push_back(first_id + static_cast<unsigned char>(byte));
        table.ids.push_back(std::move(ids));
        table.counts.push_back(count);
    }
    return table;
}

void require_room(int64_t vocab_size, int64_t first_id) {
    if (vocab_size < first_id + 256)
        throw ValueError("byte-pair encoding: vocab_size " + std::to_string(vocab_size) + " leaves no room for the 256 " +
                         "byte tokens after the " + std::to_string(first_id) + " special ones (at least " +
                         std::to_string(first_id + 256) + ")");
}

}  // namespace

std::vector<std::string> bpe_chunks(const std::string& text) {
    std::vector<std::string> chunks;
    std::string chunk;
    bool in_word = false;
    for (const char c : text) {
        if (is_space(c) && in_word) {   // whitespace after a word starts the next chunk
            chunks.push_back(std::move(chunk));
            chunk.clear();
            in_word = false;
        }
        in_word = in_word || !is_space(c);
        chunk += c;
    }
    if (!chunk.empty()) chunks.push_back(std::move(chunk));
    return chunks;
}

BytePairEncoding::BytePairEncoding(int64_t first_id) : first_id_(first_id) {
    for (int byte = 0; byte < 256; ++byte) bytes_.push_back(std::string(1, static_cast<char>(byte)));
}

void BytePairEncoding::add_merge(const Pair& pair) {
    rank_of_[key_of(pair)] = static_cast<int64_t>(merges_.size());
    merges_.push_back(pair);
    bytes_.push_back(bytes_of(pair.first) + bytes_of(pair.second));
}

// The textbook loop: count every adjacent pair over all chunks (weighted by their counts), merge
// the most frequent everywhere, repeat.
BytePairEncoding BytePairEncoding::train_textbook(const std::vector<std::string>& texts, int64_t vocab_size,
                                                  int64_t first_id) {
    require_room(vocab_size, first_id);
    BytePairEncoding bpe(first_id);
    ChunkTable table = chunk_table(texts, first_id);
    while (first_id + bpe.size() < vocab_size) {
        // BEGIN SOLUTION A5.1
        std::map<Pair, int64_t> counts;
        for (std::size_t c = 0; c < table.ids.size(); ++c)
            for (std::size_t i = 0; i + 1 < table.ids[c].size(); ++i) counts[{table.ids[c][i], table.ids[c][i + 1]}] += table.counts[c];
        Pair best{0, 0};
        int64_t best_count = 0;
        for (const auto& [pair, count] : counts)   // ascending pairs: the first of the most frequent wins a tie
            if (count > best_count) best = pair, best_count = count;
        if (best_count < 2) break;   // a pair seen once teaches nothing
        const int64_t merged = first_id + bpe.size();
        bpe.add_merge(best);
        for (std::vector<int64_t>& ids : table.ids) ids = merge_in(ids, best, merged);
        // END SOLUTION
    }
    return bpe;
}

// The same merges, fast: the pair counts live in a set ordered by (−count, pair), so the next merge
// is its first entry; a merge recounts only the chunks that hold its pair (where_ says which).
// Under "kernels": "reference" (autograd/kernels/mode.h) the textbook loop above runs instead.
BytePairEncoding BytePairEncoding::train(const std::vector<std::string>& texts, int64_t vocab_size, int64_t first_id) {
    // BEGIN FAST A5.1: return train_textbook(texts, vocab_size, first_id);
    if (kernels::use_reference()) return train_textbook(texts, vocab_size, first_id);
    require_room(vocab_size, first_id);
    BytePairEncoding bpe(first_id);
    ChunkTable table = chunk_table(texts, first_id);
    std::map<Pair, int64_t> counts;
    std::set<std::pair<int64_t, Pair>> ranked;                           // (−count, pair)
    std::unordered_map<uint64_t, std::set<std::size_t>> chunks_with;     // a pair's chunks (maybe no longer)
    const auto change = [&](const Pair& pair, int64_t delta) {
        int64_t& count = counts[pair];
        if (count > 0) ranked.erase({-count, pair});
        count += delta;
        if (count > 0) ranked.insert({-count, pair});
        else counts.erase(pair);
    };
    const auto count_pairs = [&](std::size_t c, int64_t sign) {
        const std::vector<int64_t>& ids = table.ids[c];
        for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
            change({ids[i], ids[i + 1]}, sign * table.counts[c]);
            if (sign > 0) chunks_with[key_of({ids[i], ids[i + 1]})].insert(c);
        }
    };
    for (std::size_t c = 0; c < table.ids.size(); ++c) count_pairs(c, +1);
    while (first_id + bpe.size() < vocab_size && !ranked.empty() && -ranked.begin()->first >= 2) {
        const Pair best = ranked.begin()->second;
        const int64_t merged = first_id + bpe.size();
        bpe.add_merge(best);
        const std::set<std::size_t> touched = std::move(chunks_with[key_of(best)]);
        chunks_with.erase(key_of(best));
        for (const std::size_t c : touched) {
            if (!contains(table.ids[c], best)) continue;
            count_pairs(c, -1);
            table.ids[c] = merge_in(table.ids[c], best, merged);
            count_pairs(c, +1);
        }
    }
    return bpe;
    // END FAST
}

BytePairEncoding BytePairEncoding::from_merges(std::vector<Pair> merges, int64_t first_id) {
    BytePairEncoding bpe(first_id);
    for (std::size_t k = 0; k < merges.size(); ++k) {
        const Pair& pair = merges[k];
        const int64_t made = first_id + bpe.size();   // ids below this exist
        for (const int64_t id : {pair.first, pair.second})
            if (id < first_id || id >= made)
                throw ValueError("merges[" + std::to_string(k) + "]: id " + std::to_string(id) + " is not a byte or an " +
                                 "earlier merge (expected " + std::to_string(first_id) + "–" + std::to_string(made - 1) + ")");
        if (bpe.rank_of_.count(key_of(pair)))
            throw ValueError("merges[" + std::to_string(k) + "]: repeats merges[" +
                             std::to_string(bpe.rank_of_.at(key_of(pair))) + "]");
        bpe.add_merge(pair);
    }
    return bpe;
}

const std::string& BytePairEncoding::bytes_of(int64_t id) const {
    if (id < first_id_ || id >= first_id_ + size())
        throw ValueError("byte-pair encoding: id " + std::to_string(id) + " is not one of its tokens");
    return bytes_[static_cast<std::size_t>(id - first_id_)];
}

// Replays the merges on one chunk: while some adjacent pair was learned, merge the earliest
// learned one everywhere. (The earliest first is the order training merged them in.)
std::vector<int64_t> BytePairEncoding::encode_chunk(const std::string& chunk) const {
    std::vector<int64_t> ids;
    for (const char byte : chunk) ids.push_back(first_id_ + static_cast<unsigned char>(byte));
    while (ids.size() > 1) {
        int64_t earliest = -1;
        Pair pair;
        for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
            const auto found = rank_of_.find(key_of({ids[i], ids[i + 1]}));
            if (found != rank_of_.end() && (earliest < 0 || found->second < earliest))
                earliest = found->second, pair = {ids[i], ids[i + 1]};
        }
        if (earliest < 0) break;
        ids = merge_in(ids, pair, first_id_ + 256 + earliest);
    }
    return ids;
}

std::vector<int64_t> BytePairEncoding::encode(const std::string& text) const {
    std::vector<int64_t> ids;
    for (const std::string& chunk : bpe_chunks(text)) {
        const std::vector<int64_t> chunk_ids = encode_chunk(chunk);
        ids.insert(ids.end(), chunk_ids.begin(), chunk_ids.end());
    }
    return ids;
}

}  // namespace tf::train
