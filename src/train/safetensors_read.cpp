// Reading a safetensors checkpoint, trusting nothing: every length, name, type, shape and offset
// in the header is checked against the file before a byte of tensor data is read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <set>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/json_text.h"
#include "train/safetensors.h"

namespace tf::train {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian; so is this reader");

namespace {
using Json = nlohmann::json;

// One header entry, checked against itself (not yet against its neighbours).
struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    uint64_t begin, end;
};

class Reader {
public:
    explicit Reader(std::string path);
    ~Reader() { ::close(fd_); }
    Safetensors read();

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw CheckpointError("read_safetensors: " + path_ + ": " + problem);
    }
    void read_at(void* out, uint64_t size, uint64_t offset) const;
    Json parse_header(uint64_t header_bytes) const;
    Entry parse_entry(const std::string& name, const Json& value) const;
    DType parse_dtype(const std::string& name, const Json& value) const;
    Shape parse_shape(const std::string& name, const Json& value) const;
    void check_layout(std::vector<Entry> entries) const;
    std::map<std::string, std::string> parse_metadata(const Json& value) const;

    std::string path_;
    int fd_ = -1;
    uint64_t file_bytes_ = 0;
    uint64_t data_bytes_ = 0;  // the data section: everything after the header
};

Reader::Reader(std::string path) : path_(std::move(path)) {
    // O_NONBLOCK: opening a FIFO put in a checkpoint's place would otherwise wait for a writer forever.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) {
        ::close(fd_);
        fail(std::string("cannot stat: ") + std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode)) {
        ::close(fd_);
        fail("not a regular file");
    }
    file_bytes_ = static_cast<uint64_t>(info.st_size);
}

void Reader::read_at(void* out, uint64_t size, uint64_t offset) const {
    char* cursor = static_cast<char*>(out);
    while (size > 0) {
        const ssize_t got = ::pread(fd_, cursor, size, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail(std::string("read failed: ") + std::strerror(errno));
        if (got == 0) fail("file ended early (was it truncated while being read?)");
        cursor += got;
        size -= static_cast<uint64_t>(got);
        offset += static_cast<uint64_t>(got);
    }
}

Json Reader::parse_header(uint64_t header_bytes) const {
    std::string text(header_bytes, '\0');
    read_at(text.data(), header_bytes, 8);
    // Bounded: nesting, numbers and duplicate names are refused while parsing (docs/limits.md).
    config::JsonParse parsed = config::parse_json_bounded(text);
    if (parsed.kind == config::JsonProblem::syntax) fail("header is not valid JSON: " + parsed.problem);
    if (!parsed.ok()) fail("header: " + parsed.problem);
    const Json header = std::move(parsed.value);
    if (!header.is_object()) fail("header is not a JSON object");
    return header;
}

DType Reader::parse_dtype(const std::string& name, const Json& value) const {
    static const std::set<std::string> other = {"BOOL", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "I16", "U16",
                                                "F16",  "BF16", "I32", "U32",     "I64",     "U64", "C64"};
    if (!value.is_string()) fail("tensor '" + name + "': dtype is not a string");
    const std::string dtype = value.get<std::string>();
    if (dtype == "F32") return DType::f32;
    if (dtype == "F64") return DType::f64;
    if (other.count(dtype)) fail("tensor '" + name + "': dtype " + dtype + " is not supported (tapeformer loads F32 and F64)");
    fail("tensor '" + name + "': unknown dtype " + config::describe(value));
}

Shape Reader::parse_shape(const std::string& name, const Json& value) const {
    if (!value.is_array()) fail("tensor '" + name + "': shape is not a list");
    if (value.size() > kMaxTensorRank)
        fail("tensor '" + name + "': shape has " + std::to_string(value.size()) + " dimensions, above the limit of " +
             std::to_string(kMaxTensorRank) + " (docs/limits.md)");
    Shape shape;
    for (const Json& dim : value) {
        // A JSON integer above INT64_MAX would wrap to a negative int64: both are rejected here.
        if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
            fail("tensor '" + name + "': shape " + config::describe(value) + " has an entry that is not an integer in [0, 2^63)");
        shape.push_back(dim.get<int64_t>());
    }
    return shape;
}

Entry Reader::parse_entry(const std::string& name, const Json& value) const {
    // describe() shows a long name by its start.
    if (name.size() > kMaxTensorNameBytes)
        fail("tensor " + config::describe(Json(name)) + ": the name is above the limit of " +
             std::to_string(kMaxTensorNameBytes) + " bytes (docs/limits.md)");
    if (!value.is_object()) fail("tensor '" + name + "': entry is not an object");
    for (const char* field : {"dtype", "shape", "data_offsets"})
        if (!value.contains(field)) fail("tensor '" + name + "': missing \"" + field + "\"");
    if (value.size() != 3) fail("tensor '" + name + "': unexpected field besides dtype, shape and data_offsets");
    Entry entry{name, parse_dtype(name, value.at("dtype")), parse_shape(name, value.at("shape")), 0, 0};
    const Json& offsets = value.at("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
        fail("tensor '" + name + "': data_offsets " + config::describe(offsets) + " is not a list [begin, end] of two integers ≥ 0");
    entry.begin = offsets[0].get<uint64_t>();
    entry.end = offsets[1].get<uint64_t>();
    const std::string where = "tensor '" + name + "': data_offsets " + config::describe(offsets);
    if (entry.end < entry.begin) fail(where + " end before they begin");
    if (entry.end > data_bytes_) fail(where + " run past the data section (" + std::to_string(data_bytes_) + " bytes)");
    uint64_t bytes = dtype_size(entry.dtype);
    for (int64_t dim : entry.shape)
        if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes))
            fail("tensor '" + name + "': shape " + to_string(entry.shape) + " overflows");
    if (entry.end - entry.begin != bytes)
        fail(where + " hold " + std::to_string(entry.end - entry.begin) + " bytes, but " +
             value.at("dtype").get<std::string>() + " " + to_string(entry.shape) + " needs " + std::to_string(bytes));
    return entry;
}

