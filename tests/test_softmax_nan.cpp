// A NaN reaching a softmax comes out as NaN: only a row that is entirely −∞ (every key masked)
// may become zeros. A row of NaN scores turned into zeros would hide a poisoned weight.
#include "catch.h"
#include <cmath>
#include <limits>

#include "autograd/ops.h"
#include "helpers.h"

using namespace tf;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMasked = -std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("softmax and log_softmax keep NaN rows NaN and give zeros only for fully masked rows", "[unit]") {
    for (const DType dtype : {DType::f32, DType::f64}) {
        const Tensor scores = Tensor::from_data({kNaN, kNaN, kNaN, kMasked, kMasked, kMasked, kNaN, kMasked, kMasked},
                                                {3, 3}, dtype);
        for (const Tensor& out : {softmax(scores), log_softmax(scores)}) {
            const auto y = out.to_vector();
            INFO("dtype " << (dtype == DType::f32 ? "f32" : "f64"));
            CHECK((std::isnan(y[0]) && std::isnan(y[1]) && std::isnan(y[2])));  // all NaN
            CHECK((y[3] == 0 && y[4] == 0 && y[5] == 0));                        // all masked
            CHECK(std::isnan(y[6]));                                              // NaN among masked
        }
    }
}
