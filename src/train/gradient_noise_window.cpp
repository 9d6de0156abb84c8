// The noise-to-signal ratio over a window of steps (train/gradient_noise_window.h).
#include "train/gradient_noise_window.h"

#include <algorithm>
#include <limits>

#include "autograd/dtype.h"

namespace tf::train {

void GradientNoiseWindow::add(const std::vector<Tensor>& parameters) {
    std::size_t offset = 0;
    for (const Tensor& parameter : parameters) {
        const auto count = static_cast<std::size_t>(parameter.numel());
        if (sum_.size() < offset + count) sum_.resize(offset + count, 0.0);
        const Tensor grad = parameter.grad();
        if (grad.defined())
            dispatch(grad.dtype(), [&](auto zero) {
                using T = decltype(zero);
                const T* values = grad.data<T>();
                for (std::size_t i = 0; i < count; ++i) {
                    const auto g = static_cast<double>(values[i]);
                    sum_[offset + i] += g, squares_ += g * g;
                }
            });
        offset += count;
    }
    ++steps_;
}

double GradientNoiseWindow::take() {
    const auto W = static_cast<double>(steps_);
    double signal = 0;   // ‖ḡ‖²
    for (double total : sum_) signal += (total / W) * (total / W);
    const double noise = squares_ / W - signal;   // (1/W) Σ_t ‖g_t − ḡ‖²
    const double ratio = steps_ >= 2 && signal > 0 ? std::max(0.0, noise) / signal : std::numeric_limits<double>::quiet_NaN();
    std::fill(sum_.begin(), sum_.end(), 0.0);
    squares_ = 0, steps_ = 0;
    return ratio;
}

}  // namespace tf::train
