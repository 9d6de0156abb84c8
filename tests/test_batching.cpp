// Batching: padding, <bos>/<eos> placement, masks and lengths; the Batcher's epochs (each
// example exactly once, with or without bucketing) and its save/restore continuation.
#include "catch.h"
#include <map>

#include "datasets/batching.h"

using namespace tf;
using namespace tf::train;

namespace {

// Examples whose src length is 1 + (i mod 7) and whose first id encodes i (for identification).
std::vector<Example> numbered_examples(int64_t count) {
    std::vector<Example> examples;
    for (int64_t i = 0; i < count; ++i) {
        std::vector<int64_t> src(static_cast<std::size_t>(1 + i % 7), 5);
        src[0] = 100 + i;
        examples.push_back({src, {7, 8}});
    }
    return examples;
}

std::vector<int64_t> row(const IndexTensor& tensor, int64_t b) {
    const int64_t width = tensor.shape[1];
    return {tensor.values.begin() + b * width, tensor.values.begin() + (b + 1) * width};
}

std::vector<std::vector<int64_t>> first_ids(Batcher& batcher, int64_t batches) {
    std::vector<std::vector<int64_t>> seen;
    for (int64_t i = 0; i < batches; ++i) {
        const Batch batch = batcher.next();
        seen.push_back({});
        for (int64_t b = 0; b < batch.size(); ++b) seen.back().push_back(row(batch.src, b)[0]);
    }
    return seen;
}

}  // namespace

TEST_CASE("a seq2seq batch is padded with 0 and framed by <bos> and <eos>", "[unit]") {
    const std::vector<Example> examples{{{4, 5, 6}, {7}}, {{8}, {9, 10, 11}}};
    const Batch batch = make_batch(examples, {0, 1}, /*lm=*/false);
    CHECK(batch.src.shape == Shape{2, 3});
    CHECK(batch.src.values == std::vector<int64_t>{4, 5, 6, 8, kPadId, kPadId});
    CHECK(batch.tgt_in.shape == Shape{2, 4});
    CHECK(row(batch.tgt_in, 0) == std::vector<int64_t>{kBosId, 7, kPadId, kPadId});
    CHECK(row(batch.tgt_in, 1) == std::vector<int64_t>{kBosId, 9, 10, 11});
    CHECK(row(batch.tgt_out, 0) == std::vector<int64_t>{7, kEosId, kPadId, kPadId});
    CHECK(row(batch.tgt_out, 1) == std::vector<int64_t>{9, 10, 11, kEosId});
    CHECK(batch.src_lengths == std::vector<int64_t>{3, 1});
    CHECK(batch.tgt_lengths == std::vector<int64_t>{2, 4});
    CHECK(batch.tokens == 6);
}

TEST_CASE("padding masks are 1 exactly where the ids are <pad>", "[unit]") {
    const std::vector<Example> examples{{{4, 5, 6}, {7}}, {{8}, {9, 10, 11}}, {{4, 4}, {}}};
    const Batch batch = make_batch(examples, {2, 0, 1}, false);
    CHECK(batch.src_padding_mask.dtype() == DType::f32);
    CHECK(batch.src_padding_mask.to_vector() == std::vector<double>{0, 0, 1, 0, 0, 0, 0, 1, 1});
    CHECK(batch.tgt_padding_mask.to_vector() == std::vector<double>{0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0});
    for (std::size_t i = 0; i < batch.tgt_out.values.size(); ++i)
        CHECK((batch.tgt_out.values[i] == kPadId) == (batch.tgt_padding_mask.to_vector()[i] == 1.0));
}

TEST_CASE("an lm batch predicts the next token of <bos> x <eos> and has no source", "[unit]") {
    const std::vector<Example> examples{{{4, 5, 6}, {}}, {{7}, {}}};
    const Batch batch = make_batch(examples, {0, 1}, /*lm=*/true);
    CHECK(batch.src.shape == Shape{2, 0});
    CHECK(batch.src_lengths == std::vector<int64_t>{0, 0});
    CHECK(batch.tgt_in.values == std::vector<int64_t>{kBosId, 4, 5, 6, kBosId, 7, kPadId, kPadId});
    CHECK(batch.tgt_out.values == std::vector<int64_t>{4, 5, 6, kEosId, 7, kEosId, kPadId, kPadId});
    CHECK(batch.tgt_lengths == std::vector<int64_t>{4, 2});
    CHECK(batch.tokens == 6);
}

