// `tapeformer bench [--config FILE] [--workload W…] [--steps N] [--warmup N] [--json] [--out DIR]`:
// training throughput (tokens/s, MFU, peak memory) of the reference workloads W1–W4 or of a run
// config's model, greedy decoding D with the key/value cache and without, language-model generation
// at growing lengths (each with its share of the measured read bandwidth), and time/memory against sequence length; report.md and report.html of all of it in --out.
#include <algorithm>
#include <iostream>

#include "analysis/machine/bench_report.h"
#include "analysis/machine/cpu_identity.h"
#include "analysis/machine/fma_peak.h"
#include "analysis/machine/matmul_roof.h"
#include "analysis/machine/read_bandwidth.h"
#include "autograd/kernels/mode.h"
#include "cli/commands.h"
#include "train/run_config.h"

namespace tf::cli {

namespace {

struct BenchArguments {
    std::string config_path, out = "runs/bench";
    std::vector<std::string> workloads, only{"train", "decode", "generate", "scaling"};
    std::vector<int64_t> lengths{256, 512, 1024, 2048, 4096};
    std::vector<int64_t> generate_lengths{128, 256, 512, 1024};
    int64_t rerun_up_to = 256;  // re-running the prefix grows quadratically: longer sequences take minutes
    int steps = 30, warmup = 5, decode_runs = 7, reps = 3;
    int64_t decode_tokens = 64;
    std::string precision = "fp32";   // the matmuls' precision, as the run config's "precision"
    bool json = false;
};

bool wants(const BenchArguments& args, const std::string& part) {
    return std::find(args.only.begin(), args.only.end(), part) != args.only.end();
}

// --config: its model section, random batches of its data.batch_size × data.max_length.
std::vector<analysis::Workload> chosen_workloads(const BenchArguments& args) {
    if (!args.config_path.empty()) {
        const train::RunConfig config = train::load_run_config(args.config_path, {});
        return {{config.name, config.model, config.data.batch_size, config.data.max_length}};
    }
    if (args.workloads.empty()) return analysis::reference_workloads();
    std::vector<analysis::Workload> chosen;
    for (const std::string& name : args.workloads) chosen.push_back(analysis::reference_workload(name));
    return chosen;
}

// Every JSON line says which precision measured it (the "peak" line included).
void emit(const BenchArguments& args, nlohmann::json json, const std::string& row) {
    json["precision"] = args.precision;
    std::cout << (args.json ? json.dump() : row) << std::endl;
}

std::vector<analysis::TrainingThroughput> run_training(const BenchArguments& args,
                                                       const std::vector<analysis::Workload>& workloads, double peak,
                                                       double bf16_roof) {
    if (!args.json) std::cout << "\ntraining steps (forward + backward + Adam), median of " << args.steps << " after "
                              << args.warmup << " warm-up; MFU = fraction of the roofline: matmul GFLOP/s over the "
                              << (bf16_roof > 0 ? "FP32 FMA peak (/peak) and the bf16 matmul roof (/bf16)" : "FP32 FMA peak")
                              << "\n" << analysis::training_table_header(bf16_roof > 0) << "\n";
    const analysis::ThroughputOptions options{args.warmup, args.steps, peak, bf16_roof, 0};
    std::vector<analysis::TrainingThroughput> results;
    for (const analysis::Workload& workload : workloads) {
        results.push_back(analysis::measure_training(workload, options));
        emit(args, analysis::to_json(results.back()), analysis::table_row(results.back()));
    }
    return results;
}

// D with the key/value cache, then re-running the prefix: the same tokens, the speed-up beside.
std::vector<analysis::DecodingThroughput> run_decoding(const BenchArguments& args, const analysis::Workload& workload,
                                                       double read_bandwidth) {
    if (!args.json) std::cout << "\n";
    std::vector<analysis::DecodingThroughput> results;
    for (const DecodeCache cache : {DecodeCache::automatic, DecodeCache::off}) {
        results.push_back(analysis::measure_decoding(workload, args.decode_tokens, args.decode_runs, cache, read_bandwidth));
        emit(args, analysis::to_json(results.back()), analysis::table_row(results.back()));
    }
    return results;
}

// Generation by the W4 language model with positions for 1,100 tokens: greedy, batch 1, at each
// length with the key/value cache and, up to rerun_up_to, re-running the prefix.
std::vector<analysis::DecodingThroughput> run_generation(const BenchArguments& args, double read_bandwidth) {
    analysis::Workload workload = analysis::reference_workload("W4");
    workload.model.max_length = 1100;
    if (!args.json) std::cout << "\nlanguage-model generation (W4 model, positions for 1,100 tokens)\n";
    std::vector<analysis::DecodingThroughput> results;
    for (const int64_t tokens : args.generate_lengths)
        for (const DecodeCache cache : {DecodeCache::automatic, DecodeCache::off}) {
            if (cache == DecodeCache::off && tokens > args.rerun_up_to) continue;
            const int runs = cache == DecodeCache::off ? 1 : args.decode_runs;
            results.push_back(analysis::measure_decoding(workload, tokens, runs, cache, read_bandwidth));
            emit(args, analysis::to_json(results.back()), analysis::table_row(results.back()));
        }
    const std::vector<std::string> paths = analysis::write_generation_report(args.out, results);
    if (!args.json) std::cout << "wrote " << paths[0] << ", " << paths[1] << "\n";
    return results;
}

std::vector<analysis::ScalingMeasurement> run_scaling(const BenchArguments& args) {
    if (!args.json) std::cout << "\ncausal attention vs RNN, forward + backward, batch 1, 4 heads × 64 (RNN 256 wide)\n"
                              << analysis::scaling_table_header() << "\n";
    analysis::ScalingOptions options;
    options.reps = args.reps;
    std::vector<analysis::ScalingMeasurement> results;
    for (const int64_t T : args.lengths)
        for (const std::string& variant : analysis::scaling_variants()) {
            results.push_back(analysis::measure_scaling(variant, T, options));
            emit(args, analysis::to_json(results.back()), analysis::table_row(results.back()));
        }
    const std::vector<std::string> paths = analysis::write_scaling_report(args.out, results);
    if (!args.json) std::cout << "wrote " << paths[0] << ", " << paths[1] << ", " << paths[2] << ", " << paths[3] << "\n";
    return results;
}

int run_bench(const BenchArguments& args) {
    const kernels::MatmulPrecisionScope precision(*enum_from_name<kernels::MatmulPrecision>(args.precision));
    const std::vector<analysis::Workload> workloads = chosen_workloads(args);
    const double peak = analysis::fma_peak_gflops();
    // bf16 runs also measure the bf16 matmul roof, the denominator of their bf16 MFU
    const bool bf16 = kernels::matmul_precision() == kernels::MatmulPrecision::bf16;
    const double bf16_roof = bf16 ? analysis::bf16_matmul_roof_gflops() : 0;
    // decoding and generation also measure the read bandwidth, the denominator of their bandwidth fraction
    const bool decodes = wants(args, "decode") || wants(args, "generate");
    const double read_bandwidth = decodes ? analysis::read_bandwidth_gbs() : 0;
    const std::string machine = analysis::describe(analysis::this_cpu());
    nlohmann::json peak_line{{"kind", "peak"}, {"cpu", machine}, {"threads", kernels::num_threads()}, {"fp32_fma_peak_gflops", peak}};
    if (bf16) peak_line["bf16_matmul_roof_gflops"] = bf16_roof;
    if (decodes) peak_line["read_bandwidth_gbs"] = read_bandwidth;
    emit(args, peak_line,
         machine + "\nthreads " + std::to_string(kernels::num_threads()) + ", matmul precision " + args.precision +
             ", FP32 FMA peak " + std::to_string(peak) + " GFLOP/s" +
             (bf16 ? ", bf16 matmul roof " + std::to_string(bf16_roof) + " GFLOP/s" : "") +
             (decodes ? ", read bandwidth " + std::to_string(read_bandwidth) + " GB/s" : ""));
    analysis::BenchResults results{args.precision, kernels::num_threads(), peak, bf16_roof, read_bandwidth, {}, {}, {}, {}, machine};
    if (wants(args, "train")) results.training = run_training(args, workloads, peak, bf16_roof);
    if (wants(args, "decode")) {
        const bool reference = args.config_path.empty();
        results.decoding = run_decoding(args, reference ? analysis::reference_workload("W1") : workloads.front(), read_bandwidth);
    }
    if (wants(args, "generate")) results.generation = run_generation(args, read_bandwidth);
    if (wants(args, "scaling")) results.scaling = run_scaling(args);
    const std::string report = analysis::write_bench_report(args.out, results);
    if (!args.json) std::cout << "wrote " << report << " and report.html beside it\n";
    return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<BenchArguments>();
    auto* command = app.add_subcommand("bench", "Training/decoding throughput vs PyTorch's workloads; attention scaling.");
    command->add_option("--config", args->config_path, "bench this run config's model (random batches of its data "
                                                       "batch_size x max_length) instead of W1-W4");
    command->add_option("--workload", args->workloads, "reference workloads to run (default: all)")
        ->check(CLI::IsMember({"W1", "W2", "W3", "W4"}));
    command->add_option("--steps", args->steps, "timed training steps")
        ->capture_default_str()->check(CLI::PositiveNumber);
    command->add_option("--warmup", args->warmup, "untimed training steps first")
        ->capture_default_str()->check(CLI::NonNegativeNumber);
    command->add_option("--decode-runs", args->decode_runs, "timed greedy decodings")
        ->capture_default_str()->check(CLI::PositiveNumber);
    command->add_option("--decode-tokens", args->decode_tokens, "tokens per greedy decoding")
        ->capture_default_str()->check(CLI::PositiveNumber);
    command->add_option("--lengths", args->lengths, "sequence lengths for the scaling part")
        ->capture_default_str()->check(CLI::PositiveNumber);
    command->add_option("--reps", args->reps, "timed calls per scaling point")
        ->capture_default_str()->check(CLI::PositiveNumber);
    command->add_option("--generate-lengths", args->generate_lengths, "generated tokens for the generate part (< 1100)")
        ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{1099}));
    command->add_option("--rerun-up-to", args->rerun_up_to, "generate part: also time re-running the prefix up to this length")
        ->capture_default_str()->check(CLI::NonNegativeNumber);
    command->add_option("--only", args->only, "parts to run: train, decode, generate, scaling (default: all)")
        ->check(CLI::IsMember({"train", "decode", "generate", "scaling"}));
    command->add_option("--precision", args->precision, "what the matmuls multiply in: fp32 or bf16 (as a run config's \"precision\")")
        ->capture_default_str()->check(CLI::IsMember(enum_name_list<kernels::MatmulPrecision>()));
    command->add_option("--out", args->out, "directory for report.md, report.html and the scaling and generation CSV/JSON/SVG (default runs/bench)");
    command->add_flag("--json", args->json, "one JSON object per line per workload/case");
    command->footer("Examples:\n  tapeformer --threads 2 bench\n  tapeformer bench --workload W1 --only train --json\n"
                    "  tapeformer bench --config configs/copy_transformer.json --only train\n"
                    "  tapeformer bench --only scaling --lengths 256 1024 4096 --out runs/bench");
    command->callback([args, &exit_code] { exit_code = run_bench(*args); });
}

}  // namespace tf::cli
