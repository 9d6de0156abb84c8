// Incremental decoding (layers/step_cache.h): a decoder with a key/value cache gives the logits of
// re-running the whole prefix at every step, for every kind of block, position and attention
// pattern; the decoders built on it (greedy, beam, sampling) give the same outputs either way.
#include "catch.h"

#include <algorithm>
#include <cmath>

#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "models/build.h"
#include "decoding/decoding.h"

using namespace tf;

namespace {

constexpr int64_t kVocab = 13;

std::shared_ptr<SequenceModel> model_from(const config::Json& section) {
    config::JsonReader reader(section, "model");
    ModelBuildContext build;
    build.vocab_size = kVocab;
    build.max_length = 40;
    build.seed = 7;
    auto model = build_model(read_model_config(reader), build);
    model->eval();
    return model;
}

config::Json lm(config::Json extra = config::Json::object()) {
    config::Json section = {{"type", "lm"}, {"d_model", 16}, {"heads", 4}, {"layers", 2}, {"max_length", 40}, {"dropout", 0.0}};
    for (auto& [key, value] : extra.items()) section[key] = value;
    return section;
}

config::Json seq2seq(config::Json extra = config::Json::object()) {
    config::Json section = {{"type", "transformer"}, {"d_model", 16}, {"heads", 4}, {"encoder_layers", 2},
                            {"decoder_layers", 2}, {"max_length", 40}, {"dropout", 0.0}};
    for (auto& [key, value] : extra.items()) section[key] = value;
    return section;
}

config::Json attention(config::Json extra) {
    config::Json section = {{"type", "multi_head_attention"}, {"heads", 4}};
    for (auto& [key, value] : extra.items()) section[key] = value;
    return section;
}

// Two sources of lengths 6 and 4 (the second padded), or none for a language model.
ModelInput sources(const SequenceModel& model) {
    ModelInput input;
    if (model.is_language_model()) return input;
    input.src = IndexTensor({3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0}, {2, 6});
    input.src_lengths = {6, 4};
    input.src_padding_mask = Tensor::from_data({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, {2, 6});
    return input;
}

// max |a − b| over every element.
double largest_difference(const Tensor& a, const Tensor& b) {
    const std::vector<double> x = a.to_vector(), y = b.to_vector();
    double largest = 0;
    for (std::size_t i = 0; i < x.size(); ++i) largest = std::max(largest, std::abs(x[i] - y[i]));
    return largest;
}

// Feeds the same 12-token rows (<bos> first) to a cached and a re-running decode — the first step
// `first_step` tokens at once, as a prompt, then one per step — and returns the largest
// |cached − re-run| logit over every step.
double largest_cache_difference(SequenceModel& model, int64_t first_step = 1) {
    NoGradGuard no_grad;
    const ModelInput input = sources(model);
    const int64_t B = model.is_language_model() ? 1 : 2, T = 12;
    std::vector<int64_t> tokens;
    Rng rng(5);
    for (int64_t i = 0; i < B * T; ++i) tokens.push_back(i % T == 0 ? 1 : 3 + static_cast<int64_t>(rng.uniform() * 10));
    DecodeState cached = model.begin_decode(input, DecodeCache::on);
    DecodeState rerun = model.begin_decode(input, DecodeCache::off);
    double largest = 0;
    for (int64_t t = first_step; t <= T; ++t) {
        const IndexTensor prefix = token_columns(IndexTensor(tokens, {B, T}), 0, t);
        largest = std::max(largest, largest_difference(model.decode_step(cached, prefix), model.decode_step(rerun, prefix)));
    }
    return largest;
}

// The self-attention caches of a language model's blocks after `steps` one-token steps.
struct CacheAfter {
    std::vector<int64_t> lengths;  // positions each block's cache holds
    int64_t bytes = 0;             // what the caches have allocated
};

CacheAfter cache_after(SequenceModel& model, int64_t steps) {
    NoGradGuard no_grad;
    DecodeState state = model.begin_decode({}, DecodeCache::on);
    std::vector<int64_t> prefix = {1};
    for (int64_t t = 0; t < steps; ++t) {
        model.decode_step(state, IndexTensor(prefix, {1, static_cast<int64_t>(prefix.size())}));
        prefix.push_back(3 + t % 9);
    }
    CacheAfter after;
    auto& blocks = *dynamic_cast<LmDecodeState&>(*state.model_state).cache.blocks;
    for (const auto& block : blocks.parts)
        after.lengths.push_back(dynamic_cast<const KeyValueCache&>(*dynamic_cast<const StepCaches&>(*block).parts[0]).length);
    after.bytes = cache_bytes(blocks);
    return after;
}

}  // namespace

TEST_CASE("kv cache: a language model's cached logits equal re-running the prefix", "[property]") {
    const auto [name, section] = GENERATE(
        std::make_pair("learned positions", lm()),
        std::make_pair("sinusoidal positions", lm({{"positions", "sinusoidal"}})),
        std::make_pair("rotary positions", lm({{"self_attention", attention({{"rotary", true}})}})),
        std::make_pair("GQA, 2 key/value heads", lm({{"kv_heads", 2}})),
        std::make_pair("MQA, 1 key/value head", lm({{"kv_heads", 1}})),
        std::make_pair("sliding window of 3", lm({{"self_attention", attention({{"pattern", "sliding_window"}, {"window", 3}})}})),
        std::make_pair("strided sparse", lm({{"self_attention", attention({{"pattern", "strided"}, {"window", 2}, {"stride", 3},
                                                                             {"global_tokens", 1}})}})),
        std::make_pair("tiled kernel", lm({{"self_attention", attention({{"kernel", "tiled"}, {"query_tile", 2}, {"key_tile", 3}})}})),
        std::make_pair("linear kernel", lm({{"self_attention", attention({{"kernel", "linear"}})}})),
        std::make_pair("post-LN blocks", lm({{"norm_first", false}})),
        std::make_pair("SwiGLU feed-forward", lm({{"ffn", {{"type", "swiglu"}}}})),
        std::make_pair("a bare attention layer as the block", lm({{"block", attention({{"heads", 2}})}})));
    INFO(name);
    auto model = model_from(section);
    CHECK(largest_cache_difference(*model) <= 1e-5);
    CHECK(largest_cache_difference(*model, 5) <= 1e-5);  // a 5-token prompt in one step
}

TEST_CASE("kv cache: a transformer encoder-decoder's cached logits equal re-running the prefix", "[property]") {
    const auto [name, section] = GENERATE(
        std::make_pair("post-LN", seq2seq()),
        std::make_pair("pre-LN", seq2seq({{"norm_first", true}})),
        std::make_pair("GQA", seq2seq({{"kv_heads", 2}})),
        std::make_pair("tiled self-attention", seq2seq({{"self_attention", attention({{"kernel", "tiled"}, {"query_tile", 3}})}})),
        std::make_pair("rotary self-attention", seq2seq({{"self_attention", attention({{"rotary", true}})}})));
    INFO(name);
    auto model = model_from(section);
    CHECK(largest_cache_difference(*model) <= 1e-5);
}

TEST_CASE("kv cache: a sliding window keeps only its window, GQA and MQA only their key/value heads", "[unit]") {
    auto window = model_from(lm({{"self_attention", attention({{"pattern", "sliding_window"}, {"window", 3}})}}));
    CHECK(cache_after(*window, 10).lengths == std::vector<int64_t>{2, 2});  // the next query sees these and itself
    CHECK(cache_after(*window, 40).bytes == cache_after(*window, 10).bytes);  // O(window), whatever the length
    auto full = model_from(lm());
    CHECK(cache_after(*full, 10).lengths == std::vector<int64_t>{10, 10});
    CHECK(cache_after(*full, 40).bytes > cache_after(*full, 10).bytes);
    // 4 query heads: 2 key/value heads hold half the bytes, 1 a quarter
    auto gqa = model_from(lm({{"kv_heads", 2}}));
    auto mqa = model_from(lm({{"kv_heads", 1}}));
    CHECK(2 * cache_after(*gqa, 10).bytes == cache_after(*full, 10).bytes);
    CHECK(4 * cache_after(*mqa, 10).bytes == cache_after(*full, 10).bytes);
}

TEST_CASE("kv cache: attention read in place equals the readable path over the copied keys and values", "[property]") {
    // Decoding takes the in-place loop; ReferenceKernels makes the layer copy the held positions out
    // and run its own kernel with the mask, as forward does.
    const auto section = GENERATE(lm(), lm({{"kv_heads", 1}}),
                                  lm({{"self_attention", attention({{"pattern", "sliding_window"}, {"window", 4}})}}));
    auto model = model_from(section);
    NoGradGuard no_grad;
    DecodeState fast = model->begin_decode({}, DecodeCache::on);
    DecodeState readable = model->begin_decode({}, DecodeCache::on);
    std::vector<int64_t> prefix = {1, 5, 6};
    for (int64_t t = 0; t < 9; ++t) {
        const IndexTensor ids(prefix, {1, static_cast<int64_t>(prefix.size())});
        const Tensor a = model->decode_step(fast, ids);
        Tensor b;
        {
            kernels::ReferenceKernels use_reference_loops;
            b = model->decode_step(readable, ids);
        }
        CHECK(largest_difference(a, b) <= 1e-5);
        prefix.push_back(3 + t % 7);
    }
}

TEST_CASE("kv cache: a block that cannot cache re-runs the prefix, or is refused when the cache is asked for", "[unit]") {
    auto conv = model_from(lm({{"block", {{"type", "local_conv_mixer"}, {"kernel_size", 3}}}}));
    NoGradGuard no_grad;
    try {
        conv->begin_decode({}, DecodeCache::on);
        FAIL("DecodeCache::on accepted a block without a cache");
    } catch (const ValueError& error) {
        CHECK_THAT(error.what(), Catch::Contains("blocks.layers.0 cannot decode incrementally"));
        CHECK_THAT(error.what(), Catch::Contains("\"auto\""));
    }
    DecodeState automatic = conv->begin_decode({}, DecodeCache::automatic);
    CHECK(automatic.model_state->batch_tensors().empty());  // nothing cached: the prefix is re-run
    const IndexTensor prefix({1, 4, 5, 6}, {1, 4});
    ModelInput whole;
    whole.tgt_in = prefix;
    const Tensor expected = slice(conv->forward(whole), 1, 3, 4);  // (1, 1, V): the last position
    CHECK(conv->decode_step(automatic, prefix).to_vector() == expected.to_vector());
}

TEST_CASE("kv cache: a step must extend the prefix the cache has seen", "[unit]") {
    auto model = model_from(lm());
    NoGradGuard no_grad;
    DecodeState state = model->begin_decode({}, DecodeCache::on);
    model->decode_step(state, IndexTensor({1, 4, 5}, {1, 3}));
    REQUIRE_THROWS_AS(model->decode_step(state, IndexTensor({1, 4}, {1, 2})), ValueError);
}

TEST_CASE("decoding with the cache: greedy, beam and sampling give what re-running the prefix gives", "[integration]") {
    auto model = model_from(seq2seq());
    const ModelInput input = sources(*model);
    train::DecodeOptions cached{.max_length = 10}, rerun{.max_length = 10};
    rerun.cache = DecodeCache::off;
    const auto greedy = train::greedy_decode(*model, input, cached);
    CHECK(greedy == train::greedy_decode(*model, input, rerun));
    CHECK(train::beam_search(*model, input, cached, {3, 0.6}) == train::beam_search(*model, input, rerun, {3, 0.6}));
    // beam width 1 keeps the argmax at every step: greedy decoding
    CHECK(train::beam_search(*model, input, cached, {1, 0.6}) == greedy);

    auto language = model_from(lm());
    const train::SampleOptions sample{.temperature = 1.5, .top_k = 8, .top_p = 0.9};
    Rng first(4), second(4), third(4);
    const auto sampled = train::sample_continuation(*language, {5, 6}, cached, sample, first);
    CHECK(sampled.size() > 0);
    CHECK(sampled == train::sample_continuation(*language, {5, 6}, cached, sample, second));  // a fixed seed repeats
    CHECK(sampled == train::sample_continuation(*language, {5, 6}, rerun, sample, third));
}

TEST_CASE("batched greedy decoding: inputs of different lengths decode as each alone", "[integration]") {
    auto model = model_from(seq2seq());
    const ModelInput both = sources(*model);
    const train::DecodeOptions options{.max_length = 10};
    std::vector<int64_t> finished_order;
    const auto together = train::greedy_decode(*model, both, options,
                                               [&](int64_t item, const std::vector<int64_t>&) { finished_order.push_back(item); });
    for (int64_t row : {0, 1}) CHECK(train::greedy_decode(*model, train::select_batch_rows(both, {row}), options)[0] == together[row]);
    std::sort(finished_order.begin(), finished_order.end());
    CHECK(finished_order == std::vector<int64_t>{0, 1});  // each item reported once
}

TEST_CASE("sampling: top-p keeps the smallest head of the distribution that reaches p", "[unit]") {
    auto model = model_from(lm());
    const train::DecodeOptions options{.max_length = 6};
    // p → 0 keeps only the most likely token: the greedy continuation, whatever the seed.
    Rng a(1), b(2);
    const auto nucleus_a = train::sample_continuation(*model, {5}, options, {.top_p = 1e-9}, a);
    const auto nucleus_b = train::sample_continuation(*model, {5}, options, {.top_p = 1e-9}, b);
    CHECK(nucleus_a == nucleus_b);
    Rng c(3);
    CHECK(nucleus_a == train::sample_continuation(*model, {5}, options, {.top_k = 1}, c));
    for (const double bad : {0.0, -0.5, 1.5, std::nan("")}) {
        Rng rng(1);
        CHECK_THROWS_AS(train::sample_continuation(*model, {5}, options, {.top_p = bad}, rng), ValueError);
        CHECK_FALSE(train::sample_options_problem({.top_p = bad}).empty());
    }
    CHECK(train::sample_options_problem({.top_p = 1.0}).empty());
}
