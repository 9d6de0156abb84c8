// Head statistics from attention weights, and the q·k variance check.
#include "analysis/studies/attention_stats.h"

#include <cmath>

#include "autograd/error.h"
#include "layers/attention/grouped_heads.h"

namespace tf {

std::vector<HeadStats> head_stats(const Tensor& weights) {
    if (weights.dim() != 4) throw ShapeError("head_stats: expected weights (B, H, T, S), got " + to_string(weights.shape()));
    const int64_t B = weights.size(0), H = weights.size(1), T = weights.size(2), S = weights.size(3);
    const std::vector<double> a = weights.to_vector();
    std::vector<HeadStats> stats(static_cast<std::size_t>(H));
    for (int64_t h = 0; h < H; ++h) {
        int64_t rows = 0;
        for (int64_t b = 0; b < B; ++b)
            for (int64_t i = 0; i < T; ++i) {
                const double* row = a.data() + ((b * H + h) * T + i) * S;
                double total = 0, entropy = 0, distance = 0;
                int64_t seen = 0;
                for (int64_t j = 0; j < S; ++j) {
                    total += row[j];
                    if (row[j] > 0) entropy -= row[j] * std::log(row[j]), ++seen;
                    distance += row[j] * static_cast<double>(std::abs(i - j));
                }
                if (total == 0) continue;
                stats[h].entropy += entropy;
                stats[h].uniform_entropy += std::log(static_cast<double>(seen));
                stats[h].mean_distance += distance;
                ++rows;
            }
        if (rows) {
            const double count = static_cast<double>(rows);
            stats[h].entropy /= count, stats[h].uniform_entropy /= count, stats[h].mean_distance /= count;
        }
    }
    return stats;
}

namespace {
double variance(const std::vector<double>& values) {
    double mean = 0, squares = 0;
    for (double v : values) mean += v / static_cast<double>(values.size());
    for (double v : values) squares += (v - mean) * (v - mean) / static_cast<double>(values.size());
    return squares;
}
}  // namespace

DotProductScale dot_product_scale(const Tensor& queries, const Tensor& keys) {
    if (queries.dim() != 4 || keys.dim() != 4 || queries.size(3) != keys.size(3) || queries.size(1) % keys.size(1) != 0)
        throw ShapeError("dot_product_scale: queries " + to_string(queries.shape()) + " and keys " + to_string(keys.shape()) +
                         " must be (B, H, T, D) and (B, H_kv, S, D)");
    const int64_t B = queries.size(0), H = queries.size(1), T = queries.size(2), D = queries.size(3);
    const int64_t H_kv = keys.size(1), S = keys.size(2);
    const std::vector<double> q = queries.to_vector(), k = keys.to_vector();
    std::vector<double> dots;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < T; ++i)
                for (int64_t j = 0; j < S; ++j) {
                    const double* qi = q.data() + ((b * H + h) * T + i) * D;
                    const double* kj = k.data() + ((b * H_kv + kv_head_of(h, H, H_kv)) * S + j) * D;
                    double dot = 0;
                    for (int64_t d = 0; d < D; ++d) dot += qi[d] * kj[d];
                    dots.push_back(dot);
                }
    DotProductScale scale;
    scale.d_k = D;
    scale.variance_raw = variance(dots);
    scale.variance_scaled = scale.variance_raw / static_cast<double>(D);
    // Per-component variance of q and k: the theorem assumes 1.
    for (int64_t d = 0; d < D; ++d) {
        std::vector<double> qd, kd;
        for (int64_t r = 0; r < B * H * T; ++r) qd.push_back(q[r * D + d]);
        for (int64_t r = 0; r < B * H_kv * S; ++r) kd.push_back(k[r * D + d]);
        scale.component_variance_q += variance(qd) / static_cast<double>(D);
        scale.component_variance_k += variance(kd) / static_cast<double>(D);
    }
    return scale;
}

}  // namespace tf
