// The benchmark library behind `tapeformer bench`: the gemm FLOP counter, the reference workloads
// against the PyTorch peer's models, the timed loops' bookkeeping, and the scaling report files.
#include "catch.h"

#include <omp.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "analysis/machine/bench_report.h"
#include "analysis/machine/decode_bytes.h"
#include "analysis/machine/matmul_roof.h"
#include "analysis/machine/read_bandwidth.h"
#include "autograd/kernels/matmul_precision.h"
#include "autograd/kernels/gemm.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "run_helpers.h"
#include "util/files.h"
#include "xml_check.h"

using namespace tf;

namespace {

constexpr double kMiBytes = 1024.0 * 1024.0;

int64_t parameter_count(const analysis::Workload& workload) {
    ModelBuildContext build;
    build.vocab_size = analysis::kBenchVocab;
    build.dropout_rng = std::make_shared<Rng>(0);
    int64_t count = 0;
    for (const Tensor& p : build_model(workload.model, build)->parameters()) count += p.numel();
    return count;
}

// A transformer small enough to train a few steps in milliseconds.
analysis::Workload tiny_workload(bool language_model) {
    analysis::Workload workload = analysis::reference_workload(language_model ? "W4" : "W1");
    workload.model.transformer.d_model = 16;
    workload.model.transformer.ffn_hidden = 32;
    workload.batch = 3, workload.length = 7;
    return workload;
}

}  // namespace

TEST_CASE("the gemm FLOP counter adds 2·M·N·K per multiply, forward and backward", "[unit]") {
    Rng rng(3);
    Tensor a = Tensor::uniform({3, 4}, -1, 1, rng).set_requires_grad();
    Tensor b = Tensor::uniform({4, 5}, -1, 1, rng).set_requires_grad();
    Tape::current().clear();
    kernels::reset_gemm_flop_count();
    const Tensor c = matmul(a, b);
    CHECK(kernels::gemm_flop_count() == 2 * 3 * 5 * 4);
    Tape::current().backward(sum(c));
    CHECK(kernels::gemm_flop_count() == 3 * (2 * 3 * 5 * 4));  // dA = dC·Bᵀ and dB = Aᵀ·dC: the same work each
}

TEST_CASE("the product clock times the products called outside a parallel region, with their FLOPs", "[unit]") {
    const kernels::GemmShape shape{.M = 64, .N = 48, .K = 32};
    const std::vector<float> A(64 * 32, 1.f), B(32 * 48, 1.f);
    std::vector<float> C(2 * 64 * 48);
    kernels::reset_gemm_product_time();
    kernels::gemm(A.data(), B.data(), C.data(), shape);
    const kernels::ProductTime outside = kernels::gemm_product_time();
    CHECK(outside.flops == 2 * 64 * 48 * 32);
    CHECK(outside.seconds > 0);
    // Inside a parallel region each thread's product overlaps the other's: neither is counted.
#pragma omp parallel num_threads(2)
    kernels::gemm(A.data(), B.data(), C.data() + omp_get_thread_num() * 64 * 48, shape);
    CHECK(kernels::gemm_product_time().flops == outside.flops);
    CHECK(kernels::gemm_product_time().seconds == outside.seconds);
    CHECK(C[2 * 64 * 48 - 1] == 32.f);   // the second thread's product did run
    kernels::reset_gemm_product_time();
    CHECK(kernels::gemm_product_time().flops == 0);
}

TEST_CASE("W1-W4 have exactly the parameter counts of the PyTorch peer's models", "[unit]") {
    // `bench/torch_peer.py params` prints them: TransformerAE 963168, BahdanauGRU 358368, VanillaRNN 103008, GPT 834400.
    CHECK(parameter_count(analysis::reference_workload("W1")) == 963168);
    CHECK(parameter_count(analysis::reference_workload("W2")) == 358368);
    CHECK(parameter_count(analysis::reference_workload("W3")) == 103008);
    CHECK(parameter_count(analysis::reference_workload("W4")) == 834400);
    CHECK_THROWS_AS(analysis::reference_workload("W9"), ValueError);
}

