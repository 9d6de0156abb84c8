// What `tapeformer tape` shows beside each entry: its op's backward in one line, and the section
// of docs/math/ that derives it. One row per op that records a tape entry (tests/test_tape_view.cpp
// holds the table to every op a shipped model records, and every link to a heading that exists).
#pragma once
#include <span>
#include <string_view>

namespace tf {

struct OpFormula {
    std::string_view op;        // the name the op records on the tape
    std::string_view backward;  // its inputs' gradients from dy, the output's
    std::string_view math;      // docs/math/<file>.md#<heading anchor>
};

std::span<const OpFormula> op_formulas();

// The row of `op`, or nullptr for an op the table lacks.
const OpFormula* find_op_formula(std::string_view op);

}  // namespace tf
