// Scores of decoded text against its reference, over a corpus, with the standard definitions, so
// the numbers mean what they mean in the papers and in sacreBLEU:
//   - exact match: the share of hypotheses equal to their reference;
//   - character error rate (CER): Levenshtein edits over characters (Unicode code points), summed
//     over the corpus, over the reference characters;
//   - chrF (Popović 2015): character n-grams of orders 1–6, whitespace removed, counts summed over
//     the corpus; precision and recall averaged over the orders both sides have, then F_β with
//     β = 2 (recall weighted twice), on 0–100 — sacreBLEU's chrF defaults;
//   - BLEU (Papineni et al. 2002): clipped n-gram precisions p_1…p_4 over whitespace-separated
//     tokens, summed over the corpus, their geometric mean times the brevity penalty
//     BP = min(1, exp(1 − r/c)) (r reference tokens, c hypothesis tokens), on 0–100; no smoothing,
//     so a corpus without one matching n-gram of some order scores 0 — sacreBLEU with
//     tokenize="none" and smooth_method="none". docs/math/text_scores.md works the examples.
// Every function takes hypotheses and references in the same order: hypothesis i is scored
// against reference i, and different sizes are an error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tf::train {

// The fewest insertions, deletions and substitutions that turn `from` into `to`: sequences of
// characters as split_chars gives them (datasets/tokenizer.h: UTF-8 code points, a malformed byte
// one character of its own).
int64_t edit_distance(const std::vector<std::string>& from, const std::vector<std::string>& to);

double exact_match_rate(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);
// Total edits over total reference characters; NaN when the references have no characters.
double character_error_rate(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);
double chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);
double corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

// BLEU's parts, for the report and the tests: p_n as matches / hypothesis n-grams per order, and
// the lengths the brevity penalty compares.
struct BleuCounts {
    int64_t matches[4] = {0, 0, 0, 0};   // clipped: an n-gram counts at most as often as the reference has it
    int64_t totals[4] = {0, 0, 0, 0};    // the hypotheses' n-grams of order n + 1
    int64_t hypothesis_length = 0, reference_length = 0;
};
BleuCounts bleu_counts(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);
double bleu_from_counts(const BleuCounts& counts);

struct TextScores {
    double exact_match = 0, cer = 0, chrf = 0, bleu = 0;
};
TextScores score_texts(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace tf::train
