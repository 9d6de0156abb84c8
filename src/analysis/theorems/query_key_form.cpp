// M_h = W_Q,h·W_K,hᵀ per head, the eigenvalues of its symmetric part, and the x that shows the sign.
#include "analysis/theorems/query_key_form.h"

#include <algorithm>
#include <cmath>

#include "analysis/theorems/symmetric_eigen.h"
#include "layers/attention/grouped_heads.h"

namespace tf {

namespace {

// M[a][b] = Σ_r W_q[h·D + r][a] · W_k[g·D + r][b]: (C, C) row-major, from the stored (out, in) weights.
std::vector<double> query_key_matrix(const std::vector<double>& W_q, const std::vector<double>& W_k, int64_t h,
                                     int64_t g, int64_t D, int64_t C) {
    std::vector<double> M(static_cast<std::size_t>(C * C), 0.0);
    for (int64_t r = 0; r < D; ++r)
        for (int64_t a = 0; a < C; ++a)
            for (int64_t b = 0; b < C; ++b) M[a * C + b] += W_q[(h * D + r) * C + a] * W_k[(g * D + r) * C + b];
    return M;
}

double quadratic_form(const std::vector<double>& M, const std::vector<double>& x) {  // xᵀ·M·x
    const auto C = static_cast<int64_t>(x.size());
    double total = 0;
    for (int64_t a = 0; a < C; ++a)
        for (int64_t b = 0; b < C; ++b) total += x[a] * M[a * C + b] * x[b];
    return total;
}

}  // namespace

QueryKeyForm most_negative_query_key_form(const MultiHeadAttention& layer) {
    const MultiHeadAttentionOptions& o = layer.options();
    const int64_t C = o.d_model, H = o.heads, D = C / H;
    const auto state = layer.state_dict();
    const std::vector<double> W_q = state.at("q_proj.weight").to_vector(), W_k = state.at("k_proj.weight").to_vector();
    QueryKeyForm form;
    form.smallest_eigenvalue = INFINITY;
    for (int64_t h = 0; h < H; ++h) {
        const std::vector<double> M = query_key_matrix(W_q, W_k, h, kv_head_of(h, H, o.kv_heads), D, C);
        std::vector<double> symmetric(M.size());  // ½(M + Mᵀ)
        for (int64_t a = 0; a < C; ++a)
            for (int64_t b = 0; b < C; ++b) symmetric[a * C + b] = (M[a * C + b] + M[b * C + a]) / 2;
        const SymmetricEigen eigen = symmetric_eigen(symmetric, C);
        form.largest_magnitude = std::max({form.largest_magnitude, std::abs(eigen.values.front()), std::abs(eigen.values.back())});
        if (eigen.values.front() < form.smallest_eigenvalue)
            form = {h, eigen.values.front(), form.largest_magnitude, eigen.vectors.front(), quadratic_form(M, eigen.vectors.front())};
    }
    return form;
}

Measured check_query_key_psd(const MultiHeadAttention& layer) {
    const QueryKeyForm form = most_negative_query_key_form(layer);
    const std::string head = std::to_string(form.head), C = std::to_string(layer.options().d_model);
    const std::string eigenvalue = "λ_min(½(M + Mᵀ)) = " + short_number(form.smallest_eigenvalue) + " (max |λ| over the heads " +
                                   short_number(form.largest_magnitude) + ")";
    if (form.smallest_eigenvalue >= -1e-10 * form.largest_magnitude)
        return {true, "every head's M = W_Q,h·W_K,hᵀ is PSD: the smallest " + eigenvalue + ", head " + head};
    std::vector<double> first(form.x.begin(), form.x.begin() + std::min<std::ptrdiff_t>(3, std::ssize(form.x)));
    return {false, "head " + head + "'s M = W_Q·W_Kᵀ (" + C + "×" + C + ") has " + eigenvalue + "; its unit eigenvector x = (" +
                       short_numbers(first) + ", …) gives xᵀ·M·x = " + short_number(form.quadratic_form) + " < 0"};
}

}  // namespace tf
