// Dependency kernels and loss-gradient norms by batched backward passes.
#include "analysis/studies/gradient_probe.h"

#include <cmath>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

IndexTensor repeat_row(const IndexTensor& ids, int64_t count) {
    if (ids.numel() == 0) return ids;
    const int64_t width = ids.shape[1];
    std::vector<int64_t> values;
    for (int64_t r = 0; r < count; ++r) values.insert(values.end(), ids.values.begin(), ids.values.begin() + width);
    return IndexTensor(values, {count, width});
}

Tensor repeat_row(const Tensor& mask, int64_t count) {
    if (!mask.defined()) return mask;
    return index_select(slice(mask, 0, 0, 1), 0, IndexTensor(std::vector<int64_t>(static_cast<std::size_t>(count), 0)));
}

// Runs one forward with probing on, then backward with `seed` (N, T, V) on the logits; returns
// the input gradients (N, S, C) as norms ‖g[r, j, :]‖² per row r and source position j.
Matrix input_gradient_energy(SequenceModel& model, const ModelInput& batch, const std::function<Tensor(const Tensor&)>& make_seed) {
    Tape& tape = Tape::current();
    tape.clear();
    ForwardObserver probe{.probe_inputs = true};
    ModelInput probed_batch = batch;
    probed_batch.observer = &probe;
    const Tensor logits = model.forward(probed_batch);
    const Tensor inputs = probe.probed_inputs;
    if (!inputs.defined()) throw ValueError("gradient probe: the model did not expose its input vectors (probe())");
    tape.backward(logits, make_seed(logits));
    const Tensor grad = inputs.grad().defined() ? inputs.grad() : Tensor::zeros(inputs.shape(), inputs.dtype());
    const int64_t N = grad.size(0), S = grad.size(1), C = grad.size(2);
    const std::vector<double> g = grad.to_vector();
    Matrix energy(static_cast<std::size_t>(N), std::vector<double>(static_cast<std::size_t>(S), 0.0));
    for (int64_t r = 0; r < N; ++r)
        for (int64_t j = 0; j < S; ++j)
            for (int64_t c = 0; c < C; ++c) energy[r][j] += g[(r * S + j) * C + c] * g[(r * S + j) * C + c];
    return energy;
}

int64_t target_length(const ModelInput& example) { return example.tgt_in.numel() ? example.tgt_in.shape[1] : 0; }

}  // namespace

ModelInput repeat_example(const ModelInput& input, int64_t count) {
    ModelInput out;
    out.src = repeat_row(input.src, count);
    out.tgt_in = repeat_row(input.tgt_in, count);
    out.src_padding_mask = repeat_row(input.src_padding_mask, count);
    out.tgt_padding_mask = repeat_row(input.tgt_padding_mask, count);
    if (!input.src_lengths.empty()) out.src_lengths.assign(static_cast<std::size_t>(count), input.src_lengths[0]);
    if (!input.tgt_lengths.empty()) out.tgt_lengths.assign(static_cast<std::size_t>(count), input.tgt_lengths[0]);
    return out;
}

Matrix dependency_kernel(SequenceModel& model, const ModelInput& example, int64_t probes, Rng& rng) {
    const int64_t T = target_length(example);
    if (T == 0) throw ValueError("dependency_kernel: needs a target sequence");
    const bool exact = probes <= 0;
    // Exact: one row per output coordinate (u = e_v), and ‖J‖²_F = Σ_v ‖e_vᵀJ‖².
    // Estimated: `probes` rows with u ~ N(0, I), and ‖J‖²_F = E‖uᵀJ‖² ≈ the mean.
    const int64_t rows_per_position = exact ? model.vocab_size() : probes;
    const Matrix energy = input_gradient_energy(model, repeat_example(example, T * rows_per_position), [&](const Tensor& logits) {
        Tensor seed = Tensor::zeros(logits.shape(), logits.dtype());  // row r = i·rows_per_position + p
        const int64_t V = logits.size(2);
        for (int64_t r = 0; r < T * rows_per_position; ++r) {
            const int64_t i = r / rows_per_position, p = r % rows_per_position;
            for (int64_t v = 0; v < V; ++v) seed.set({r, i, v}, exact ? (v == p ? 1.0 : 0.0) : rng.normal());
        }
        return seed;
    });
    Matrix kernel(static_cast<std::size_t>(T));
    for (int64_t i = 0; i < T; ++i) {
        kernel[i].assign(energy[0].size(), 0.0);
        for (int64_t p = 0; p < rows_per_position; ++p)
            for (std::size_t j = 0; j < energy[0].size(); ++j) kernel[i][j] += energy[i * rows_per_position + p][j];
        for (double& value : kernel[i]) value = std::sqrt(exact ? value : value / static_cast<double>(rows_per_position));
    }
    return kernel;
}

Matrix loss_gradient_norms(SequenceModel& model, const ModelInput& example, const IndexTensor& targets, int64_t pad) {
    const int64_t T = target_length(example);
    if (targets.shape != Shape{1, T}) throw ShapeError("loss_gradient_norms: targets must be (1, " + std::to_string(T) + ")");
    // Row i's seed is ∂L_i/∂logits_i = softmax(logits_i) − onehot(target_i) at position i only.
    Matrix energy = input_gradient_energy(model, repeat_example(example, T), [&](const Tensor& logits) {
        Tensor seed = Tensor::zeros(logits.shape(), logits.dtype());
        const Tensor probabilities = softmax(logits);
        const int64_t V = logits.size(2);
        for (int64_t i = 0; i < T; ++i) {
            const int64_t target = targets.values[i];
            if (target == pad) continue;
            for (int64_t v = 0; v < V; ++v) seed.set({i, i, v}, probabilities.at({i, i, v}) - (v == target ? 1.0 : 0.0));
        }
        return seed;
    });
    for (auto& row : energy)
        for (double& value : row) value = std::sqrt(value);
    return energy;
}

std::vector<int64_t> effective_receptive_field(const Matrix& kernel, double relative_epsilon) {
    std::vector<int64_t> sizes;
    for (const auto& row : kernel) {
        double largest = 0;
        for (double value : row) largest = std::max(largest, value);
        int64_t count = 0;
        for (double value : row) count += largest > 0 && value > relative_epsilon * largest;
        sizes.push_back(count);
    }
    return sizes;
}

std::vector<double> mean_by_distance(const Matrix& matrix, int64_t offset) {
    std::vector<double> total, count;
    for (std::size_t i = 0; i < matrix.size(); ++i)
        for (std::size_t j = 0; j < matrix[i].size(); ++j) {
            const int64_t d = offset + static_cast<int64_t>(i) - static_cast<int64_t>(j);
            if (d < 0) continue;
            if (static_cast<int64_t>(total.size()) <= d) total.resize(static_cast<std::size_t>(d) + 1, 0.0), count.resize(static_cast<std::size_t>(d) + 1, 0.0);
            total[static_cast<std::size_t>(d)] += matrix[i][j];
            count[static_cast<std::size_t>(d)] += 1;
        }
    for (std::size_t d = 0; d < total.size(); ++d) total[d] = count[d] ? total[d] / count[d] : std::nan("");
    return total;
}

}  // namespace tf