// The tensors must tile [0, data_bytes) exactly: sorted by offset, each begins where the last ended.
void Reader::check_layout(std::vector<Entry> entries) const {
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
    uint64_t covered = 0;
    const Entry* previous = nullptr;
    for (const Entry& entry : entries) {
        if (entry.begin < covered)
            fail("tensor '" + entry.name + "' at [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
                 ") overlaps tensor '" + previous->name + "' at [" + std::to_string(previous->begin) + ", " +
                 std::to_string(previous->end) + ")");
        if (entry.begin > covered)
            fail("bytes [" + std::to_string(covered) + ", " + std::to_string(entry.begin) + ") of the data section belong to no tensor");
        covered = entry.end;
        previous = &entry;
    }
    if (covered != data_bytes_)
        fail(std::to_string(data_bytes_ - covered) + " trailing bytes after the last tensor");
}

std::map<std::string, std::string> Reader::parse_metadata(const Json& value) const {
    if (!value.is_object()) fail("__metadata__ is not an object");
    std::map<std::string, std::string> metadata;
    for (const auto& [key, item] : value.items()) {
        if (!item.is_string()) fail("__metadata__ value for " + config::describe(Json(key)) + " is not a string: " + config::describe(item));
        metadata.emplace(key, item.get<std::string>());
    }
    return metadata;
}

Safetensors Reader::read() {
    if (file_bytes_ < 8) fail("file is " + std::to_string(file_bytes_) + " bytes, shorter than the 8-byte header length");
    unsigned char length[8];
    read_at(length, 8, 0);
    uint64_t header_bytes = 0;
    for (int i = 7; i >= 0; --i) header_bytes = (header_bytes << 8) | length[i];
    if (header_bytes > kMaxSafetensorsHeaderBytes)
        fail("header length " + std::to_string(header_bytes) + " exceeds the cap of " + std::to_string(kMaxSafetensorsHeaderBytes) +
             " bytes (docs/limits.md)");
    if (header_bytes > file_bytes_ - 8)
        fail("header length " + std::to_string(header_bytes) + " runs past the end of the file (" + std::to_string(file_bytes_) + " bytes)");
    data_bytes_ = file_bytes_ - 8 - header_bytes;
    const Json header = parse_header(header_bytes);
    const std::size_t tensor_count = header.size() - header.count("__metadata__");
    if (tensor_count > kMaxSafetensorsTensors)
        fail("header lists " + std::to_string(tensor_count) + " tensors, above the limit of " +
             std::to_string(kMaxSafetensorsTensors) + " (docs/limits.md)");
    Safetensors out;
    std::vector<Entry> entries;
    for (const auto& [name, value] : header.items()) {
        if (name == "__metadata__") out.metadata = parse_metadata(value);
        else entries.push_back(parse_entry(name, value));
    }
    check_layout(entries);
    for (const Entry& entry : entries) {
        Tensor tensor(entry.shape, entry.dtype);
        read_at(tensor.raw_data(), entry.end - entry.begin, 8 + header_bytes + entry.begin);
        out.tensors.emplace(entry.name, tensor);
    }
    return out;
}
}  // namespace

Safetensors read_safetensors(const std::string& path) { return Reader(path).read(); }

}  // namespace tf::train
