// One example of a dataset, and the three splits of them: the types a dataset and the synthetic
// tasks that make examples share (datasets/dataset.h, datasets/synthetic.h).
#pragma once
#include <cstdint>
#include <vector>

namespace tf::train {

// One sequence pair, without <bos>/<eos> (batching adds them). For the "lm" task `src` is the
// sequence and `tgt` is empty.
struct Example {
    std::vector<int64_t> src, tgt;
    bool operator==(const Example&) const = default;
};

struct ExampleSplits {
    std::vector<Example> train, valid, test;
};

}  // namespace tf::train
