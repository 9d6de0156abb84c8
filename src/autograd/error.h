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

// Shapes that do not fit an op: "matmul: (2,3) x (4,5): inner dimensions 3 and 4 differ".
class ShapeError : public Error {
public:
    using Error::Error;
};

// Misuse of the tape: backward twice, backward on a non-scalar without a seed, ...
class AutogradError : public Error {
public:
    using Error::Error;
};

// A value outside an op's domain: negative dropout probability, wrong dtype, ...
class ValueError : public Error {
public:
    using Error::Error;
};

}  // namespace tf
