// Byte-level BPE training and encoding speed: the textbook trainer (recount every pair per merge)
// against the fast one (recount only the chunks a merge touched), on a text file, and encoding the
// file with the merges learned. Both trainers must learn the same merges; the program says if not.
// Usage: bench_bpe FILE [--vocab N] [--copies K] [--skip-textbook]
//   --copies K: the file's lines K times, each copy's words shifted by its number, so a small
//   corpus stands in for a bigger one with a vocabulary to match.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "datasets/bpe.h"

using namespace tf::train;

namespace {

double seconds_of(auto&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Copy k of a line: each letter moved k places along the alphabet, so copies share no words.
std::string shifted(const std::string& line, int k) {
    std::string out = line;
    for (char& c : out)
        if (c >= 'a' && c <= 'z') c = static_cast<char>('a' + (c - 'a' + k) % 26);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_bpe FILE [--vocab N] [--copies K] [--skip-textbook]\n");
        return 2;
    }
    int64_t vocab = 2000;
    int copies = 1;
    bool textbook = true;
    for (int i = 2; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--vocab") && i + 1 < argc) vocab = std::atol(argv[++i]);
        else if (!std::strcmp(argv[i], "--copies") && i + 1 < argc) copies = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--skip-textbook")) textbook = false;
        else { std::fprintf(stderr, "bench_bpe: unknown argument %s\n", argv[i]); return 2; }
    }
    std::ifstream in(argv[1]);
    if (!in) { std::fprintf(stderr, "bench_bpe: cannot read %s\n", argv[1]); return 2; }
    std::vector<std::string> lines;
    std::size_t bytes = 0;
    std::vector<std::string> original;
    for (std::string line; std::getline(in, line);) original.push_back(line);
    for (int k = 0; k < copies; ++k)
        for (const std::string& line : original) {
            lines.push_back(shifted(line, k));
            bytes += line.size() + 1;
        }
    std::printf("%zu lines, %.2f MB, vocab %ld (4 specials, 256 bytes, %ld merges at most)\n", lines.size(), bytes / 1e6,
                long(vocab), long(vocab - 260));
    BytePairEncoding fast = BytePairEncoding::from_merges({}, 4);
    const double fast_s = seconds_of([&] { fast = BytePairEncoding::train(lines, vocab, 4); });
    std::printf("fast trainer:     %8.2f s, %zu merges\n", fast_s, fast.merges().size());
    if (textbook) {
        BytePairEncoding slow = BytePairEncoding::from_merges({}, 4);
        const double slow_s = seconds_of([&] { slow = BytePairEncoding::train_textbook(lines, vocab, 4); });
        std::printf("textbook trainer: %8.2f s, %zu merges (%.1fx the fast one's time)%s\n", slow_s, slow.merges().size(),
                    slow_s / fast_s, slow.merges() == fast.merges() ? "" : "  DIFFERENT MERGES");
        if (slow.merges() != fast.merges()) return 1;
    }
    std::size_t tokens = 0;
    const double encode_s = seconds_of([&] {
        for (const std::string& line : lines) tokens += fast.encode(line).size();
    });
    std::printf("encoding:         %8.2f s, %.2f MB/s, %.2f bytes per token\n", encode_s, bytes / 1e6 / encode_s,
                double(bytes) / double(tokens));
    return 0;
}
