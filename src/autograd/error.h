// The error types the framework throws. Each message names the op (or file, or JSON path)
// and what was expected, so a student sees the problem without a debugger.
#pragma once
#include <stdexcept>
#include <string>

namespace tf {

// Base of every tapeformer error: catch this to catch them all.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad input from outside the program — a config, a data file, a checkpoint, an argument value:
// the CLI exits 2 for this family (and 1 for any other error, which is a bug of ours). Fuzz
// harnesses hold every loader to throwing nothing else.
class InputError : public Error {
public:
    using Error::Error;
};

// A config that is wrong: names the JSON path and what was expected.
class ConfigError : public InputError {
public:
    using InputError::InputError;
};

// A data file (corpus, JSONL, vocab.json) that is wrong: names the file (and line or field).
class DataError : public InputError {
public:
    using InputError::InputError;
};

// A checkpoint file that cannot be written or read: names the file and the problem.
class CheckpointError : public InputError {
public:
    using InputError::InputError;
};

// A file or folder the system would not let us read or write — a full disk, a read-only folder, a
// file where a folder should be, a FIFO where a file should be: names the path and the system's reason.
// Exit 2 like any input: the user can mend it, and nothing already saved was lost.
class FileError : public InputError {
public:
    using InputError::InputError;
};

// A run or comparison folder that another process is writing (util/directory_lock.h).
class FolderInUse : public InputError {
public:
    using InputError::InputError;
};

// Code a student has not written yet: in the student tree of the course (scripts/course.sh), each
// task's solution region is replaced by a throw of this, naming the task and its assignment.
class NotImplemented : public Error {
public:
    explicit NotImplemented(const std::string& task) : Error("not implemented: " + task) {}
};

// More tensor memory than the limit (the machine's physical memory by default): a config that asks
// for a model or batch this machine cannot hold is refused with a message, not killed by the OS.
class MemoryLimitError : public InputError {
public:
    using InputError::InputError;
};

// Shapes that do not fit an op: "matmul: (2,3) x (4,5): inner dimensions 3 and 4 differ". Bad
// input too: shapes come from configs and data, and every op and kernel checks them at its boundary.
class ShapeError : public InputError {
public:
    using InputError::InputError;
};

// Misuse of the tape: backward twice, backward on a non-scalar without a seed, ...
class AutogradError : public Error {
public:
    using Error::Error;
};

// A value outside an op's domain: negative dropout probability, wrong dtype, ...
class ValueError : public InputError {
public:
    using InputError::InputError;
};

// A NaN or ∞ where there should be none (`--check-numerics`, autograd/numerics.h): names the op,
// the layer scope and the shape. Exit 1: the input was well formed; the numbers went wrong.
class NumericsError : public Error {
public:
    using Error::Error;
};

// A NaN or ∞ loss or gradient norm in training: names the step (and the run's last good checkpoint).
// Exit 1, like NumericsError, which the trainer turns into this one.
class NonFiniteError : public Error {
public:
    using Error::Error;
};

}  // namespace tf
