// The reference workloads as model configs, random batches, and the timed training and decoding loops.
#include "analysis/machine/throughput.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "analysis/machine/decode_bytes.h"
#include "analysis/machine/read_bandwidth.h"
#include "autograd/error.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/storage.h"
#include "autograd/tape.h"
#include "train/optimizer.h"
#include "datasets/tokenizer.h"

namespace tf::analysis {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// W1 (nn.Transformer, post-LN, ReLU, sinusoidal × √C, final encoder/decoder norms) and
// W4 (GPT: pre-LN, GELU, learned positions, final norm); dropout 0 in both.
ModelConfig transformer_config(bool language_model, int64_t max_length) {
    ModelConfig config;
    config.type = language_model ? ModelKind::lm : ModelKind::transformer;
    config.max_length = max_length;
    TransformerOptions& t = config.transformer;
    t.d_model = 128, t.heads = 4, t.ffn_hidden = 512, t.dropout = 0.0, t.attention_dropout = 0.0, t.final_norm = true;
    t.encoder_layers = 2, t.decoder_layers = 2, t.layers = 4;
    t.norm_first = language_model;
    t.activation = language_model ? Activation::gelu : Activation::relu;
    t.positions = language_model ? PositionKind::learned : PositionKind::sinusoidal;
    t.scale_embeddings = !language_model;
    return config;
}

// W2 (GRU encoder, GRU-cell decoder with Bahdanau attention) and W3 (tanh RNN, no attention).
ModelConfig rnn_config(const std::string& cell, std::optional<std::string> attention) {
    ModelConfig config;
    config.type = ModelKind::rnn_seq2seq;
    config.rnn.cell = cell;
    config.rnn.embedding_size = 128, config.rnn.hidden_size = 128, config.rnn.num_layers = 1;
    config.rnn.attention = std::move(attention);
    config.rnn.dropout = 0.0;
    return config;
}

struct BenchBatch {
    ModelInput input;
    IndexTensor targets;  // (B, T)
};

// Random ids in [2, V) as the peer draws them. Seq2seq: src (B, T), tgt_in = <bos> + src[:, :−1],
// target = src. LM: a (B, T+1) sequence, input its first T ids, target its last T.
BenchBatch random_batch(bool language_model, int64_t B, int64_t T, Rng& rng) {
    const int64_t width = language_model ? T + 1 : T;
    std::vector<int64_t> ids(static_cast<std::size_t>(B * width));
    for (int64_t& id : ids) id = 2 + rng.below(kBenchVocab - 2);
    std::vector<int64_t> input, target;
    for (int64_t b = 0; b < B; ++b) {
        const int64_t* row = ids.data() + b * width;
        for (int64_t t = 0; t < T; ++t) {
            target.push_back(language_model ? row[t + 1] : row[t]);
            input.push_back(language_model ? row[t] : (t == 0 ? train::kBosId : row[t - 1]));
        }
    }
    BenchBatch batch;
    batch.input.tgt_in = IndexTensor(input, {B, T});
    batch.input.tgt_lengths.assign(static_cast<std::size_t>(B), T);
    batch.targets = IndexTensor(target, {B, T});
    if (!language_model) {
        batch.input.src = batch.targets;
        batch.input.src_lengths.assign(static_cast<std::size_t>(B), T);
    }
    return batch;
}

std::shared_ptr<SequenceModel> build_bench_model(const Workload& workload, uint64_t seed) {
    ModelBuildContext build;
    build.vocab_size = kBenchVocab;
    build.pad_id = train::kPadId;
    build.seed = seed;
    build.dropout_rng = std::make_shared<Rng>(seed);
    return build_model(workload.model, build);
}

int64_t parameter_count(const SequenceModel& model) {
    int64_t count = 0;
    for (const Tensor& p : model.parameters()) count += p.numel();
    return count;
}

// zero_grad, forward, cross-entropy, backward, Adam: the peer's train_step. Returns the loss.
double train_step(SequenceModel& model, train::Adam& adam, const BenchBatch& batch) {
    adam.zero_grad();
    Tape::current().clear();
    const Tensor logits = model.forward(batch.input);  // (B, T, V)
    const Tensor loss = cross_entropy(logits, batch.targets);
    const double value = loss.item();
    Tape::current().backward(loss);
    adam.step(1e-3);
    return value;
}

}  // namespace

std::vector<Workload> reference_workloads() {
    return {{"W1", transformer_config(false, 512), 32, 64},
            {"W2", rnn_config("gru", "additive"), 32, 64},
            {"W3", rnn_config("rnn", std::nullopt), 32, 64},
            {"W4", transformer_config(true, 128), 16, 128}};
}

Workload reference_workload(const std::string& name) {
    for (Workload& workload : reference_workloads())
        if (workload.name == name) return workload;
    throw ValueError("bench: unknown workload \"" + name + "\" (known: W1, W2, W3, W4)");
}

TimingStats timing_stats(std::vector<double> seconds) {
    if (seconds.empty()) return {};
    std::sort(seconds.begin(), seconds.end());
    const std::size_t n = seconds.size();
    const double median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
    return {median, seconds.front(), seconds.back()};
}

