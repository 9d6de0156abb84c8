// Formatting benchmark results: JSON lines, table rows, the scaling files and the report.
#include "analysis/machine/bench_report.h"

#include <cstdio>
#include <map>

#include "analysis/reports/report.h"
#include "analysis/reports/svg.h"
#include "util/files.h"

namespace tf::analysis {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// What the decoding tables' last three columns hold (decode_bytes.h).
constexpr const char* kBytesPerToken =
    "MiB read per token: every weight a step multiplies with (one row of the embedding tables; not the encoder's, "
    "read once per sequence) plus the keys and values attention reads, averaged over the generated tokens. "
    "Share of read bandwidth: that × tokens/s ÷ the measured read bandwidth; re-running the prefix is given the "
    "cached way's bytes. Over 100 %: the bytes fit in the last-level cache, read faster than DRAM. Share of a "
    "buffer its size: the same rate over the read rate of a buffer of one token's bytes, measured the same way: "
    "the ceiling for that working set on this machine, whichever memory holds it.";

nlohmann::json stats_json(const TimingStats& stats) {
    return {{"median", stats.median}, {"min", stats.min}, {"max", stats.max}};
}

std::string format(const char* pattern, auto... values) {
    char line[256];
    std::snprintf(line, sizeof line, pattern, values...);
    return line;
}

// One series per variant, x = T, y = what `value` reads.
svg::LinePlot scaling_plot(const std::vector<ScalingMeasurement>& results, const std::string& title,
                           const std::string& y_label, double (*value)(const ScalingMeasurement&)) {
    svg::LinePlot plot{title, "sequence length T", y_label, {}, true};
    std::map<std::string, svg::Series> by_variant;
    for (const ScalingMeasurement& m : results) {
        svg::Series& series = by_variant[m.variant];
        series.name = m.variant;
        series.x.push_back(double(m.T));
        series.y.push_back(value(m));
    }
    for (const std::string& variant : scaling_variants())
        if (by_variant.count(variant)) plot.series.push_back(by_variant[variant]);
    return plot;
}

svg::LinePlot scaling_time_plot(const std::vector<ScalingMeasurement>& results) {
    return scaling_plot(results, "Causal attention vs RNN: forward + backward time", "ms (log)",
                        [](const ScalingMeasurement& m) { return m.ms; });
}

svg::LinePlot scaling_memory_plot(const std::vector<ScalingMeasurement>& results) {
    return scaling_plot(results, "Peak tensor memory of one forward + backward", "MiB (log)",
                        [](const ScalingMeasurement& m) { return double(m.peak_bytes) / kMiB; });
}

// Seconds per sequence against its length: one series with the key/value cache, one re-running the prefix.
svg::LinePlot generation_plot(const std::vector<DecodingThroughput>& results) {
    svg::LinePlot plot{"Greedy generation, batch 1: with the key/value cache and re-running the prefix",
                       "generated tokens", "seconds per sequence (log)", {}, true};
    std::map<std::string, svg::Series> by_cache;
    for (const DecodingThroughput& d : results) {
        svg::Series& series = by_cache[d.cache == DecodeCache::off ? "re-run the prefix" : "key/value cache"];
        series.x.push_back(double(d.generated));
        series.y.push_back(d.run.median);
    }
    for (auto& [name, series] : by_cache) {
        series.name = name;
        plot.series.push_back(series);
    }
    return plot;
}

std::string median_range_ms(const TimingStats& stats) {
    return format("%.1f (%.1f–%.1f)", stats.median * 1e3, stats.min * 1e3, stats.max * 1e3);
}

std::vector<std::vector<std::string>> training_rows(const std::vector<TrainingThroughput>& results, bool bf16_mfu) {
    std::vector<std::vector<std::string>> rows;
    for (const TrainingThroughput& r : results) {
        rows.push_back({r.workload, std::to_string(r.batch) + "×" + std::to_string(r.length), std::to_string(r.parameters),
                        median_range_ms(r.step), format("%.0f", r.tokens_per_second),
                        format("%.2f", r.matmul_flops_per_step / 1e9), format("%.1f %%", 100 * r.mfu),
                        format("%.0f %%", 100 * r.matmul_time_share), format("%.1f %%", 100 * r.mfu_ceiling),
                        format("%.1f", r.peak_bytes / kMiB)});
        if (bf16_mfu) {
            rows.back().push_back(format("%.1f %%", 100 * r.mfu_bf16));
            rows.back().push_back(format("%.1f %%", 100 * r.mfu_ceiling_bf16));
        }
    }
    return rows;
}

std::vector<std::vector<std::string>> decoding_rows(const std::vector<DecodingThroughput>& results) {
    std::vector<std::vector<std::string>> rows;
    for (const DecodingThroughput& r : results)
        rows.push_back({r.workload, std::to_string(r.source_length), std::to_string(r.generated),
                        r.cache == DecodeCache::off ? "re-run the prefix" : "key/value cache", median_range_ms(r.run),
                        format("%.0f", r.tokens_per_second), format("%.2f", r.state_bytes / kMiB),
                        format("%.2f", r.bytes_per_token / kMiB), format("%.1f %%", 100 * r.bandwidth_fraction),
                        format("%.1f %%", 100 * r.working_set_fraction)});
    return rows;
}

}  // namespace

