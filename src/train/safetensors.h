// Checkpoints in the safetensors format (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON header, then the raw little-endian tensor data.
// Writes are atomic (temp file, fsync, rename, fsync the directory) and reads validate everything.
//
// Header: {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, …,
//          "__metadata__": {"key": "string value", …}}     (offsets relative to the data section)
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include "autograd/error.h"
#include "autograd/tensor.h"

namespace tf::train {

struct Safetensors {
    std::map<std::string, Tensor> tensors;
    std::map<std::string, std::string> metadata;
};

// Bounds on a header (docs/limits.md). Our largest checkpoints have a 100 KB header and a few
// hundred tensors of rank ≤ 4; the bounds keep a hostile header from costing more than a real one.
constexpr std::size_t kMaxSafetensorsHeaderBytes = std::size_t{16} << 20;  // 16 MiB
constexpr std::size_t kMaxSafetensorsTensors = 100'000;
constexpr std::size_t kMaxTensorNameBytes = 1024;
constexpr std::size_t kMaxTensorRank = 16;

// Test-only crash simulation: called after each chunk (≤ 1 MiB) reaches the temp file, with the
// total bytes written so far. A hook that throws stops the write there (the temp file is
// removed and the exception passes on); one that kills the process leaves the temp file behind.
using WriteHook = std::function<void(std::size_t bytes_written)>;

// Writes `path + ".tmp-<pid>"`, fsyncs it, renames it over `path`, fsyncs the directory: a crash
// at any moment leaves either the old file or the new one at `path`, never half of one.
// Layout: f64 tensors, then f32, each group by name, so every tensor starts 8-byte aligned; the
// header is padded with spaces to a multiple of 8. "__metadata__" is written when non-empty.
void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {},
                       const WriteHook& after_chunk = {});

// Reads and validates a whole file; every problem is a CheckpointError naming the file:
// shorter than 8 bytes; header length over the cap or past the end of the file; header not a
// JSON object, a duplicate name; more tensors, a longer name or a higher rank than the bounds
// above; an entry without exactly dtype/shape/data_offsets of the right
// types; a dtype other than F32/F64 (named); a negative or overflowing shape; data_offsets with
// end < begin, past the data section, or not numel·dtype size bytes; metadata values that are
// not strings. Strict about layout too: the tensors must tile the data section exactly — no
// overlap, no gap and no trailing bytes (what the reference implementation also rejects).
Safetensors read_safetensors(const std::string& path);

}  // namespace tf::train
