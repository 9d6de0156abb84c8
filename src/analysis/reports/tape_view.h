// `tapeformer tape`: one training step's tape as a student reads it. Every entry in recording
// order — its op, output shape, the layer that recorded it (dotted name), its output's bytes, what
// it read (an earlier entry's output, a parameter, or a constant: data, a mask), and its backward
// formula with the docs/math/ section that derives it — and the backward walk, which visits the
// same entries in reverse. On a tiny model it can show every value and gradient. Rendered as text for a terminal, and
// as one HTML page (with an SVG of the layers and the data flowing between them) that needs no
// script: each layer's entries sit in a <details> that a click opens.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autograd/tape.h"
#include "train/run_config.h"

namespace tf {

struct TapeNode {
    std::size_t index = 0;
    std::string op;
    std::string layer;                  // the dotted name that recorded it; "" outside the layers (embeddings, loss)
    std::vector<Shape> input_shapes;
    Shape output_shape;
    DType dtype = DType::f32;
    std::size_t bytes = 0;              // of the output
    // Per input: "#k" (entry k's output), a parameter's dotted name, or "constant" (needs no gradient).
    std::vector<std::string> inputs;
    Tensor value, grad;   // recorded with values only: the output, and after backward dL/d(output)
};

// The nodes of `tape` (recorded under RecordScopes), naming the parameters it read.
std::vector<TapeNode> tape_nodes(const Tape& tape, const std::vector<std::pair<std::string, Tensor>>& named_parameters);

// How big a step to record. The model is built as configured (its layers, heads and widths are
// what a student wants to see; shrink them with --set); the data is cut small, because a recurrent
// layer records its cell once per token, so a poetry line of 60 characters would fill the page.
// The largest step a tape records, per side: past these the page is too long to read.
inline constexpr int64_t kMaxTapeExamples = 64, kMaxTapeTokens = 512;

struct TapeStepSize {
    int64_t examples = 2;     // the first training examples
    int64_t max_tokens = 8;   // each example's source and target cut to their first max_tokens
};

// One training step of `config`'s model at `size`: the forward pass and the loss recorded (nodes
// and Tape::dump()'s text), then the backward pass run.
struct RecordedStep {
    std::vector<TapeNode> nodes;
    std::string dump;
};
// The ops run on the config's kernel path ("kernels": the readable forms, or the fast ones). With
// `values`, every node keeps its output and gradient: refused (ConfigError) when some output holds
// more than kMaxShownValues numbers, which no one reads by hand.
inline constexpr int64_t kMaxShownValues = 512;
RecordedStep record_training_step(const train::RunConfig& config, const TapeStepSize& size, bool values = false);

// Two lines per node (the entry, then its backward formula and docs/math/ section; then its value
// and gradient when recorded), then the backward walk's order.
std::string tape_text(const std::vector<TapeNode>& nodes);
// Layers (consecutive nodes of one dotted name) as boxes down the page, with the flow between them.
std::string tape_svg(const std::vector<TapeNode>& nodes, const std::string& title);
// The SVG, then one <details> per layer holding its nodes' rows (class "node"), then the backward walk.
std::string tape_html(const std::vector<TapeNode>& nodes, const std::string& title);

}  // namespace tf
