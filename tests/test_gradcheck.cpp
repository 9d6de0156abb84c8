// Every op's backward against central differences in f64 (the table in autograd/op_checks.cpp and
// the fused attention ops' cases in layers/attention/fused_op_checks.cpp), that the table covers
// every op, and that gradcheck itself catches a wrong backward.
#include "catch.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "autograd/gradcheck.h"
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/attention/fused_op_checks.h"
#include "helpers.h"

using namespace tf;

TEST_CASE("every op's gradient matches central differences", "[gradcheck]") {
    const auto index = GENERATE(range(std::size_t{0}, all_op_checks().size()));
    const OpCheck& check = all_op_checks()[index];
    INFO(check.op << ": " << check.variant);
    const GradcheckResult result = gradcheck(check.fn, check.make_inputs());
    INFO(result.message);
    CHECK(result.checked > 0);
    CHECK(result.ok);
}

TEST_CASE("the gradcheck table covers every op, and each case records its op", "[unit]") {
    const std::set<std::string> composites = {"mean", "split", "embedding"};
    std::vector<std::string_view> op_names(kOpNames.begin(), kOpNames.end());
    op_names.insert(op_names.end(), kFusedOpNames.begin(), kFusedOpNames.end());
    std::set<std::string> covered;
    for (const OpCheck& check : all_op_checks()) {
        INFO(check.op << ": " << check.variant);
        const bool primitive = std::find(op_names.begin(), op_names.end(), check.op) != op_names.end();
        CHECK((primitive || composites.count(check.op)));
        std::vector<Tensor> inputs = check.make_inputs();
        for (Tensor& input : inputs) input.set_requires_grad();
        Tape::current().clear();
        check.fn(inputs);
        const auto recorded = Tape::current().op_names();
        Tape::current().clear();
        for (const std::string& op : recorded)
            CHECK(std::find(op_names.begin(), op_names.end(), op) != op_names.end());
        if (primitive) {
            CHECK(std::find(recorded.begin(), recorded.end(), check.op) != recorded.end());
            covered.insert(check.op);
        }
    }
    for (std::string_view op : op_names) {
        INFO("op without a gradcheck case: " << op);
        CHECK(covered.count(std::string(op)));
    }
}

TEST_CASE("gradcheck catches a wrong backward and names the worst element, both values and the tolerance", "[unit]") {
    // y = x², but the backward claims dy/dx = x (half the truth).
    const DifferentiableFn broken = [](const std::vector<Tensor>& in) {
        const Tensor x = in[0];
        Tensor y = x.detach() * x.detach();
        return record("broken_square", {x}, y, [x](const Tensor& dy) -> Grads { return {dy * x}; });
    };
    const GradcheckResult result = gradcheck(broken, {test::f64({1, 2, 30}, {3})});
    CHECK(!result.ok);
    CHECK(result.index == 2);  // the largest error is at x = 30: analytic 30·r, numeric 60·r
    CHECK(result.analytic == Approx(result.numeric / 2).epsilon(1e-6));
    INFO(result.message);
    CHECK(result.message.find("MISMATCH: worst at input 0 element 2: analytic ") == 0);
    // Its test at that element: atol + rtol·|numeric| with the defaults, numeric = 60·r for r in [½, 1½].
    const double tolerance = GradcheckOptions{}.atol + GradcheckOptions{}.rtol * std::abs(result.numeric);
    std::ostringstream expected;
    expected.precision(8);
    expected << ", numeric " << result.numeric << ", tolerance " << tolerance << " (3 elements checked)";
    CHECK(result.message.find(expected.str()) != std::string::npos);
}

TEST_CASE("gradcheck fails where the function is not finite instead of skipping the element", "[unit]") {
    // y = √x at x = 1e-7: x − eps is negative, so the numeric derivative is NaN. The backward is
    // wrong too (123·dy), and a NaN comparison must not let it pass.
    const DifferentiableFn broken = [](const std::vector<Tensor>& in) {
        const Tensor x = in[0];
        return record("broken_sqrt", {x}, sqrt(x.detach()), [](const Tensor& dy) -> Grads { return {dy * 123.0}; });
    };
    const GradcheckResult result = gradcheck(broken, {test::f64({1e-7, 1e-7}, {2})});
    CHECK(!result.ok);
    CHECK(std::isnan(result.numeric));
}

TEST_CASE("gradcheck checks only the inputs marked requires_grad", "[unit]") {
    Tensor a = test::f64({1, 2}, {2});
    Tensor b = test::f64({3, 4}, {2});
    b.set_requires_grad();
    const GradcheckResult result = gradcheck([](const std::vector<Tensor>& in) { return in[0] * in[1]; }, {a, b});
    CHECK(result.ok);
    CHECK(result.checked == 2);
    CHECK(result.input == 1);
}

TEST_CASE("gradcheck refuses f32 inputs", "[unit]") {
    REQUIRE_THROWS_WITH(gradcheck([](const std::vector<Tensor>& in) { return in[0]; }, {Tensor::ones({2})}),
                        Catch::Contains("expected dtype f64"));
}