TEST_CASE("measure_training: tokens/s, FLOPs and memory fit together, and the loss falls", "[integration]") {
    for (const bool language_model : {false, true}) {
        INFO("language model: " << language_model);
        analysis::ThroughputOptions options;
        options.warmup = 1, options.steps = 6, options.peak_gflops = 100;
        const analysis::TrainingThroughput r = analysis::measure_training(tiny_workload(language_model), options);
        CHECK(r.step.min <= r.step.median);
        CHECK(r.step.median <= r.step.max);
        CHECK(r.tokens_per_second == Approx(3.0 * 7.0 / r.step.median));
        CHECK(r.matmul_flops_per_step > 0);
        CHECK(r.mfu == Approx(r.matmul_flops_per_step / r.step.median / 1e9 / 100));
        CHECK(r.matmul_time_share > 0);
        CHECK(r.matmul_time_share < 1);    // the step also runs softmax, layer norm, Adam, …
        CHECK(r.matmul_own_gflops > 0);
        CHECK(r.mfu_ceiling == Approx(r.matmul_own_gflops / 100));
        CHECK(r.peak_bytes_above_start > 0);
        CHECK(r.peak_bytes > r.peak_bytes_above_start);  // the weights and Adam state were live before
        CHECK(r.loss_last < r.loss_first);               // Adam at lr 1e-3 on 8 fixed batches
    }
}

TEST_CASE("measure_decoding: generated tokens per second of batch-1 greedy decoding, with the cache and without",
          "[integration]") {
    const analysis::DecodingThroughput cached = analysis::measure_decoding(tiny_workload(false), 5, 3, DecodeCache::automatic);
    const analysis::DecodingThroughput rerun = analysis::measure_decoding(tiny_workload(false), 5, 3, DecodeCache::off);
    for (const analysis::DecodingThroughput& d : {cached, rerun}) {
        CHECK(d.generated == 5);
        CHECK(d.source_length == 7);
        CHECK(d.tokens_per_second == Approx(5.0 / d.run.median));
    }
    // Re-running keeps the encoder memory (1 × 7 × 16 floats) and its padding mask; the cache adds,
    // per decoder layer, self- and cross-attention keys and values in buffers first made for 16
    // positions (5 and 7 held), 16 wide.
    CHECK(rerun.state_bytes == (7 * 16 + 7) * 4);
    CHECK(cached.state_bytes == rerun.state_bytes + 2 * (2 * 16 * 16 + 2 * 16 * 16) * 4);
}

TEST_CASE("timing_stats: the median of an even count is the mean of the middle two", "[unit]") {
    const analysis::TimingStats odd = analysis::timing_stats({3, 1, 2});
    CHECK(odd.median == 2);
    const analysis::TimingStats even = analysis::timing_stats({4, 1, 3, 2});
    CHECK(even.median == 2.5);
    CHECK(even.min == 1);
    CHECK(even.max == 4);
}

TEST_CASE("scaling: the RNN's and tiled attention's memory grow linearly in T, plain attention's quadratically",
          "[integration]") {
    analysis::ScalingOptions options;
    options.reps = 1;
    const auto growth = [&](const std::string& variant) {
        return double(analysis::measure_scaling(variant, 512, options).peak_bytes) /
               double(analysis::measure_scaling(variant, 128, options).peak_bytes);
    };
    const double rnn = growth("rnn"), tiled = growth("tiled"), plain = growth("plain");
    INFO("×4 in T: rnn ×" << rnn << ", tiled ×" << tiled << ", plain ×" << plain);
    CHECK(rnn > 2);   // grows, less than ×4: the weight gradients (256 × 256 each) do not grow with T
    CHECK(rnn < 6);
    CHECK(tiled > 3);
    CHECK(tiled < 6);
    CHECK(plain > 10);
    CHECK_THROWS_AS(analysis::measure_scaling("lstm", 8, options), ValueError);
}

