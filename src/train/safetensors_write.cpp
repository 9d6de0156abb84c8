// Writing a safetensors checkpoint atomically: the whole file goes to a temp name, reaches the
// disk (fsync), and only then replaces the old file in one rename; the directory is synced so
// the rename itself survives a power cut.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/safetensors.h"

namespace tf::train {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian; so is this writer");

namespace {
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw CheckpointError("write_safetensors: " + path + ": " + problem);
}

std::string system_error(const std::string& what) { return what + " failed: " + std::strerror(errno); }

// Closes the descriptor on every path out.
struct FileDescriptor {
    int fd = -1;
    ~FileDescriptor() {
        if (fd >= 0) ::close(fd);
    }
};

// The order tensors are laid out in: larger elements first, then by name, so that every tensor
// starts at a multiple of its element size (the data section starts 8-aligned).
std::vector<std::string> layout_order(const std::map<std::string, Tensor>& tensors) {
    std::vector<std::string> names;
    for (const auto& [name, tensor] : tensors) names.push_back(name);
    std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        return dtype_size(tensors.at(a).dtype()) > dtype_size(tensors.at(b).dtype());
    });
    return names;
}

// The JSON header, padded with spaces so the data section starts 8-byte aligned.
std::string make_header(const std::string& path, const std::map<std::string, Tensor>& tensors,
                        const std::vector<std::string>& order, const std::map<std::string, std::string>& metadata) {
    nlohmann::json header = nlohmann::json::object();
    std::size_t offset = 0;
    for (const std::string& name : order) {
        const Tensor& tensor = tensors.at(name);
        if (name.empty() || name == "__metadata__") fail(path, "invalid tensor name '" + name + "'");
        if (!tensor.defined()) fail(path, "tensor '" + name + "' is undefined");
        header[name] = {{"dtype", tensor.dtype() == DType::f32 ? "F32" : "F64"},
                        {"shape", tensor.shape()},
                        {"data_offsets", {offset, offset + tensor.bytes()}}};
        offset += tensor.bytes();
    }
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    return text;
}

void write_all(int fd, const char* data, std::size_t size, const std::string& path) {
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size);
        if (written < 0 && errno == EINTR) continue;
        if (written < 0) fail(path, system_error("write"));
        data += written;
        size -= static_cast<std::size_t>(written);
    }
}

// Writes the whole file to `fd` in chunks, calling the hook after each one.
void write_contents(int fd, const std::string& path, const std::string& header,
                    const std::map<std::string, Tensor>& tensors, const std::vector<std::string>& order,
                    const WriteHook& after_chunk) {
    std::size_t total = 0;
    const auto chunk = [&](const char* data, std::size_t size) {
        write_all(fd, data, size, path);
        total += size;
        if (after_chunk) after_chunk(total);
    };
    unsigned char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(static_cast<uint64_t>(header.size()) >> (8 * i));
    chunk(reinterpret_cast<const char*>(length), 8);
    chunk(header.data(), header.size());
    for (const std::string& name : order) {
        const Tensor& tensor = tensors.at(name);
        const char* data = static_cast<const char*>(tensor.raw_data());
        for (std::size_t done = 0; done < tensor.bytes(); done += kChunkBytes)
            chunk(data + done, std::min(kChunkBytes, tensor.bytes() - done));
    }
}

void sync_directory_of(const std::string& path) {
    std::string directory = std::filesystem::path(path).parent_path().string();
    if (directory.empty()) directory = ".";
    FileDescriptor dir{::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dir.fd < 0 || ::fsync(dir.fd) != 0) fail(path, system_error("fsync of its directory"));
}
}  // namespace

void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata, const WriteHook& after_chunk) {
    const std::vector<std::string> order = layout_order(tensors);
    const std::string header = make_header(path, tensors, order, metadata);
    const std::string temp_path = path + ".tmp-" + std::to_string(::getpid());
    try {
        FileDescriptor file{::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
        if (file.fd < 0) fail(temp_path, system_error("open"));
        write_contents(file.fd, temp_path, header, tensors, order, after_chunk);
        if (::fsync(file.fd) != 0) fail(temp_path, system_error("fsync"));
        const int fd = file.fd;
        file.fd = -1;
        if (::close(fd) != 0) fail(temp_path, system_error("close"));
        if (::rename(temp_path.c_str(), path.c_str()) != 0) fail(path, system_error("rename from " + temp_path));
    } catch (...) {
        ::unlink(temp_path.c_str());  // the old file at `path` is untouched
        throw;
    }
    sync_directory_of(path);
}

}  // namespace tf::train
