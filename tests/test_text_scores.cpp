// Scores of decoded text: edit distance and CER, exact match, chrF and BLEU against hand-worked
// cases (docs/math/text_scores.md), published values (Papineni et al. 2002's "the" example;
// sacreBLEU's chrF test cases in its effective-order mode, which is ours), an independent
// implementation (NLTK 3.8's corpus_bleu, which agrees with the hand-worked cases), and the edge
// cases whose values the docs promise: an empty hypothesis, one shorter than 4 tokens, a perfect match.
#include "catch.h"

#include <cmath>

#include "autograd/error.h"
#include "decoding/text_scores.h"
#include "datasets/tokenizer.h"

using namespace tf;
using namespace tf::train;

TEST_CASE("edit distance counts the fewest insertions, deletions and substitutions, over code points", "[unit]") {
    const auto distance = [](const std::string& from, const std::string& to) {
        return edit_distance(split_chars(from), split_chars(to));
    };
    CHECK(distance("kitten", "sitting") == 3);   // k→s, e→i, +g
    CHECK(distance("", "abc") == 3);
    CHECK(distance("abc", "") == 3);
    CHECK(distance("flaw", "lawn") == 2);
    CHECK(distance("same", "same") == 0);
    // "café" is 4 characters in 5 bytes: one substitution, not two byte edits.
    CHECK(distance("café", "cafe") == 1);
    CHECK(character_error_rate({"cafe"}, {"café"}) == Approx(1.0 / 4.0));
    // A byte that is not UTF-8 is one character of its own.
    CHECK(distance(std::string("a\xff") + "b", "ab") == 1);
}

TEST_CASE("CER is the corpus's edits over its reference characters, exact match the share of equal lines", "[unit]") {
    CHECK(character_error_rate({"kitten", ""}, {"sitting", "ab"}) == Approx(5.0 / 9.0));   // (3 + 2) / (7 + 2)
    CHECK(character_error_rate({"abc"}, {"abc"}) == 0.0);
    CHECK(std::isnan(character_error_rate({"x"}, {""})));   // no reference characters: no rate
    CHECK(exact_match_rate({"a b", "c"}, {"a b", "d"}) == 0.5);
    CHECK(std::isnan(exact_match_rate({}, {})));
    CHECK_THROWS_AS(exact_match_rate({"a"}, {"a", "b"}), ValueError);   // each hypothesis needs its reference
}

TEST_CASE("BLEU clips each n-gram at its count in the reference: Papineni et al. 2002's 'the' example", "[unit]") {
    const BleuCounts counts = bleu_counts({"the the the the the the the"}, {"the cat is on the mat"});
    CHECK(counts.matches[0] == 2);   // p_1 = 2/7, the paper's modified unigram precision
    CHECK(counts.totals[0] == 7);
    CHECK(counts.matches[1] == 0);
    CHECK(corpus_bleu({"the the the the the the the"}, {"the cat is on the mat"}) == 0.0);
}

TEST_CASE("BLEU on hand-worked cases and an independent implementation, to 4 decimals", "[unit]") {
    // p = 5/6, 3/5, 2/4, 1/3 and BP = 1: 100 · (1/12)^(1/4) (NLTK: 53.7284965911771).
    const BleuCounts counts = bleu_counts({"the cat sat on the mat"}, {"the cat sat on a mat"});
    CHECK(counts.matches[0] == 5);
    CHECK(counts.totals[0] == 6);
    CHECK(counts.matches[3] == 1);
    CHECK(counts.totals[3] == 3);
    CHECK(corpus_bleu({"the cat sat on the mat"}, {"the cat sat on a mat"}) == Approx(53.7285).margin(5e-5));
    // Every n-gram right but half the length: BP = exp(1 − 10/5) (NLTK: 36.787944117144235).
    CHECK(corpus_bleu({"a b c d e"}, {"a b c d e f g h i j"}) == Approx(100 * std::exp(-1.0)).margin(5e-5));
    // Corpus BLEU sums the counts over lines before dividing (NLTK 3.8 corpus_bleu: 70.677507).
    CHECK(corpus_bleu({"the quick brown fox jumps over the lazy dog", "a stitch in time saves nine",
                       "to be or not to be that is the question"},
                      {"the quick brown fox jumped over the lazy dog", "a stitch in time saves nine lives",
                       "to be or not to be , that is the question"}) == Approx(70.6775).margin(5e-5));
}