TEST_CASE("write_scaling_report writes the CSV, the JSON and two well-formed SVG plots", "[unit]") {
    const test::TempDir temp("tapeformer-scaling");
    const std::string dir = temp / "report";  // write_scaling_report makes it
    const std::vector<analysis::ScalingMeasurement> results{
        {"rnn", 128, 2.5, 1000}, {"plain", 128, 1.5, 4000}, {"rnn", 256, 5.0, 2000}, {"plain", 256, 6.0, 16000}};
    const std::vector<std::string> paths = analysis::write_scaling_report(dir, results);
    REQUIRE(paths.size() == 4);
    CHECK(read_file(paths[0]) == "variant,T,ms,peak_bytes\nrnn,128,2.5000,1000\nplain,128,1.5000,4000\n"
                                 "rnn,256,5.0000,2000\nplain,256,6.0000,16000\n");
    CHECK(nlohmann::json::parse(read_file(paths[1])).size() == 4);
    for (const std::string& svg : {read_file(paths[2]), read_file(paths[3])}) {
        CHECK(test::xml_problem(svg).empty());
        CHECK(svg.find(">rnn<") != std::string::npos);
        CHECK(svg.find(">plain<") != std::string::npos);
    }
}

TEST_CASE("write_generation_report writes the CSV and one well-formed SVG with both curves", "[unit]") {
    const test::TempDir temp("tapeformer-generation");
    const auto row = [](DecodeCache cache, int64_t tokens, double seconds, int64_t bytes) {
        analysis::DecodingThroughput d;
        d.workload = "W4", d.cache = cache, d.generated = tokens, d.state_bytes = bytes;
        d.run = {seconds, seconds, seconds};
        d.tokens_per_second = double(tokens) / seconds;
        d.bytes_per_token = 1e6, d.bandwidth_fraction = d.bytes_per_token * d.tokens_per_second / 1e9;  // at 1 GB/s
        d.working_set_fraction = d.bandwidth_fraction / 4;                                             // at 4 GB/s
        return d;
    };
    const std::vector<std::string> paths = analysis::write_generation_report(
        temp / "bench", {row(DecodeCache::automatic, 128, 0.5, 4096), row(DecodeCache::off, 128, 2.0, 0)});
    REQUIRE(paths.size() == 2);
    CHECK(read_file(paths[0]) == "workload,cache,generated,seconds_median,tokens_per_s,state_bytes,bytes_per_token,"
                                 "bandwidth_fraction,working_set_fraction\nW4,auto,128,0.500000,256.0,4096,1000000,0.2560,0.0640\n"
                                 "W4,off,128,2.000000,64.0,0,1000000,0.0640,0.0160\n");
    const std::string svg = read_file(paths[1]);
    CHECK(test::xml_problem(svg).empty());
    CHECK(svg.find(">key/value cache<") != std::string::npos);
    CHECK(svg.find(">re-run the prefix<") != std::string::npos);
}

TEST_CASE("bench's report has a table row per measurement and only the parts that ran, in report.md and report.html",
          "[unit]") {
    const test::TempDir temp("tapeformer-bench-report");
    analysis::BenchResults results;
    results.precision = "fp32", results.threads = 2, results.peak_gflops = 123.4;
    analysis::TrainingThroughput w1;
    w1.workload = "W1", w1.batch = 32, w1.length = 64, w1.parameters = 1000, w1.step = {0.02, 0.019, 0.025};
    w1.tokens_per_second = 32 * 64 / 0.02, w1.mfu = 0.31;
    results.training = {w1};
    results.scaling = {{"rnn", 128, 2.5, 1000}, {"tiled", 128, 1.5, 4000}};
    const std::string markdown_path = analysis::write_bench_report(temp.path(), results);
    CHECK(markdown_path == temp / "report.md");
    const std::string markdown = read_file(markdown_path);
    CHECK(markdown.find("2 threads, matmul precision fp32, measured FP32 FMA peak 123.4 GFLOP/s") != std::string::npos);
    CHECK(markdown.find("| W1 | 32×64 | 1000 | 20.0 (19.0–25.0) | 102400 |") != std::string::npos);
    CHECK(markdown.find("| 31.0 % |") != std::string::npos);
    CHECK(markdown.find("| tiled | 128 | 1.50 |") != std::string::npos);
    CHECK(markdown.find("Greedy decoding") == std::string::npos);   // not measured, not shown
    CHECK(markdown.find("generation") == std::string::npos);
    const std::string page = read_file(temp / "report.html");
    CHECK(test::xml_problem(page) == "");
    CHECK(test::count_occurrences(page, "<tr><td>") == 3);   // W1, and the two scaling points
    CHECK(test::count_occurrences(page, "<svg xmlns") == 2); // the time and the memory plot, inline
    CHECK(std::filesystem::exists(temp / "plots/scaling_time.csv"));
}

