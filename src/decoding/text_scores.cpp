// Exact match, CER, chrF and BLEU (decoding/text_scores.h; worked examples in docs/math/text_scores.md).
#include "decoding/text_scores.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "autograd/error.h"
#include "datasets/tokenizer.h"

namespace tf::train {

namespace {

void require_pairs(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    if (hypotheses.size() != references.size())
        throw ValueError("text scores: " + std::to_string(hypotheses.size()) + " hypotheses for " +
                         std::to_string(references.size()) + " references; each hypothesis needs its reference");
}

using Ngrams = std::map<std::vector<std::string>, int64_t>;

// Counts of each n-gram of `items` (characters, or word tokens).
Ngrams ngram_counts(const std::vector<std::string>& items, std::size_t n) {
    Ngrams counts;
    for (std::size_t start = 0; start + n <= items.size(); ++start)
        ++counts[std::vector<std::string>(items.begin() + static_cast<std::ptrdiff_t>(start),
                                          items.begin() + static_cast<std::ptrdiff_t>(start + n))];
    return counts;
}

// Σ min(hypothesis count, reference count) over the hypothesis' n-grams: each n-gram matches at
// most as often as the reference has it (BLEU's "clipping"; chrF's matches).
int64_t clipped_matches(const Ngrams& hypothesis, const Ngrams& reference) {
    int64_t matches = 0;
    for (const auto& [gram, count] : hypothesis) {
        const auto found = reference.find(gram);
        if (found != reference.end()) matches += std::min(count, found->second);
    }
    return matches;
}

int64_t total(const Ngrams& counts) {
    int64_t sum = 0;
    for (const auto& entry : counts) sum += entry.second;
    return sum;
}

std::vector<std::string> whitespace_tokens(const std::string& text) {
    std::vector<std::string> tokens;
    std::istringstream words(text);
    for (std::string word; words >> word;) tokens.push_back(word);
    return tokens;
}

std::vector<std::string> characters_without_whitespace(const std::string& text) {
    std::vector<std::string> characters;
    for (std::string& c : split_chars(text))
        if (c.size() != 1 || !std::isspace(static_cast<unsigned char>(c[0]))) characters.push_back(std::move(c));
    return characters;
}

}  // namespace

// The textbook dynamic programme, one row at a time: row[j] = distance(from[:i], to[:j]).
int64_t edit_distance(const std::vector<std::string>& from, const std::vector<std::string>& to) {
    std::vector<int64_t> row(to.size() + 1);
    for (std::size_t j = 0; j <= to.size(); ++j) row[j] = static_cast<int64_t>(j);
    for (std::size_t i = 1; i <= from.size(); ++i) {
        int64_t diagonal = row[0];   // distance(from[:i-1], to[:j-1])
        row[0] = static_cast<int64_t>(i);
        for (std::size_t j = 1; j <= to.size(); ++j) {
            const int64_t substitute = diagonal + (from[i - 1] == to[j - 1] ? 0 : 1);
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});   // delete, insert, substitute
        }
    }
    return row[to.size()];
}

double exact_match_rate(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    require_pairs(hypotheses, references);
    if (hypotheses.empty()) return std::numeric_limits<double>::quiet_NaN();
    int64_t equal = 0;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) equal += hypotheses[i] == references[i];
    return static_cast<double>(equal) / static_cast<double>(hypotheses.size());
}

double character_error_rate(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    require_pairs(hypotheses, references);
    int64_t edits = 0, reference_characters = 0;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        const std::vector<std::string> reference = split_chars(references[i]);
        edits += edit_distance(split_chars(hypotheses[i]), reference);
        reference_characters += static_cast<int64_t>(reference.size());
    }
    if (reference_characters == 0) return std::numeric_limits<double>::quiet_NaN();
    return static_cast<double>(edits) / static_cast<double>(reference_characters);
}

// chrF: per order n, matches, hypothesis n-grams and reference n-grams summed over the corpus;
// P = mean over the orders both sides have of matches / hypothesis n-grams, R the same over the
// reference's; chrF = 100 · (1 + β²) · P · R / (β² · P + R).
double chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    require_pairs(hypotheses, references);
    constexpr std::size_t kOrders = 6;
    constexpr double kBetaSquared = 2.0 * 2.0;
    int64_t matches[kOrders] = {}, hypothesis_grams[kOrders] = {}, reference_grams[kOrders] = {};
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        const std::vector<std::string> hypothesis = characters_without_whitespace(hypotheses[i]);
        const std::vector<std::string> reference = characters_without_whitespace(references[i]);
        for (std::size_t n = 1; n <= kOrders; ++n) {
            const Ngrams in_hypothesis = ngram_counts(hypothesis, n);
            const Ngrams in_reference = ngram_counts(reference, n);
            matches[n - 1] += clipped_matches(in_hypothesis, in_reference);
            hypothesis_grams[n - 1] += total(in_hypothesis);
            reference_grams[n - 1] += total(in_reference);
        }
    }
    double precision = 0, recall = 0;
    int orders = 0;
    for (std::size_t n = 0; n < kOrders; ++n) {
        if (hypothesis_grams[n] == 0 || reference_grams[n] == 0) continue;
        precision += static_cast<double>(matches[n]) / static_cast<double>(hypothesis_grams[n]);
        recall += static_cast<double>(matches[n]) / static_cast<double>(reference_grams[n]);
        ++orders;
    }
    if (orders == 0) return 0;
    precision /= orders, recall /= orders;
    if (precision + recall == 0) return 0;
    return 100 * (1 + kBetaSquared) * precision * recall / (kBetaSquared * precision + recall);
}

BleuCounts bleu_counts(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    require_pairs(hypotheses, references);
    BleuCounts counts;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        const std::vector<std::string> hypothesis = whitespace_tokens(hypotheses[i]);
        const std::vector<std::string> reference = whitespace_tokens(references[i]);
        counts.hypothesis_length += static_cast<int64_t>(hypothesis.size());
        counts.reference_length += static_cast<int64_t>(reference.size());
        for (std::size_t n = 1; n <= 4; ++n) {
            const Ngrams in_hypothesis = ngram_counts(hypothesis, n);
            counts.matches[n - 1] += clipped_matches(in_hypothesis, ngram_counts(reference, n));
            counts.totals[n - 1] += total(in_hypothesis);
        }
    }
    return counts;
}

// BLEU = BP · exp(¼ Σ_n log p_n), p_n = matches_n / totals_n, BP = exp(1 − r/c) when c < r, else 1.
double bleu_from_counts(const BleuCounts& counts) {
    double log_precision = 0;
    for (int n = 0; n < 4; ++n) {
        if (counts.matches[n] == 0) return 0;   // no smoothing: log 0 makes the geometric mean 0
        log_precision += std::log(static_cast<double>(counts.matches[n]) / static_cast<double>(counts.totals[n])) / 4;
    }
    const auto c = static_cast<double>(counts.hypothesis_length), r = static_cast<double>(counts.reference_length);
    const double brevity_penalty = c < r ? std::exp(1 - r / c) : 1.0;
    return 100 * brevity_penalty * std::exp(log_precision);
}

double corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    return bleu_from_counts(bleu_counts(hypotheses, references));
}

TextScores score_texts(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    return {exact_match_rate(hypotheses, references), character_error_rate(hypotheses, references),
            chrf(hypotheses, references), corpus_bleu(hypotheses, references)};
}

}  // namespace tf::train
