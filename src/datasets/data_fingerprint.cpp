// The data's fingerprint, split by split.
#include "datasets/data_fingerprint.h"

#include "util/fnv1a.h"

namespace tf::train {

std::string data_fingerprint(const Dataset& dataset) {
    Fnv1a64 hash;
    for (const auto* split : {&dataset.train, &dataset.valid, &dataset.test}) {
        hash.add_u64(split->size());
        for (const Example& example : *split) {
            hash.add_u64(example.src.size()), hash.add_u64(example.tgt.size());
            for (const int64_t id : example.src) hash.add_u64(static_cast<uint64_t>(id));
            for (const int64_t id : example.tgt) hash.add_u64(static_cast<uint64_t>(id));
        }
    }
    hash.add_bytes(dataset.tokenizer.to_json().dump());
    return hash.hex();
}

}  // namespace tf::train