nlohmann::json to_json(const TrainingThroughput& r) {
    nlohmann::json json{{"kind", "train"}, {"workload", r.workload}, {"batch", r.batch}, {"seq", r.length},
                        {"threads", r.threads}, {"params", r.parameters}, {"step_s", stats_json(r.step)},
                        {"tokens_per_s", r.tokens_per_second}, {"matmul_gflop_per_step", r.matmul_flops_per_step / 1e9},
                        {"matmul_gflops_at_median", r.matmul_gflops}, {"mfu", r.mfu},
                        {"matmul_time_share", r.matmul_time_share}, {"matmul_own_gflops", r.matmul_own_gflops},
                        {"mfu_ceiling", r.mfu_ceiling}, {"peak_bytes", r.peak_bytes},
                        {"peak_bytes_above_start", r.peak_bytes_above_start}, {"loss_first", r.loss_first},
                        {"loss_last", r.loss_last}};
    if (r.mfu_bf16 > 0) {
        json["mfu_bf16"] = r.mfu_bf16;
        json["mfu_ceiling_bf16"] = r.mfu_ceiling_bf16;
    }
    return json;
}

nlohmann::json to_json(const DecodingThroughput& r) {
    return {{"kind", "decode"}, {"workload", r.workload}, {"mode", "greedy_decode_batch1"},
            {"src_len", r.source_length}, {"gen_tokens", r.generated}, {"threads", r.threads},
            {"cache", name_of(r.cache)}, {"step_s", stats_json(r.run)}, {"tokens_per_s", r.tokens_per_second},
            {"state_bytes", r.state_bytes}, {"bytes_per_token", r.bytes_per_token},
            {"bandwidth_fraction", r.bandwidth_fraction}, {"working_set_gbs", r.working_set_gbs},
            {"working_set_fraction", r.working_set_fraction}};
}

nlohmann::json to_json(const ScalingMeasurement& r) {
    return {{"kind", "scaling"}, {"variant", r.variant}, {"T", r.T}, {"ms", r.ms}, {"peak_bytes", r.peak_bytes}};
}

std::string training_table_header(bool bf16_mfu) {
    // MFU: the step's share of the FP32 roofline (the measured FMA peak); bf16: of the bf16 matmul roof.
    // matmul: the share of the step inside products; ceiling: the products' own rate over the same roof
    return format("%-8s %9s %9s %24s %10s %9s %8s %7s %8s %9s %9s", "workload", "B x T", "params",
                  "step ms median (min-max)", "tokens/s", "GFLOP/st", "MFU/peak", "matmul", "ceiling", "peak MiB",
                  "+step MiB") +
           (bf16_mfu ? format(" %9s %8s", "MFU/bf16", "ceiling") : "");
}

