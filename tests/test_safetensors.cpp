// Safetensors checkpoints: the exact byte format, bit-exact round trips, every corrupt-file case
// rejected with its message, and atomic writes that a crash (simulated or a real SIGKILL) cannot
// turn into a half file.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include <nlohmann/json.hpp>

#include "helpers.h"
#include "train/safetensors.h"

using namespace tf;
using namespace tf::train;
namespace fs = std::filesystem;

namespace {
// A fresh directory, removed with everything in it at the end of the test.
struct ScratchFolder {
    fs::path path;
    ScratchFolder() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("tapeformer_safetensors_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::create_directories(path);
    }
    ~ScratchFolder() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
    std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {})); }
};

// A file in the safetensors layout from parts: 8-byte little-endian length, header, data.
void write_raw(const std::string& path, const std::string& header, const std::string& data,
               uint64_t header_length = std::numeric_limits<uint64_t>::max()) {
    if (header_length == std::numeric_limits<uint64_t>::max()) header_length = header.size();
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>(header_length >> (8 * i)));
    out << header << data;
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

bool bit_equal(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw_data(), b.raw_data(), a.bytes()) == 0;
}

std::map<std::string, Tensor> sample_tensors() {
    Rng rng(11);
    return {{"encoder.layers.0.q_proj.weight", Tensor::normal({3, 5}, 0, 1, rng)},
            {"special", Tensor::from_data({std::numeric_limits<double>::quiet_NaN(), -0.0, 1e-310,
                                           std::numeric_limits<double>::infinity()}, {4}, DType::f64)},
            {"scalar", Tensor::scalar(2.5, DType::f32)},
            {"empty", Tensor::zeros({0, 5}, DType::f64)},
            {"odd_f32", Tensor::normal({3}, 0, 1, rng)},
            {"optimizer.step_count", Tensor::scalar(17, DType::f64)}};
}
}  // namespace

TEST_CASE("safetensors round trip is bit exact: f32, f64, 0-d, empty, metadata", "[unit]") {
    ScratchFolder dir;
    const auto tensors = sample_tensors();
    const std::map<std::string, std::string> metadata = {{"step", "17"}, {"rng", "123 456 \"quoted\"\n"}};
    write_safetensors(dir.file("a.safetensors"), tensors, metadata);
    const Safetensors loaded = read_safetensors(dir.file("a.safetensors"));
    REQUIRE(loaded.tensors.size() == tensors.size());
    for (const auto& [name, tensor] : tensors) {
        INFO(name);
        REQUIRE(bit_equal(loaded.tensors.at(name), tensor));
        REQUIRE_FALSE(loaded.tensors.at(name).requires_grad());
    }
    REQUIRE(loaded.metadata == metadata);
    REQUIRE(dir.entries() == 1);  // no temp file left behind
    write_safetensors(dir.file("b.safetensors"), {});
    REQUIRE(read_safetensors(dir.file("b.safetensors")).tensors.empty());
}

TEST_CASE("safetensors files have the reference layout", "[unit]") {
    ScratchFolder dir;
    write_safetensors(dir.file("a.safetensors"), {{"b", Tensor::ones({3})}, {"a", Tensor::ones({2}, DType::f64)}},
                      {{"format", "pt"}});
    const std::string bytes = read_bytes(dir.file("a.safetensors"));
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
    REQUIRE(n % 8 == 0);  // padded with spaces so the data section starts 8-aligned
    REQUIRE(bytes.size() == 8 + n + 16 + 12);
    const auto header = nlohmann::json::parse(bytes.substr(8, n));
    // f64 first so that every tensor starts at a multiple of its element size.
    REQUIRE(header["a"] == nlohmann::json::parse(R"({"dtype": "F64", "shape": [2], "data_offsets": [0, 16]})"));
    REQUIRE(header["b"] == nlohmann::json::parse(R"({"dtype": "F32", "shape": [3], "data_offsets": [16, 28]})"));
    REQUIRE(header["__metadata__"] == nlohmann::json::parse(R"({"format": "pt"})"));
    float first_of_b;
    std::memcpy(&first_of_b, bytes.data() + 8 + n + 16, 4);
    REQUIRE(first_of_b == 1.0f);
}

