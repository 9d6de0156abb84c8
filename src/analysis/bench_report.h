// What `tapeformer bench` prints and writes: one JSON object per measurement, aligned table rows,
// and the sequence-length scaling as CSV, JSON and two SVG plots (time, memory; log y).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/attention_scaling.h"
#include "analysis/throughput.h"

namespace tf::analysis {

// {"kind":"train","workload":"W1",…}, {"kind":"decode",…}, {"kind":"scaling",…}
nlohmann::json to_json(const TrainingThroughput& result);
nlohmann::json to_json(const DecodingThroughput& result);
nlohmann::json to_json(const ScalingMeasurement& result);

std::string training_table_header();
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

}  // namespace tf::analysis