std::string table_row(const TrainingThroughput& r) {
    const std::string shape = std::to_string(r.batch) + "x" + std::to_string(r.length);
    const std::string step = format("%.1f (%.1f-%.1f)", r.step.median * 1e3, r.step.min * 1e3, r.step.max * 1e3);
    return format("%-8s %9s %9ld %24s %10.0f %9.2f %7.1f%% %6.0f%% %7.1f%% %9.1f %9.1f", r.workload.c_str(),
                  shape.c_str(), long(r.parameters), step.c_str(), r.tokens_per_second, r.matmul_flops_per_step / 1e9,
                  100 * r.mfu, 100 * r.matmul_time_share, 100 * r.mfu_ceiling, r.peak_bytes / kMiB,
                  r.peak_bytes_above_start / kMiB) +
           (r.mfu_bf16 > 0 ? format(" %8.1f%% %7.1f%%", 100 * r.mfu_bf16, 100 * r.mfu_ceiling_bf16) : "");
}

std::string table_row(const DecodingThroughput& r) {
    const char* cache = r.cache == DecodeCache::off ? "no cache" : "key/value cache";
    const std::string source = r.source_length > 0 ? "source " + std::to_string(r.source_length) : "no source";
    return format("greedy decoding %s (batch 1, %s, %ld tokens, %s): %.1f ms (%.1f-%.1f) per sequence, "
                  "%.0f tokens/s, state %.2f MiB, reads %.2f MiB per token: %.1f%% of read bandwidth, %.1f%% of a "
                  "buffer its size (%.0f GB/s)", r.workload.c_str(), source.c_str(), long(r.generated), cache,
                  r.run.median * 1e3, r.run.min * 1e3, r.run.max * 1e3, r.tokens_per_second, r.state_bytes / kMiB,
                  r.bytes_per_token / kMiB, 100 * r.bandwidth_fraction, 100 * r.working_set_fraction, r.working_set_gbs);
}

std::string scaling_table_header() { return format("%-8s %6s %10s %10s", "variant", "T", "ms", "peak MiB"); }

std::string table_row(const ScalingMeasurement& r) {
    return format("%-8s %6ld %10.2f %10.2f", r.variant.c_str(), long(r.T), r.ms, r.peak_bytes / kMiB);
}

std::vector<std::string> write_scaling_report(const std::string& dir, const std::vector<ScalingMeasurement>& results) {
    make_directories(dir);
    std::string csv = "variant,T,ms,peak_bytes\n";
    nlohmann::json json = nlohmann::json::array();
    for (const ScalingMeasurement& m : results) {
        csv += m.variant + "," + std::to_string(m.T) + "," + format("%.4f", m.ms) + "," + std::to_string(m.peak_bytes) + "\n";
        json.push_back(to_json(m));
    }
    const std::vector<std::string> paths{dir + "/scaling.csv", dir + "/scaling.json", dir + "/scaling_time.svg",
                                         dir + "/scaling_memory.svg"};
    write_file_atomic(paths[0], csv);
    write_file_atomic(paths[1], json.dump(2) + "\n");
    write_file_atomic(paths[2], svg::render(scaling_time_plot(results)));
    write_file_atomic(paths[3], svg::render(scaling_memory_plot(results)));
    return paths;
}

std::vector<std::string> write_generation_report(const std::string& dir, const std::vector<DecodingThroughput>& results) {
    make_directories(dir);
    std::string csv = "workload,cache,generated,seconds_median,tokens_per_s,state_bytes,bytes_per_token,bandwidth_fraction,"
                      "working_set_fraction\n";
    for (const DecodingThroughput& d : results)
        csv += d.workload + "," + name_of(d.cache) + "," + std::to_string(d.generated) + "," + format("%.6f", d.run.median) + "," +
               format("%.1f", d.tokens_per_second) + "," + std::to_string(d.state_bytes) + "," +
               format("%.0f", d.bytes_per_token) + "," + format("%.4f", d.bandwidth_fraction) + "," +
               format("%.4f", d.working_set_fraction) + "\n";
    const std::vector<std::string> paths{dir + "/generation.csv", dir + "/generation.svg"};
    write_file_atomic(paths[0], csv);
    write_file_atomic(paths[1], svg::render(generation_plot(results)));
    return paths;
}