TEST_CASE("safetensors reads a file written by another tool", "[unit]") {
    // Unpadded header, keys in another order, no metadata: all allowed by the format.
    ScratchFolder dir;
    const float values[2] = {1.5f, -2.0f};
    write_raw(dir.file("x.safetensors"), R"({"w":{"data_offsets":[0,8],"shape":[2,1],"dtype":"F32"}})",
              std::string(reinterpret_cast<const char*>(values), 8));
    const Safetensors loaded = read_safetensors(dir.file("x.safetensors"));
    REQUIRE(loaded.tensors.at("w").shape() == Shape{2, 1});
    tf::test::require_values(loaded.tensors.at("w"), {1.5, -2.0}, 0);
}

TEST_CASE("safetensors rejects truncated and oversized files", "[unit]") {
    ScratchFolder dir;
    const std::string path = dir.file("c.safetensors");
    write_safetensors(path, sample_tensors());
    const std::string good = read_bytes(path);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[i]);
    const auto truncated_to = [&](std::size_t size) {
        std::ofstream(path, std::ios::binary) << good.substr(0, size);
        return path;
    };
    REQUIRE_THROWS_WITH(read_safetensors(truncated_to(5)), Catch::Contains(path) && Catch::Contains("5 bytes, shorter than the 8-byte header length"));
    REQUIRE_THROWS_WITH(read_safetensors(truncated_to(8 + n / 2)), Catch::Contains("runs past the end of the file"));
    REQUIRE_THROWS_WITH(read_safetensors(truncated_to(good.size() - 4)), Catch::Contains("run past the data section"));
    write_raw(path, "{}", "", 200'000'000);
    REQUIRE_THROWS_WITH(read_safetensors(path), Catch::Contains("header length 200000000 exceeds the cap of 16777216 bytes"));
    REQUIRE_THROWS_WITH(read_safetensors(dir.file("missing.safetensors")), Catch::Contains("cannot open"));
}

TEST_CASE("safetensors rejects every malformed header with its message", "[unit]") {
    const std::string f32x2 = R"("dtype": "F32", "shape": [2])";
    const std::vector<std::tuple<std::string, std::size_t, std::string>> cases = {
        {"{not json", 0, "header is not valid JSON"},
        {"[1, 2]", 0, "header is not a JSON object"},
        {R"({"a": 3})", 0, "tensor 'a': entry is not an object"},
        {R"({"a": {"shape": [2], "data_offsets": [0, 8]}})", 8, "tensor 'a': missing \"dtype\""},
        {R"({"a": {"dtype": "F32", "data_offsets": [0, 8]}})", 8, "tensor 'a': missing \"shape\""},
        {R"({"a": {"dtype": "F32", "shape": [2]}})", 8, "tensor 'a': missing \"data_offsets\""},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0, 8], "extra": 1}})", 8, "unexpected field"},
        {R"({"a": {"dtype": 32, "shape": [2], "data_offsets": [0, 8]}})", 8, "dtype is not a string"},
        {R"({"a": {"dtype": "I8", "shape": [2], "data_offsets": [0, 2]}})", 2, "dtype I8 is not supported (tapeformer loads F32 and F64)"},
        {R"({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}})", 4, "dtype BF16 is not supported"},
        {R"({"a": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}})", 8, "unknown dtype \"F33\""},
        {R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", 8, "shape [-2] has an entry that is not an integer"},
        {R"({"a": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}})", 8, "shape [2.5] has an entry that is not an integer"},
        {R"({"a": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}})", 8, "shape is not a list"},
        {R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", 8, "overflows"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0]}})", 8, "is not a list [begin, end] of two integers"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [-1, 8]}})", 8, "is not a list [begin, end] of two integers"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [8, 0]}})", 8, "data_offsets [8,0] end before they begin"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0, 16]}})", 8, "data_offsets [0,16] run past the data section (8 bytes)"},
        {R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8, "hold 8 bytes, but F32 (3) needs 12"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0, 8]}, "b": {)" + f32x2 + R"(, "data_offsets": [4, 12]}})", 12,
         "tensor 'b' at [4, 12) overlaps tensor 'a' at [0, 8)"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0, 8]}, "b": {)" + f32x2 + R"(, "data_offsets": [12, 20]}})", 20,
         "bytes [8, 12) of the data section belong to no tensor"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0, 8]}})", 12, "4 trailing bytes after the last tensor"},
        {R"({"a": {)" + f32x2 + R"(, "data_offsets": [0, 8]}, "a": {)" + f32x2 + R"(, "data_offsets": [0, 8]}})", 8,
         "header: a: duplicate key"},
        {R"({"__metadata__": {"step": 3}})", 0, "__metadata__ value for \"step\" is not a string: 3"},
        {R"({"__metadata__": ["x"]})", 0, "__metadata__ is not an object"},
    };
    ScratchFolder dir;
    const std::string path = dir.file("bad.safetensors");
    for (const auto& [header, data_bytes, message] : cases) {
        INFO(header);
        write_raw(path, header, std::string(data_bytes, '\0'));
        REQUIRE_THROWS_AS(read_safetensors(path), CheckpointError);
        REQUIRE_THROWS_WITH(read_safetensors(path), Catch::StartsWith("read_safetensors: " + path + ": ") &&
                                                        Catch::Contains(message));
    }
}

