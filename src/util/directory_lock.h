// One writer at a time in a run or comparison folder: a POSIX record lock on FOLDER/lock, held
// while the DirectoryLock lives. The kernel drops the lock when its process ends, however it ends
// (exit, exception, crash, SIGKILL), so a lock file a killed process left behind is stale by
// construction and the next writer simply takes it. A refused writer is told the holder's pid.
// Readers (eval, generate, analyze) take no lock.
#pragma once
#include <string>

namespace tf {

class DirectoryLock {
public:
    // Locks `folder` (which must exist), creating its empty lock file the first time; a FolderInUse
    // naming the holder's pid when another process holds it.
    explicit DirectoryLock(const std::string& folder);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

    static constexpr const char* kFileName = "lock";

private:
    int fd_ = -1;
};

// Whether a new run or comparison may be written into `folder`: "" when it does not exist, is
// empty (but for a stale lock), or holds `marker` (the file every run or comparison writes first,
// so a start that failed may start again); otherwise the name of an entry there, which is the
// user's and must not be overwritten.
std::string foreign_entry(const std::string& folder, const std::string& marker);

}  // namespace tf
