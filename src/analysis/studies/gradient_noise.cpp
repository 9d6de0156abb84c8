// The noise-to-signal ratio of minibatch gradients and the coefficient of variation of a series.
#include "analysis/studies/gradient_noise.h"

#include <cmath>
#include <limits>

#include "analysis/reports/report.h"
#include "autograd/error.h"
#include "autograd/tape.h"

namespace tf {

double gradient_noise_to_signal(const std::vector<std::vector<double>>& minibatch_gradients) {
    const std::size_t M = minibatch_gradients.size();
    if (M < 2) throw ValueError("gradient_noise_to_signal: needs at least 2 minibatch gradients, got " + std::to_string(M));
    const std::size_t P = minibatch_gradients.front().size();
    for (const auto& g : minibatch_gradients)
        if (g.size() != P) throw ValueError("gradient_noise_to_signal: gradients of " + std::to_string(P) + " and " +
                                            std::to_string(g.size()) + " values");
    // ḡ = (1/M) Σ_b g_b
    std::vector<double> mean(P, 0.0);
    for (const auto& g : minibatch_gradients)
        for (std::size_t p = 0; p < P; ++p) mean[p] += g[p] / static_cast<double>(M);
    double signal = 0;   // ‖ḡ‖²
    for (double v : mean) signal += v * v;
    double noise = 0;    // (1/M) Σ_b ‖g_b − ḡ‖²
    for (const auto& g : minibatch_gradients)
        for (std::size_t p = 0; p < P; ++p) noise += (g[p] - mean[p]) * (g[p] - mean[p]) / static_cast<double>(M);
    return signal > 0 ? noise / signal : std::numeric_limits<double>::quiet_NaN();
}

double coefficient_of_variation(const std::vector<double>& values) {
    if (values.size() < 2) return std::numeric_limits<double>::quiet_NaN();
    const double mean = mean_of(values);
    return mean != 0 ? std_of(values) / std::abs(mean) : std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::vector<double>> minibatch_gradients(const std::vector<Tensor>& parameters, int64_t count,
                                                     const std::function<Tensor(int64_t)>& loss_of_minibatch) {
    Tape& tape = Tape::current();
    const auto clear = [&] {
        tape.clear();
        for (Tensor p : parameters) p.zero_grad();
    };
    std::vector<std::vector<double>> gradients;
    for (int64_t b = 0; b < count; ++b) {
        clear();
        tape.backward(loss_of_minibatch(b));
        std::vector<double>& flat = gradients.emplace_back();
        for (const Tensor& p : parameters) {
            const Tensor grad = p.grad();
            if (!grad.defined()) {
                flat.insert(flat.end(), static_cast<std::size_t>(p.numel()), 0.0);
                continue;
            }
            const std::vector<double> values = grad.to_vector();
            flat.insert(flat.end(), values.begin(), values.end());
        }
    }
    clear();
    return gradients;
}

}  // namespace tf