TEST_CASE("chrF averages character n-gram precision and recall over orders 1-6, then F with beta = 2", "[unit]") {
    // "ab" against "abc": P_1 = 1, R_1 = 2/3; P_2 = 1, R_2 = 1/2; no trigram in "ab". P = 1, R = 7/12:
    // 100 · 5 · (7/12) / (4 + 7/12) = 100 · 35/55.
    CHECK(chrf({"ab"}, {"abc"}) == Approx(100.0 * 35.0 / 55.0).margin(5e-5));
    // sacreBLEU's tests (corpus_chrf with eps_smoothing=False), values that P = R makes the same for any β.
    CHECK(chrf({"a"}, {"a"}) == Approx(100.0));
    CHECK(chrf({""}, {"reference"}) == 0.0);
    CHECK(chrf({"a b c"}, {"a b c"}) == Approx(100.0));
    CHECK(chrf({"a b c"}, {"abc"}) == Approx(100.0));   // whitespace is removed
    CHECK(chrf({""}, {"c"}) == 0.0);
    CHECK(chrf({"a", "b"}, {"a", "c"}) == Approx(50.0));
    CHECK(chrf({"aa"}, {"ab"}) == Approx(25.0));
}

TEST_CASE("the documented edge values: empty hypotheses, ones shorter than 4 tokens, a perfect match", "[unit]") {
    const TextScores empty = score_texts({"", ""}, {"a cat", "sat"});
    CHECK(empty.exact_match == 0.0);
    CHECK(empty.cer == 1.0);   // every reference character deleted
    CHECK(empty.chrf == 0.0);
    CHECK(empty.bleu == 0.0);
    // Three tokens have no 4-gram: p_4 has nothing to count, and unsmoothed BLEU is 0.
    const TextScores short_line = score_texts({"the cat sat"}, {"the cat sat"});
    CHECK(short_line.bleu == 0.0);
    CHECK(short_line.exact_match == 1.0);
    CHECK(short_line.chrf == Approx(100.0));
    const TextScores perfect = score_texts({"to be or not to be", "that is the question"},
                                           {"to be or not to be", "that is the question"});
    CHECK(perfect.exact_match == 1.0);
    CHECK(perfect.cer == 0.0);
    CHECK(perfect.chrf == Approx(100.0));
    CHECK(perfect.bleu == Approx(100.0));
}

TEST_CASE("hypotheses and references are not interchangeable: swapping them changes BLEU and chrF", "[property]") {
    // The recurring bug of swapped arguments shows here: precision and recall trade places.
    const std::vector<std::string> shorter{"the cat sat on the mat"}, longer{"the cat sat on the mat today"};
    // By hand: the 6-word hypothesis matches every n-gram (precisions 1) but is short of the
    // 7-word reference, BP = e^(1 − 7/6); the 7-word one has precisions 6/7, 5/6, 4/5, 3/4 and BP 1.
    CHECK(corpus_bleu(shorter, longer) == Approx(100.0 * std::exp(1.0 - 7.0 / 6.0)));
    CHECK(corpus_bleu(longer, shorter) == Approx(100.0 * std::pow(6.0 / 7 * 5.0 / 6 * 4.0 / 5 * 3.0 / 4, 0.25)));
    CHECK(corpus_bleu(longer, shorter) < corpus_bleu(shorter, longer) - 1.0);
    CHECK(chrf(shorter, longer) != Approx(chrf(longer, shorter)));
    CHECK(chrf(shorter, longer) < chrf(longer, shorter));   // β = 2 weighs recall: missing text costs more
}