TEST_CASE("the bf16 matmul roof is measured on the CPU's bf16 instructions, and refused without them", "[unit]") {
    // An emulated roof would be the f32 one under another name: bench refuses it, naming what is missing.
    if (kernels::bf16_unsupported_reason().empty())
        CHECK(analysis::bf16_matmul_roof_gflops(2) > 0);
    else
        CHECK_THROWS_WITH(analysis::bf16_matmul_roof_gflops(1), Catch::Contains("AVX512-BF16"));
}

TEST_CASE("bf16 runs take their MFU against the measured bf16 matmul roof too, in the JSON and the report", "[unit]") {
    const double roof = 400;   // GFLOP/s, as bf16_matmul_roof_gflops would have measured it
    analysis::TrainingThroughput w4;
    w4.workload = "W4", w4.batch = 16, w4.length = 128, w4.step = {0.05, 0.05, 0.05};
    w4.mfu = 0.4, w4.mfu_bf16 = 0.25;
    CHECK(analysis::to_json(w4).at("mfu_bf16") == 0.25);
    w4.matmul_time_share = 0.6, w4.mfu_ceiling = 0.8, w4.mfu_ceiling_bf16 = 0.5;
    CHECK(analysis::to_json(w4).at("matmul_time_share") == 0.6);
    CHECK(analysis::to_json(w4).at("mfu_ceiling") == 0.8);
    CHECK(analysis::to_json(w4).at("mfu_ceiling_bf16") == 0.5);
    w4.matmul_time_share = 0, w4.mfu_ceiling = 0, w4.mfu_ceiling_bf16 = 0;
    w4.mfu_bf16 = 0;
    CHECK_FALSE(analysis::to_json(w4).contains("mfu_bf16"));   // an fp32 run's line is as before
    const test::TempDir temp("tapeformer-bench-bf16");
    analysis::BenchResults results;
    results.precision = "bf16", results.threads = 2, results.peak_gflops = 100, results.bf16_roof_gflops = 400;
    w4.mfu_bf16 = 0.25;
    results.training = {w4};
    const std::string markdown = read_file(analysis::write_bench_report(temp.path(), results));
    CHECK(markdown.find("measured bf16 matmul roof 400.0 GFLOP/s") != std::string::npos);
    CHECK(markdown.find("| 40.0 % | 0 % | 0.0 % | 0.0 | 25.0 % | 0.0 % |") != std::string::npos);
    analysis::ThroughputOptions options;
    options.warmup = 0, options.steps = 2, options.peak_gflops = 100, options.bf16_roof_gflops = roof;
    const analysis::TrainingThroughput measured = analysis::measure_training(tiny_workload(true), options);
    CHECK(measured.mfu_bf16 == Approx(measured.matmul_gflops / roof));
    CHECK(measured.mfu_ceiling_bf16 == Approx(measured.matmul_own_gflops / roof));
}