namespace {
// A header of `count` empty F32 tensors (shape [0], no data), names "t0", "t1", ….
std::string empty_tensors_header(std::size_t count) {
    std::string header = "{";
    for (std::size_t i = 0; i < count; ++i)
        header += (i ? ",\"t" : "\"t") + std::to_string(i) + R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]})";
    return header + "}";
}

// One F32 tensor of one element named `name` with `rank` dimensions of size 1.
std::string one_tensor_header(const std::string& name, std::size_t rank) {
    std::string header = "{";
    header += nlohmann::json(name).dump();
    header += R"(:{"dtype":"F32","shape":[)";
    for (std::size_t i = 0; i < rank; ++i) header += i ? ",1" : "1";
    header += R"(],"data_offsets":[0,4]}})";
    return header;
}
}  // namespace

// docs/limits.md: each bound is read at its value and refused one past it, naming the bound.
TEST_CASE("safetensors bounds: header 16 MiB, 100000 tensors, names of 1024 bytes, rank 16", "[unit]") {
    ScratchFolder dir;
    const std::string path = dir.file("bounds.safetensors");
    const auto refused = [&](const std::string& message) {
        REQUIRE_THROWS_AS(read_safetensors(path), CheckpointError);
        REQUIRE_THROWS_WITH(read_safetensors(path), Catch::Contains(path) && Catch::Contains(message));
    };
    write_raw(path, "{}" + std::string(kMaxSafetensorsHeaderBytes - 2, ' '), "");
    REQUIRE(read_safetensors(path).tensors.empty());
    write_raw(path, "{}" + std::string(kMaxSafetensorsHeaderBytes - 1, ' '), "");
    refused("header length 16777217 exceeds the cap of 16777216 bytes");

    write_raw(path, empty_tensors_header(kMaxSafetensorsTensors), "");
    REQUIRE(read_safetensors(path).tensors.size() == kMaxSafetensorsTensors);
    write_raw(path, empty_tensors_header(kMaxSafetensorsTensors + 1), "");
    refused("header lists 100001 tensors, above the limit of 100000");

    const std::string four_bytes(4, '\0');
    write_raw(path, one_tensor_header(std::string(kMaxTensorNameBytes, 'n'), 1), four_bytes);
    REQUIRE(read_safetensors(path).tensors.size() == 1);
    write_raw(path, one_tensor_header(std::string(kMaxTensorNameBytes + 1, 'n'), 1), four_bytes);
    refused("(1025 bytes): the name is above the limit of 1024 bytes");

    write_raw(path, one_tensor_header("w", kMaxTensorRank), four_bytes);
    REQUIRE(read_safetensors(path).tensors.at("w").shape().size() == kMaxTensorRank);
    write_raw(path, one_tensor_header("w", kMaxTensorRank + 1), four_bytes);
    refused("tensor 'w': shape has 17 dimensions, above the limit of 16");
}

TEST_CASE("safetensors writer rejects names the format reserves", "[unit]") {
    ScratchFolder dir;
    REQUIRE_THROWS_AS(write_safetensors(dir.file("x"), {{"__metadata__", Tensor::ones({1})}}), CheckpointError);
    REQUIRE_THROWS_AS(write_safetensors(dir.file("x"), {{"", Tensor::ones({1})}}), CheckpointError);
    REQUIRE_THROWS_WITH(write_safetensors(dir.file("no/such/dir/x"), {}), Catch::Contains("open failed"));
    REQUIRE(dir.entries() == 0);
}