std::string write_bench_report(const std::string& dir, const BenchResults& results) {
    Report report(dir);
    report.heading(1, "Benchmark");
    const bool bf16_mfu = results.bf16_roof_gflops > 0;
    report.paragraph((results.machine.empty() ? std::string() : results.machine + "; ") +
                     std::to_string(results.threads) + " threads, matmul precision " + results.precision +
                     ", measured FP32 FMA peak " + format("%.1f", results.peak_gflops) + " GFLOP/s (the MFU's denominator)" +
                     (bf16_mfu ? ", measured bf16 matmul roof " + format("%.1f", results.bf16_roof_gflops) +
                                     " GFLOP/s (bf16 MFU's: oneDNN's bf16 product of two 1024 × 1024 matrices)"
                               : std::string()) +
                     (results.read_bandwidth_gbs > 0 ? ", measured read bandwidth " + format("%.1f", results.read_bandwidth_gbs) +
                                                           " GB/s (decoding's bandwidth fraction's denominator)"
                                                     : std::string()) + ".");
    const std::vector<std::string> decoding_header{"workload", "source tokens", "generated tokens", "way",
                                                   "ms per sequence, median (min–max)", "tokens/s", "state MiB",
                                                   "MiB read per token", "share of read bandwidth",
                                                   "share of a buffer its size"};
    if (!results.training.empty()) {
        report.heading(2, "Training steps");
        report.paragraph("Forward + backward + Adam; the step time is the median of the timed steps, after warm-up. "
                         "The share of the step in products and their own rate count the matrix products called "
                         "outside a parallel region, over all timed steps; the MFU ceiling is the MFU a step would "
                         "reach if nothing but its products took time, so the MFU can approach it, not pass it.");
        std::vector<std::string> header{"workload", "B×T", "parameters", "step ms, median (min–max)", "tokens/s",
                                        "matmul GFLOP per step", "MFU (share of the FP32 FMA peak)",
                                        "share of the step in products", "MFU ceiling (the products' own rate)", "peak MiB"};
        if (bf16_mfu) {
            header.push_back("bf16 MFU (share of the bf16 matmul roof)");
            header.push_back("bf16 MFU ceiling");
        }
        report.table(header, training_rows(results.training, bf16_mfu));
    }
    if (!results.decoding.empty()) {
        report.heading(2, "Greedy decoding, batch 1");
        report.paragraph(kBytesPerToken);
        report.table(decoding_header, decoding_rows(results.decoding));
    }
    if (!results.generation.empty()) {
        report.heading(2, "Language-model generation");
        report.plot("generation", generation_plot(results.generation));
        report.paragraph(kBytesPerToken);
        report.table(decoding_header, decoding_rows(results.generation));
    }
    if (!results.scaling.empty()) {
        report.heading(2, "Causal attention against an RNN as the sequence grows");
        report.paragraph("Forward + backward, batch 1, 4 heads × 64 (the RNN 256 wide).");
        report.plot("scaling_time", scaling_time_plot(results.scaling));
        report.plot("scaling_memory", scaling_memory_plot(results.scaling));
        std::vector<std::vector<std::string>> rows;
        for (const ScalingMeasurement& m : results.scaling)
            rows.push_back({m.variant, std::to_string(m.T), format("%.2f", m.ms), format("%.2f", m.peak_bytes / kMiB)});
        report.table({"variant", "T", "ms", "peak MiB"}, rows);
    }
    return report.write();
}

}  // namespace tf::analysis
