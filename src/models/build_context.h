// What every model factory receives besides its JSON section.
#pragma once
#include <cstdint>
#include <memory>

#include "autograd/random.h"
#include "autograd/tensor.h"

namespace tf {

struct ModelBuildContext {
    int64_t vocab_size = 0;
    int64_t pad_id = 0;       // embeddings keep this row at 0; losses ignore it
    int64_t max_length = 512; // longest sequence positions must cover (source or target, plus <bos>/<eos>)
    uint64_t seed = 0;        // initial weights
    std::shared_ptr<Rng> dropout_rng;
    DType dtype = DType::f32;
};

}  // namespace tf
