// The bytes one generated token must read from memory (greedy decoding, batch 1), the numerator of
// decoding's share of the memory roofline. A step multiplies one token's vector by every weight
// and reads every cached key and value once, a few flops per byte: its ceiling is the read
// bandwidth (read_bandwidth.h), so
//   bytes per token    = weight bytes a step reads + state bytes a step reads, averaged over the steps
//   bandwidth fraction = bytes per token × tokens/s / read bandwidth
// Weights (f32, named as docs/models.md lists them):
//   whole    every decoder block's weights and norms, the final norm, the output layer;
//   one row  the target-side token embedding and learned position tables: a step gathers its row;
//   none     what runs once per sequence, before the steps: the encoder and source embedding, the
//            RNN's bridge and attention key projection (attention.W_k), cross-attention's key and
//            value projections (its keys and values are cached at the first step). The encoder's
//            one pass is in the measured time but not in these bytes: the fraction of a seq2seq
//            workload is a little low.
// State a step reads:
//   transformer (built-in attention): per decoder layer, the keys and values of every position so
//            far, 2 · H_kv·D floats each: positions 1 … N over the N steps, (N + 1)/2 on average;
//            a seq2seq decoder also reads its cross-attention's keys and values of the S source
//            positions at every step;
//   other    (RNN decoders, registry-chosen blocks): the decode state as held after the last token.
// Decoding without the cache is given the same bytes, the cached way's floor, so its fraction says
// how far re-running the prefix is from that roof. The bandwidth is DRAM's: a model whose weights
// and cache fit in the last-level cache (W4's are a few MiB) is read from there at every step after
// the first, and its fraction can pass 100 % — that says the cache, not memory, feeds it.
#pragma once
#include <cstdint>

#include "models/build.h"

namespace tf::analysis {

// The weight bytes one decoding step reads, by the rules above.
int64_t step_weight_bytes(const SequenceModel& model);

// The state bytes a step reads, averaged over `generated` steps; `held_state_bytes` (what the
// decode state holds after the last token) is used where the rules above say so.
double mean_step_state_bytes(const ModelConfig& config, int64_t source_length, int64_t generated,
                             int64_t held_state_bytes);

// bytes per token × tokens/s / (read GB/s · 1e9); 0 without a measured bandwidth.
double bandwidth_fraction(double bytes_per_token, double tokens_per_second, double read_bandwidth_gbs);

}  // namespace tf::analysis