TrainingThroughput measure_training(const Workload& workload, const ThroughputOptions& options) {
    const bool lm = workload.model.is_language_model();
    auto model = build_bench_model(workload, options.seed);
    model->train();
    train::Adam adam(model->named_parameters(), train::AdamOptions{});
    Rng rng(options.seed + 1);
    std::vector<BenchBatch> batches;
    for (int i = 0; i < 8; ++i) batches.push_back(random_batch(lm, workload.batch, workload.length, rng));

    TrainingThroughput result;
    result.workload = workload.name;
    result.batch = workload.batch, result.length = workload.length;
    result.parameters = parameter_count(*model);
    result.threads = kernels::num_threads();
    kernels::reset_gemm_flop_count();
    result.loss_first = train_step(*model, adam, batches[0]);
    result.matmul_flops_per_step = static_cast<double>(kernels::gemm_flop_count());
    for (int i = 0; i < options.warmup; ++i) train_step(*model, adam, batches[(i + 1) % batches.size()]);

    const int64_t live_before = memory::live_bytes();
    memory::reset_peak();
    std::vector<double> times, product_shares, product_gflops;
    for (int i = 0; i < options.steps; ++i) {
        kernels::reset_gemm_product_time();
        const auto start = Clock::now();
        result.loss_last = train_step(*model, adam, batches[i % batches.size()]);
        times.push_back(seconds_since(start));
        const kernels::ProductTime products = kernels::gemm_product_time();
        product_shares.push_back(products.seconds / times.back());
        if (products.seconds > 0) product_gflops.push_back(double(products.flops) / products.seconds / 1e9);
    }
    // Medians over the steps, as for the step time: a step the machine interrupted moves neither.
    result.matmul_time_share = timing_stats(product_shares).median;
    result.matmul_own_gflops = timing_stats(product_gflops).median;
    if (options.peak_gflops > 0) result.mfu_ceiling = result.matmul_own_gflops / options.peak_gflops;
    if (options.bf16_roof_gflops > 0) result.mfu_ceiling_bf16 = result.matmul_own_gflops / options.bf16_roof_gflops;
    result.peak_bytes = memory::peak_bytes();
    result.peak_bytes_above_start = result.peak_bytes - live_before;
    result.step = timing_stats(times);
    if (result.step.median > 0) {
        result.tokens_per_second = double(workload.batch * workload.length) / result.step.median;
        result.matmul_gflops = result.matmul_flops_per_step / result.step.median / 1e9;
    }
    if (options.peak_gflops > 0) result.mfu = result.matmul_gflops / options.peak_gflops;
    if (options.bf16_roof_gflops > 0) result.mfu_bf16 = result.matmul_gflops / options.bf16_roof_gflops;
    return result;
}

DecodingThroughput measure_decoding(const Workload& workload, int64_t generated, int runs, DecodeCache cache,
                                    double read_bandwidth_gbs) {
    auto model = build_bench_model(workload, 0);
    model->eval();
    NoGradGuard no_grad;
    Rng rng(1);
    const BenchBatch source = random_batch(workload.model.is_language_model(), 1, workload.length, rng);
    int64_t state_bytes = 0;
    auto decode_once = [&] {
        DecodeState state = model->begin_decode(source.input, cache);
        std::vector<int64_t> prefix{train::kBosId};
        for (int64_t i = 0; i < generated; ++i) {
            const Tensor logits = model->decode_step(state, IndexTensor(prefix, {1, int64_t(prefix.size())}));  // (1, V)
            prefix.push_back(argmax(logits).values[0]);
        }
        state_bytes = 0;
        for (const Tensor* tensor : state.model_state->batch_tensors())
            if (tensor->defined()) state_bytes += static_cast<int64_t>(tensor->bytes());
    };
    for (int i = 0; i < 2; ++i) decode_once();
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = Clock::now();
        decode_once();
        times.push_back(seconds_since(start));
    }
    DecodingThroughput result;
    result.workload = workload.name;
    result.source_length = workload.model.is_language_model() ? 0 : workload.length, result.generated = generated;
    result.threads = kernels::num_threads();
    result.cache = cache, result.state_bytes = state_bytes;
    result.run = timing_stats(times);
    if (result.run.median > 0) result.tokens_per_second = double(generated) / result.run.median;
    result.bytes_per_token = double(step_weight_bytes(*model)) +
                             mean_step_state_bytes(workload.model, result.source_length, generated, state_bytes);
    result.bandwidth_fraction = bandwidth_fraction(result.bytes_per_token, result.tokens_per_second, read_bandwidth_gbs);
    if (read_bandwidth_gbs > 0) {
        // A buffer this small is summed in microseconds: more attempts, the best one counts.
        result.working_set_gbs = analysis::read_bandwidth_gbs({.bytes = static_cast<int64_t>(result.bytes_per_token), .attempts = 50});
        result.working_set_fraction = bandwidth_fraction(result.bytes_per_token, result.tokens_per_second, result.working_set_gbs);
    }
    return result;
}

}  // namespace tf::analysis
