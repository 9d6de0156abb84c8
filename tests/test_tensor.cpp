// Tensor basics: factories, element access, dtype conversion, printing, the seeded RNG.
#include "catch.h"
#include <sstream>

#include "autograd/error.h"
#include "autograd/storage.h"
#include "autograd/tensor.h"
#include "helpers.h"

using namespace tf;

TEST_CASE("factories fill shapes with the right values", "[unit]") {
    const Tensor z = Tensor::zeros({2, 3}, DType::f64);
    CHECK(z.shape() == Shape{2, 3});
    CHECK(z.numel() == 6);
    CHECK(z.dtype() == DType::f64);
    test::require_values(z, {0, 0, 0, 0, 0, 0});
    test::require_values(Tensor::ones({2}), {1, 1});
    test::require_values(Tensor::full({3}, 2.5), {2.5, 2.5, 2.5});
    test::require_values(Tensor::arange(4, DType::f64), {0, 1, 2, 3});
    CHECK(Tensor::scalar(7.0).item() == 7.0);
    CHECK(Tensor::scalar(7.0).dim() == 0);
}

TEST_CASE("from_data rejects a value count that does not fill the shape", "[unit]") {
    REQUIRE_THROWS_WITH(Tensor::from_data({1, 2, 3}, {2, 2}), Catch::Contains("3 values do not fill shape (2,2)"));
}

TEST_CASE("element access is row-major and bounds-checked", "[unit]") {
    Tensor t = Tensor::from_data({1, 2, 3, 4, 5, 6}, {2, 3});
    CHECK(t.at({0, 2}) == 3);
    CHECK(t.at({1, 0}) == 4);
    t.set({1, 1}, 50);
    CHECK(t.to_vector()[4] == 50);
    REQUIRE_THROWS_AS(t.at({2, 0}), ShapeError);
    REQUIRE_THROWS_AS(t.at({0}), ShapeError);
    REQUIRE_THROWS_AS(Tensor::zeros({2, -1}), ShapeError);
    REQUIRE_THROWS_WITH(t.item(), Catch::Contains("expected 1"));
}

TEST_CASE("copies share storage, clone and to() do not", "[unit]") {
    Tensor a = Tensor::from_data({1, 2}, {2});
    Tensor b = a;
    b.set({0}, 9);
    CHECK(a.at({0}) == 9);
    Tensor c = a.clone();
    c.set({0}, 1);
    CHECK(a.at({0}) == 9);
    const Tensor d = a.to(DType::f64);
    CHECK(d.dtype() == DType::f64);
    CHECK(!d.shares_storage(a));
    CHECK(d.at({0}) == 9);
    CHECK(a.to(DType::f32).shares_storage(a));
}

TEST_CASE("data<T>() checks the dtype", "[unit]") {
    Tensor t = Tensor::zeros({2}, DType::f32);
    REQUIRE_THROWS_WITH(t.data<double>(), Catch::Contains("expected dtype f64, got f32"));
}

TEST_CASE("printing shows shape, dtype and values", "[unit]") {
    const Tensor t = Tensor::from_data({1, 2, 3, 4}, {2, 2});
    std::ostringstream out;
    out << t;
    CHECK(out.str() == "Tensor(2,2) f32\n[[1, 2],\n [3, 4]]");
    CHECK(Tensor().to_string() == "Tensor(undefined)");
}

TEST_CASE("printing elides the middle of long rows", "[unit]") {
    const std::string text = Tensor::arange(100).to_string(8);
    CHECK(text.find("[0, 1, 2, ..., 97, 98, 99]") != std::string::npos);
}

TEST_CASE("the RNG is reproducible from its seed and restorable from its state", "[unit]") {
    Rng a(42), b(42), c(43);
    const double first = a.uniform();
    CHECK(first == b.uniform());
    CHECK(first != c.uniform());
    const Rng::State saved = a.state();
    const double next = a.uniform();
    a.set_state(saved);
    CHECK(a.uniform() == next);
}

TEST_CASE("uniform and normal tensors have the requested moments", "[unit]") {
    Rng rng(1);
    const auto u = Tensor::uniform({20000}, -1, 3, rng, DType::f64).to_vector();
    const auto n = Tensor::normal({20000}, 2, 0.5, rng, DType::f64).to_vector();
    double u_mean = 0, n_mean = 0, n_var = 0;
    for (double v : u) {
        CHECK((v >= -1 && v < 3));
        u_mean += v / u.size();
    }
    for (double v : n) n_mean += v / n.size();
    for (double v : n) n_var += (v - n_mean) * (v - n_mean) / n.size();
    CHECK(u_mean == Approx(1.0).margin(0.05));
    CHECK(n_mean == Approx(2.0).margin(0.02));
    CHECK(n_var == Approx(0.25).margin(0.01));
}

TEST_CASE("live and peak tensor memory are counted", "[unit]") {
    memory::reset_peak();
    const int64_t before = memory::live_bytes();
    {
        const Tensor big = Tensor::zeros({1000}, DType::f64);
        CHECK(memory::live_bytes() == before + 8000);
    }
    CHECK(memory::live_bytes() == before);
    CHECK(memory::peak_bytes() >= before + 8000);
}

TEST_CASE("a tensor past the memory limit is refused before it is allocated, naming its shape", "[unit]") {
    const int64_t saved_limit = memory::limit_bytes();
    const int64_t live = memory::live_bytes();
    memory::set_limit_bytes(live + (1 << 20));  // 1 MiB of room
    CHECK_NOTHROW(Tensor::zeros({256, 256}, DType::f32));  // 256 KiB
    REQUIRE_THROWS_WITH(Tensor::zeros({512, 1024}, DType::f32),  // 2 MiB
                        Catch::StartsWith("tensor of shape (512,1024): tensor memory: 2.0 MiB more on top of") &&
                            Catch::Contains("would pass the limit of"));
    CHECK(memory::live_bytes() == live);  // nothing was counted for the refused tensor
    memory::set_limit_bytes(saved_limit);
    CHECK_THROWS_AS(Tensor::zeros({int64_t{1} << 40, int64_t{1} << 40}, DType::f64), MemoryLimitError);
    CHECK_THROWS_AS(Tensor::zeros({int64_t{1} << 20, int64_t{1} << 20, 1024}, DType::f32), MemoryLimitError);
}
