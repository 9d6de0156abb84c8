// A comparison small enough for a test: three variants (a GRU, the GRU with additive attention, a
// transformer) × two seeds, 6 steps each, on a short copy task.
#pragma once

namespace tf::test {

inline const char* const kTinyComparison = R"({
  "name": "tiny",
  "seeds": [1, 2],
  "data": {"source": "synthetic", "task": "copy", "num_symbols": 6, "min_length": 3, "max_length": 6,
           "train_size": 200, "valid_size": 20, "test_size": 20, "batch_size": 16},
  "optimizer": {"name": "adam", "lr": 0.003},
  "train": {"max_steps": 6, "log_every": 2, "eval_every": 3, "checkpoint_every": 3},
  "variants": [
    {"name": "gru", "model": {"type": "rnn_seq2seq", "cell": "gru", "embedding_size": 8, "hidden_size": 8}},
    {"name": "gru_attention", "model": {"type": "rnn_seq2seq", "cell": "gru", "embedding_size": 8, "hidden_size": 8,
                                        "attention": "additive"}},
    {"name": "transformer", "model": {"type": "transformer", "d_model": 8, "heads": 2, "encoder_layers": 1,
                                      "decoder_layers": 1, "ffn_hidden": 16, "dropout": 0.0, "max_length": 16}}
  ],
  "predictions": {"baseline": "gru", "attention": "gru_attention"},
  "analysis": {"examples": 1, "probes": 2}
})";

}  // namespace tf::test
