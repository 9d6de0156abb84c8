// `tapeformer theorems`: every checkable statement of the attention theory this project teaches,
// measured on random weights and, given a trained model, on its first multi-head attention; one
// TheoremCheck per statement, with the docs/math/ section that explains it. The checks themselves
// are attention_theorems.h, layer_theorems.h and query_key_form.h, which the property tests call too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/json_reader.h"
#include "layers/module.h"

namespace tf {

struct TheoremCheck {
    std::string statement;         // "attention weights are non-negative and each row sums to one"
    std::string short_statement;   // "attention weights ≥ 0, each row sums to 1": at most 45 characters
    std::string key_number;        // "max |Σα − 1| = 2.2e-16": the one number that says most, per set of weights
    std::string math_ref;          // "docs/math/theory.md#1-…": file and section anchor
    std::string measured;          // "random: …; trained encoder.layers.0.self_attn: …"
    bool holds = false;            // on every set of weights it was checked on
    bool expected_to_hold = true;  // false for a claim that is false in general (W_Q·W_Kᵀ is PSD)
    bool as_expected() const { return holds == expected_to_hold; }
};

struct TheoremOptions {
    uint64_t seed = 1;               // the random weights, inputs and samples
    const Module* trained = nullptr;  // a trained model: its first multi_head_attention is checked too
};

// The 13 statements in order. Statements about a model's weights say so on their line when the
// trained model has no multi-head attention.
std::vector<TheoremCheck> run_theorems(const TheoremOptions& options);

// Statement `number` (from 1) as `theorems --json` prints it: number, statement, math_ref, measured,
// holds, expected_to_hold, as_expected.
config::Json theorem_json(std::size_t number, const TheoremCheck& check);

}  // namespace tf
