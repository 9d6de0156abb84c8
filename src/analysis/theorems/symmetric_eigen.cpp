// Cyclic Jacobi: sweep over every off-diagonal pair (p, q) and zero a_pq with one plane rotation
// A ← Jᵀ·A·J; the off-diagonal mass falls (quadratically once small), and the diagonal becomes the
// eigenvalues, the accumulated V = J₁·J₂·… the eigenvectors.
#include "analysis/theorems/symmetric_eigen.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tf {

namespace {

constexpr int kMaxSweeps = 64;

double off_diagonal_mass(const std::vector<double>& a, int64_t n) {
    double mass = 0;
    for (int64_t p = 0; p < n; ++p)
        for (int64_t q = p + 1; q < n; ++q) mass += a[p * n + q] * a[p * n + q];
    return mass;
}

// Zeroes a_pq: J is the identity but for J_pp = J_qq = c, J_pq = s, J_qp = −s, with t = s/c the
// smaller root of t² + 2θt − 1 = 0, θ = (a_qq − a_pp) / (2 a_pq) (Numerical Recipes §11.1).
void rotate(std::vector<double>& a, std::vector<double>& v, int64_t n, int64_t p, int64_t q) {
    const double theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
    const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
    const double c = 1 / std::sqrt(t * t + 1), s = t * c;
    for (int64_t k = 0; k < n; ++k) {  // A ← A·J (columns p, q)
        const double kp = a[k * n + p], kq = a[k * n + q];
        a[k * n + p] = c * kp - s * kq, a[k * n + q] = s * kp + c * kq;
    }
    for (int64_t k = 0; k < n; ++k) {  // A ← Jᵀ·A (rows p, q)
        const double pk = a[p * n + k], qk = a[q * n + k];
        a[p * n + k] = c * pk - s * qk, a[q * n + k] = s * pk + c * qk;
    }
    for (int64_t k = 0; k < n; ++k) {  // V ← V·J
        const double kp = v[k * n + p], kq = v[k * n + q];
        v[k * n + p] = c * kp - s * kq, v[k * n + q] = s * kp + c * kq;
    }
}

}  // namespace

SymmetricEigen symmetric_eigen(const std::vector<double>& A, int64_t n) {
    std::vector<double> a = A, v(static_cast<std::size_t>(n * n), 0.0);  // (n, n) each
    for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
    const double total = std::inner_product(a.begin(), a.end(), a.begin(), 0.0);
    // Stop when the off-diagonal part is below rounding of the whole: ‖off(A)‖ ≤ 1e-16·‖A‖_F.
    for (int sweep = 0; sweep < kMaxSweeps && off_diagonal_mass(a, n) > 1e-32 * total; ++sweep)
        for (int64_t p = 0; p < n; ++p)
            for (int64_t q = p + 1; q < n; ++q)
                if (a[p * n + q] != 0) rotate(a, v, n, p, q);
    std::vector<int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return a[i * n + i] < a[j * n + j]; });
    SymmetricEigen eigen;
    for (const int64_t i : order) {
        eigen.values.push_back(a[i * n + i]);
        std::vector<double> column(static_cast<std::size_t>(n));
        for (int64_t k = 0; k < n; ++k) column[k] = v[k * n + i];
        eigen.vectors.push_back(std::move(column));
    }
    return eigen;
}

}  // namespace tf
