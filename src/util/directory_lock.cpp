// The folder lock: a POSIX record lock on a file inside the folder. The kernel can tell who holds
// one (F_GETLK gives the holder's pid), so the lock file holds nothing and a refused writer changes
// nothing. A record lock is released when its process closes any descriptor of the file: nothing
// else in this program opens it.
#include "util/directory_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "autograd/error.h"
#include "util/files.h"

namespace tf {

namespace {
struct flock whole_file(short type) {
    struct flock lock {};
    lock.l_type = type;
    lock.l_whence = SEEK_SET;   // l_start 0 and l_len 0: from the first byte to any last one
    return lock;
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
    throw FileError(what + " '" + shown_path(path) + "': " + std::strerror(error));
}

// Refuses when another process holds the lock on the open file `fd`, naming its pid.
void require_unheld(int fd, const std::string& folder, const std::string& path) {
    struct flock holder = whole_file(F_WRLCK);
    if (::fcntl(fd, F_GETLK, &holder) != 0) fail("cannot read the lock", path, errno);
    if (holder.l_type == F_UNLCK) return;
    throw FolderInUse(shown_path(folder) + " is in use by another tapeformer (pid " + std::to_string(holder.l_pid) +
                      "): one writer at a time in a run or comparison; wait for it to finish, or stop it first");
}
}  // namespace

DirectoryLock::DirectoryLock(const std::string& folder) {
    const std::string path = folder + "/" + kFileName;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd_ < 0) fail("cannot create the lock", path, errno);
    struct flock lock = whole_file(F_WRLCK);
    if (::fcntl(fd_, F_SETLK, &lock) == 0) return;
    const int error = errno;
    try {
        if (error != EACCES && error != EAGAIN) fail("cannot lock", path, error);
        require_unheld(fd_, folder, path);   // names the holder
        fail("cannot lock", path, error);    // released in between: say what the system said
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

DirectoryLock::~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);   // closing it releases the lock
}

std::string foreign_entry(const std::string& folder, const std::string& marker) {
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error) || std::filesystem::exists(folder + "/" + marker, error)) return "";
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name != DirectoryLock::kFileName) return name;
    }
    return "";
}

}  // namespace tf