TEST_CASE("a write that fails mid-way leaves the previous checkpoint intact", "[unit]") {
    ScratchFolder dir;
    const std::string path = dir.file("latest.safetensors");
    const auto previous = sample_tensors();
    write_safetensors(path, previous, {{"step", "1"}});
    const std::map<std::string, Tensor> next = {{"w", Tensor::ones({300000})}};  // > 1 MiB: several chunks
    std::size_t crashed_at = 0;
    const WriteHook crash = [&](std::size_t written) {
        if (written > (1u << 20)) {
            crashed_at = written;
            throw std::runtime_error("simulated crash");
        }
    };
    REQUIRE_THROWS_WITH(write_safetensors(path, next, {{"step", "2"}}, crash), "simulated crash");
    REQUIRE(crashed_at > 0);
    REQUIRE(crashed_at < 8 + 300000 * 4);  // it really stopped part-way
    const Safetensors loaded = read_safetensors(path);
    REQUIRE(loaded.metadata.at("step") == "1");
    for (const auto& [name, tensor] : previous) REQUIRE(bit_equal(loaded.tensors.at(name), tensor));
    REQUIRE(dir.entries() == 1);  // the partial temp file was removed
    write_safetensors(path, next, {{"step", "2"}});
    REQUIRE(read_safetensors(path).metadata.at("step") == "2");
}

TEST_CASE("a process killed mid-write leaves the previous checkpoint loadable", "[integration]") {
    ScratchFolder dir;
    const std::string path = dir.file("latest.safetensors");
    write_safetensors(path, {{"w", Tensor::full({1 << 20}, 1.0)}}, {{"step", "1"}});
    const std::map<std::string, Tensor> next = {{"w", Tensor::full({1 << 20}, 2.0)}};  // 4 MiB
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // dies by SIGKILL after 2 MiB: no unwinding, no cleanup, like a power cut
        try {
            write_safetensors(path, next, {{"step", "2"}}, [](std::size_t written) {
                if (written > (2u << 20)) ::kill(::getpid(), SIGKILL);
            });
        } catch (...) {
        }
        ::_exit(0);  // only reached if the hook did not fire, which the parent reports
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGKILL);
    const Safetensors loaded = read_safetensors(path);
    REQUIRE(loaded.metadata.at("step") == "1");
    REQUIRE(loaded.tensors.at("w").to_vector()[12345] == 1.0);
    // The dead writer's partial temp file is there, under its own name, and is not a checkpoint.
    const std::string temp = path + ".tmp-" + std::to_string(child);
    REQUIRE(fs::exists(temp));
    REQUIRE(fs::file_size(temp) < fs::file_size(path));
    REQUIRE_THROWS_AS(read_safetensors(temp), CheckpointError);
}

TEST_CASE("a writer killed at a random moment leaves one complete checkpoint", "[integration]") {
    // The child rewrites the checkpoint in a loop, each version's tensor filled with its number;
    // the parent kills it at an arbitrary moment. Whatever is at `path` must be whole.
    ScratchFolder dir;
    const std::string path = dir.file("latest.safetensors");
    write_safetensors(path, {{"w", Tensor::full({1 << 19}, 0.0)}}, {{"version", "0"}});
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        try {
            for (int version = 1;; ++version)
                write_safetensors(path, {{"w", Tensor::full({1 << 19}, version)}}, {{"version", std::to_string(version)}});
        } catch (...) {
            ::_exit(1);  // never return into the test runner from the child
        }
    }
    // Kill only once the child has finished a rewrite (so it is surely mid-way through later ones),
    // then after 0-19 ms more: a moment the test does not choose.
    auto version_at_path = [&] { return std::stoi(read_safetensors(path).metadata.at("version")); };
    for (int wait = 0; wait < 1000 && version_at_path() < 2; ++wait) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    std::this_thread::sleep_for(std::chrono::milliseconds(std::chrono::duration_cast<std::chrono::microseconds>(now).count() % 20));
    ::kill(child, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));   // not an exit: the writer did not fail before it was killed
    REQUIRE(WTERMSIG(status) == SIGKILL);
    const Safetensors loaded = read_safetensors(path);
    const double version = std::stod(loaded.metadata.at("version"));
    REQUIRE(version >= 2);
    const auto values = loaded.tensors.at("w").to_vector();
    REQUIRE(std::count(values.begin(), values.end(), version) == static_cast<std::ptrdiff_t>(values.size()));
}