TEST_CASE("evaluation batches cover the split once, in order", "[unit]") {
    const auto examples = numbered_examples(10);
    const auto batches = evaluation_batches(examples, 4, false);
    REQUIRE(batches.size() == 3);
    CHECK(batches[2].size() == 2);
    int64_t next = 100;
    for (const Batch& batch : batches)
        for (int64_t b = 0; b < batch.size(); ++b) CHECK(row(batch.src, b)[0] == next++);
}

TEST_CASE("every epoch serves each example exactly once, bucketed or not", "[unit]") {
    const auto examples = numbered_examples(103);
    for (const bool bucket : {false, true}) {
        Batcher batcher(examples, {.batch_size = 8, .bucket = bucket, .bucket_batches = 3, .seed = 4});
        CHECK(batcher.batches_per_epoch() == 13);
        for (int epoch = 0; epoch < 2; ++epoch) {
            std::map<int64_t, int> count;
            for (const auto& batch : first_ids(batcher, 13))
                for (const int64_t id : batch) ++count[id];
            CHECK(count.size() == 103);
            for (const auto& [id, times] : count) REQUIRE(times == 1);
        }
        CHECK(batcher.epoch() == 1);
    }
}

TEST_CASE("epochs are shuffled differently, the same seed gives the same batches", "[unit]") {
    const auto examples = numbered_examples(40);
    Batcher a(examples, {.batch_size = 5, .seed = 3}), b(examples, {.batch_size = 5, .seed = 3});
    const auto first_epoch = first_ids(a, 8), second_epoch = first_ids(a, 8);
    CHECK(first_epoch != second_epoch);
    CHECK(first_ids(b, 8) == first_epoch);
    Batcher ordered(examples, {.batch_size = 5, .shuffle = false});
    CHECK(first_ids(ordered, 1)[0] == std::vector<int64_t>{100, 101, 102, 103, 104});
}

TEST_CASE("bucketing makes batches of similar length", "[unit]") {
    const auto examples = numbered_examples(700);  // src lengths 1..7, evenly
    const auto padding = [&](bool bucket) {
        Batcher batcher(examples, {.batch_size = 10, .bucket = bucket, .bucket_batches = 70, .seed = 1});
        int64_t pads = 0;
        for (int64_t i = 0; i < batcher.batches_per_epoch(); ++i) {
            const Batch batch = batcher.next();
            for (const int64_t id : batch.src.values) pads += id == kPadId;
        }
        return pads;
    };
    CHECK(padding(true) == 0);  // one chunk holds the whole split, 100 of each length
    CHECK(padding(false) > 1000);
}

TEST_CASE("a restored Batcher continues with exactly the same batches", "[unit]") {
    const auto examples = numbered_examples(37);
    for (const bool bucket : {false, true}) {
        const BatcherOptions options{.batch_size = 4, .bucket = bucket, .bucket_batches = 2, .seed = 11};
        Batcher original(examples, options);
        first_ids(original, 14);  // into the second epoch (10 batches each)
        const BatcherState saved = BatcherState::from_json(original.state().to_json(), "state.json");
        CHECK(saved == original.state());
        Batcher resumed(examples, options);
        resumed.restore(saved);
        CHECK(resumed.epoch() == 1);
        CHECK(first_ids(resumed, 25) == first_ids(original, 25));
    }
}

TEST_CASE("a state saved at the end of an epoch resumes into the next one", "[unit]") {
    const auto examples = numbered_examples(12);
    Batcher original(examples, {.batch_size = 4, .seed = 2});
    first_ids(original, 3);
    Batcher resumed(examples, {.batch_size = 4, .seed = 2});
    resumed.restore(original.state());
    CHECK(first_ids(resumed, 5) == first_ids(original, 5));
    CHECK(resumed.epoch() == 2);
}

TEST_CASE("a malformed Batcher state is an error naming the source and field", "[unit]") {
    nlohmann::json state = BatcherState{}.to_json();
    state["rng"][2] = "0x12";
    CHECK_THROWS_WITH(BatcherState::from_json(state, "ckpt.json"), Catch::StartsWith("ckpt.json: batcher state: rng:"));
    state = BatcherState{}.to_json();
    state["position"] = -1;
    CHECK_THROWS_WITH(BatcherState::from_json(state, "ckpt.json"), Catch::StartsWith("ckpt.json: batcher state: position:"));
    Batcher batcher(numbered_examples(8), {.batch_size = 4});
    CHECK_THROWS_AS(batcher.restore(BatcherState{0, 3, {}}), ValueError);
}
