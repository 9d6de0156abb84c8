// The fused additive scores: each batch item's rows in one task, so a decoder step wakes the
// threads once forward and once backward. Every loop over the attention width vectorises.
#include "layers/attention/additive_scores.h"

#include <algorithm>
#include <string>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/kernels/vector_math.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

struct ScoreShape {
    int64_t batch, source, width;  // B, S, A
    bool worth_threads() const { return batch > 1 && batch * source * width > kernels::kParallelGrain; }
};

ScoreShape checked_shape(const Tensor& keys, const Tensor& query, const Tensor& v) {
    const bool fits = keys.dim() == 3 && query.dim() == 2 && v.dim() == 2 && query.size(0) == keys.size(0) &&
                      query.size(1) == keys.size(2) && v.size(0) == 1 && v.size(1) == keys.size(2);
    if (!fits)
        throw ShapeError("additive_scores: keys " + to_string(keys.shape()) + ", query " + to_string(query.shape()) +
                         ", v " + to_string(v.shape()) + " do not fit (B, S, A), (B, A), (1, A)");
    if (query.dtype() != keys.dtype() || v.dtype() != keys.dtype())
        throw ValueError("additive_scores: dtypes differ (" + dtype_name(keys.dtype()) + ", " + dtype_name(query.dtype()) +
                         ", " + dtype_name(v.dtype()) + ")");
    return {keys.size(0), keys.size(1), keys.size(2)};
}

// One batch item: H_j = tanh(K_j + q), e_j = v·H_j for every source position j.
template <class Real>
void score_rows(const ScoreShape& s, const Real* keys, const Real* query, const Real* v, Real* energy, Real* scores) {
    for (int64_t j = 0; j < s.source; ++j) {
        const Real* k = keys + j * s.width;
        Real* h = energy + j * s.width;
        for (int64_t a = 0; a < s.width; ++a) h[a] = kernels::vector_tanh(k[a] + query[a]);
        Real score = 0;
#pragma omp simd reduction(+ : score)
        for (int64_t a = 0; a < s.width; ++a) score += v[a] * h[a];
        scores[j] = score;
    }
}

// One batch item's gradients: G_j = de_j · v ⊙ (1 − H_j²) is dK_j; dq = Σ_j G_j; dv_b = Σ_j de_j · H_j.
template <class Real>
void score_gradient_rows(const ScoreShape& s, const Real* energy, const Real* v, const Real* dscores, Real* dkeys,
                         Real* dquery, Real* dv_item) {
    std::fill_n(dquery, s.width, Real(0));
    std::fill_n(dv_item, s.width, Real(0));
    for (int64_t j = 0; j < s.source; ++j) {
        const Real* h = energy + j * s.width;
        Real* g = dkeys + j * s.width;
        const Real de = dscores[j];
        for (int64_t a = 0; a < s.width; ++a) {
            g[a] = de * v[a] * (1 - h[a] * h[a]);
            dquery[a] += g[a];
            dv_item[a] += de * h[a];
        }
    }
}

}  // namespace

Tensor additive_scores(const Tensor& keys, const Tensor& query, const Tensor& v) {
    const ScoreShape s = checked_shape(keys, query, v);
    const bool parallel = !kernels::use_reference() && s.worth_threads();
    Tensor energy({s.batch, s.source, s.width}, keys.dtype());  // H, kept for the backward
    Tensor scores({s.batch, s.source}, keys.dtype());
    dispatch(keys.dtype(), [&](auto zero) {
        using Real = decltype(zero);
        kernels::parallel_for(s.batch, parallel, [&](int64_t b) {
            score_rows(s, keys.data<Real>() + b * s.source * s.width, query.data<Real>() + b * s.width, v.data<Real>(),
                       energy.data<Real>() + b * s.source * s.width, scores.data<Real>() + b * s.source);
        });
    });
    return record("additive_scores", {keys, query, v}, scores, [energy, v, s, parallel](const Tensor& dscores) -> Grads {
        Tensor dkeys({s.batch, s.source, s.width}, energy.dtype());
        Tensor dquery({s.batch, s.width}, energy.dtype());
        Tensor dv_items({s.batch, s.width}, energy.dtype());  // each item's share of dv
        dispatch(energy.dtype(), [&](auto zero) {
            using Real = decltype(zero);
            kernels::parallel_for(s.batch, parallel, [&](int64_t b) {
                score_gradient_rows(s, energy.data<Real>() + b * s.source * s.width, v.data<Real>(),
                                    dscores.data<Real>() + b * s.source, dkeys.data<Real>() + b * s.source * s.width,
                                    dquery.data<Real>() + b * s.width, dv_items.data<Real>() + b * s.width);
            });
        });
        return {dkeys, dquery, sum(dv_items, {0}, /*keepdim=*/true)};  // dv (1, A)
    });
}

}  // namespace tf