TEST_CASE("bytes per generated token: the weights a step reads plus the mean key/value cache, hand-counted", "[integration]") {
    // The tiny LM (C 16, F 32, 4 layers, V 96, 128 learned positions) has 14,144 parameters:
    // embedding 96·16 + positions 128·16 + 4 × (4 × (16·16 + 16) + (32·16 + 32) + (16·32 + 16) + 2 · 32)
    // + final norm 32 + output 96·16 + 96.
    const analysis::Workload lm = tiny_workload(true);
    REQUIRE(parameter_count(lm) == 14144);
    // A step gathers one row of each table: 14,144 − 96·16 − 128·16 + 16 + 16 floats.
    const double weights = (14144 - 96 * 16 - 128 * 16 + 16 + 16) * 4.0;
    // Step i reads i + 1 positions of 4 layers' keys and values (2 · 16 floats each): over 5 steps 3 on average.
    const double cache = 4 * (2 * 16 * 4.0) * 3;
    for (const DecodeCache way : {DecodeCache::automatic, DecodeCache::off}) {
        const analysis::DecodingThroughput d = analysis::measure_decoding(lm, 5, 1, way, 10.0);
        CHECK(d.bytes_per_token == weights + cache);   // re-running the prefix is given the cached way's bytes
        CHECK(d.bandwidth_fraction == Approx(d.bytes_per_token * d.tokens_per_second / 10e9));
        // Beside it, the read rate of a buffer of one token's bytes, and the share of that reached.
        CHECK(std::isfinite(d.working_set_gbs));
        CHECK(d.working_set_gbs > 0);
        CHECK(d.working_set_fraction == Approx(d.bytes_per_token * d.tokens_per_second / (d.working_set_gbs * 1e9)));
    }
    // Seq2seq (2 + 2 layers, sinusoidal positions): per decoder layer self-attention 4 × 272,
    // cross-attention's query and output projections 2 × 272 (keys and values of the memory are
    // cached once), FFN 1,072, three norms 96; the final norm 32, one target embedding row 16, the
    // output 1,632. Nothing of the encoder. Its cache: self-attention over 3 positions on average
    // and cross-attention over the 7 source positions, per decoder layer.
    const analysis::DecodingThroughput seq2seq = analysis::measure_decoding(tiny_workload(false), 5, 1, DecodeCache::automatic);
    CHECK(seq2seq.bytes_per_token == (2 * (4 * 272 + 2 * 272 + 1072 + 96) + 32 + 16 + 1632) * 4.0 + 2 * (2 * 16 * 4.0) * (3 + 7));
    CHECK(seq2seq.bandwidth_fraction == 0);   // no bandwidth given
    CHECK(seq2seq.working_set_gbs == 0);
}

TEST_CASE("the bandwidth fraction is bytes per token × tokens/s over the read bandwidth", "[unit]") {
    // 3.5 MB a token at 8,788 tokens/s is 30.758 GB/s: 30.758 % of 100 GB/s.
    CHECK(analysis::bandwidth_fraction(3.5e6, 8788, 100) == Approx(0.30758));
    CHECK(analysis::bandwidth_fraction(3.5e6, 8788, 0) == 0);
}

TEST_CASE("the read bandwidth of a small buffer is a finite positive rate", "[unit]") {
    analysis::ReadBandwidthOptions options;
    options.bytes = int64_t{4} << 20, options.attempts = 2;
    const double gbs = analysis::read_bandwidth_gbs(options);
    CHECK(std::isfinite(gbs));
    CHECK(gbs > 0);
}

TEST_CASE("a generation line carries its bytes per token and bandwidth fraction, in the JSON, the row and the report",
          "[unit]") {
    analysis::DecodingThroughput d;
    d.workload = "W4", d.generated = 1024, d.run = {0.1, 0.1, 0.1}, d.tokens_per_second = 10240;
    d.bytes_per_token = 4 * kMiBytes, d.bandwidth_fraction = 0.35;
    const nlohmann::json json = analysis::to_json(d);
    CHECK(json.at("bytes_per_token") == 4 * kMiBytes);
    CHECK(json.at("bandwidth_fraction") == 0.35);
    CHECK_THAT(analysis::table_row(d), Catch::Contains("reads 4.00 MiB per token: 35.0% of read bandwidth"));
    const test::TempDir temp("tapeformer-bench-bandwidth");
    analysis::BenchResults results;
    results.precision = "fp32", results.threads = 2, results.peak_gflops = 100, results.read_bandwidth_gbs = 20;
    results.generation = {d};
    const std::string markdown = read_file(analysis::write_bench_report(temp.path(), results));
    CHECK(markdown.find("measured read bandwidth 20.0 GB/s") != std::string::npos);
    CHECK(markdown.find("| 4.00 | 35.0 % |") != std::string::npos);
}
