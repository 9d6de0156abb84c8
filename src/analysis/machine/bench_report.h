// What `tapeformer bench` prints and writes: one JSON object per measurement, aligned table rows,
// the sequence-length scaling as CSV, JSON and two SVG plots (time, memory; log y), and one
// report (report.md and report.html) of everything the run measured.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/machine/attention_scaling.h"
#include "analysis/machine/throughput.h"

namespace tf::analysis {

// {"kind":"train","workload":"W1",…}, {"kind":"decode",…}, {"kind":"scaling",…}
nlohmann::json to_json(const TrainingThroughput& result);
nlohmann::json to_json(const DecodingThroughput& result);
nlohmann::json to_json(const ScalingMeasurement& result);

// With bf16_mfu, a last column holds the MFU against the bf16 matmul roof.
std::string training_table_header(bool bf16_mfu = false);
std::string table_row(const TrainingThroughput& result);
std::string table_row(const DecodingThroughput& result);
std::string scaling_table_header();
std::string table_row(const ScalingMeasurement& result);

// Writes DIR/scaling.csv, DIR/scaling.json, DIR/scaling_time.svg and DIR/scaling_memory.svg
// (creating DIR); returns the paths written.
std::vector<std::string> write_scaling_report(const std::string& dir, const std::vector<ScalingMeasurement>& results);

// Writes DIR/generation.csv and DIR/generation.svg: seconds per generated sequence against its
// length, one series with the key/value cache and one re-running the prefix; returns the paths.
std::vector<std::string> write_generation_report(const std::string& dir, const std::vector<DecodingThroughput>& results);

// Everything one `bench` run measured; the parts it skipped stay empty.
struct BenchResults {
    std::string precision;     // the matmuls' precision, "fp32" or "bf16"
    int64_t threads = 0;
    double peak_gflops = 0;    // the measured FP32 FMA peak the MFU is taken against
    double bf16_roof_gflops = 0;   // bf16 runs: the measured bf16 matmul roof bf16's MFU is taken against
    double read_bandwidth_gbs = 0; // with decoding or generation: the measured read bandwidth (read_bandwidth.h)
    std::vector<TrainingThroughput> training;
    std::vector<DecodingThroughput> decoding, generation;
    std::vector<ScalingMeasurement> scaling;
    std::string machine;           // the CPU, as cpu_identity.h describes it ("" when not given)
};

// Writes DIR/report.md and DIR/report.html (tables of each part measured, the generation and
// scaling plots with their CSVs under DIR/plots); returns report.md's path.
std::string write_bench_report(const std::string& dir, const BenchResults& results);

}  // namespace tf::analysis
