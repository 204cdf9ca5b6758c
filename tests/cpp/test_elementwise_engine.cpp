// The elementwise engine (arraycore/elementwise.h) through elementwise_launch
// on the host backend: the contiguous, vectorised and strided variants,
// scalars, broadcasting, storage conversion, empty and 0-d shapes, errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

#include "arraycore/elementwise.h"
#include "runtime/errors.h"
#include "tests/cpp/engine_fixture.h"

namespace kiln::arraycore {
namespace {

using ElementwiseEngineTest = testing::EngineTest;

EwSpec axpy_spec() {
  EwSpec s;
  s.name = "engine_test_axpy";
  s.params = {{"x", "float"}, {"y", "float"}, {"z", "float", "", EwParam::Output}};
  s.operation = "z = x * y + 1.0f;";
  s.options = exact_fp_options();
  return s;
}

std::function<float(int64_t)> random_floats(unsigned seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  return [rng](int64_t) { return std::uniform_real_distribution<float>(-4.0f, 4.0f)(*rng); };
}

TEST_F(ElementwiseEngineTest, ContiguousOperandsOfEveryLengthAroundTheVectorWidth) {
  const EwSpec spec = axpy_spec();
  for (int64_t n : {1, 3, 4, 5, 1023, 4097}) {
    NDArray x = filled<float>({n}, DType::Float32, random_floats(1));
    NDArray y = filled<float>({n}, DType::Float32, random_floats(2));
    NDArray z = NDArray::empty({n}, DType::Float32);
    EwArg args[] = {EwArg::of(x), EwArg::of(y), EwArg::of(z)};
    elementwise_launch(spec, args, {n});
    auto xs = read<float>(x), ys = read<float>(y), zs = read<float>(z);
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(zs[k], xs[k] * ys[k] + 1.0f) << "n=" << n << " k=" << k;
  }
}

TEST_F(ElementwiseEngineTest, StridedNegativeStridedAndBroadcastOperands) {
  const EwSpec spec = axpy_spec();
  NDArray base = filled<float>({6, 8}, DType::Float32, random_floats(3));
  NDArray x = strided_view(base, {3, 4}, {16, 2});          // base[::2, ::2]
  NDArray y = strided_view(base, {3, 4}, {-8, -1}, 47);     // base[::-1, ::-1][:3, :4]
  NDArray row = filled<float>({4}, DType::Float32, random_floats(4));
  NDArray b = strided_view(row, {3, 4}, {0, 1});            // a row broadcast over 3
  NDArray z = NDArray::empty({4, 3}, DType::Float32, Order::F);
  NDArray zt = strided_view(z, {3, 4}, {1, 3});              // z.T: a Fortran-ordered output
  for (const NDArray* second : {&y, &b}) {
    EwArg args[] = {EwArg::of(x), EwArg::of(*second), EwArg::of(zt)};
    elementwise_launch(spec, args, {3, 4});
    auto xs = read<float>(x), ys = read<float>(*second), zs = read<float>(zt);
    for (size_t k = 0; k < zs.size(); ++k) ASSERT_EQ(zs[k], xs[k] * ys[k] + 1.0f) << k;
  }
}

TEST_F(ElementwiseEngineTest, ScalarParamsAndStorageConversion) {
  EwSpec s;
  s.name = "engine_test_scale";
  // x stored as int16, computed in double; out stored as float, computed in double.
  s.params = {{"x", "double", "short"}, {"c", "double"}, {"out", "double", "float", EwParam::Output}};
  s.operation = "out = x * c;";
  NDArray x = filled<int16_t>({7}, DType::Int16, [](int64_t k) { return static_cast<int16_t>(k * 1000 - 3000); });
  NDArray out = NDArray::empty({7}, DType::Float32);
  EwArg args[] = {EwArg::of(x), EwArg::value(0.5), EwArg::of(out)};
  elementwise_launch(s, args, {7});
  auto got = read<float>(out);
  for (int k = 0; k < 7; ++k) EXPECT_EQ(got[k], static_cast<float>((k * 1000 - 3000) * 0.5)) << k;
}

TEST_F(ElementwiseEngineTest, EmptyAndZeroDimensionalShapes) {
  const EwSpec spec = axpy_spec();
  NDArray e = NDArray::empty({0, 3}, DType::Float32);
  EwArg none[] = {EwArg::of(e), EwArg::of(e), EwArg::of(e)};
  EXPECT_NO_THROW(elementwise_launch(spec, none, {0, 3}));
  NDArray x = filled<float>({}, DType::Float32, [](int64_t) { return 3.0f; });
  NDArray z = NDArray::empty({}, DType::Float32);
  EwArg args[] = {EwArg::of(x), EwArg::of(x), EwArg::of(z)};
  elementwise_launch(spec, args, {});
  EXPECT_EQ(read<float>(z)[0], 10.0f);
}

TEST_F(ElementwiseEngineTest, ErrorsNameWhatIsWrong) {
  const EwSpec spec = axpy_spec();
  NDArray x = NDArray::empty({4}, DType::Float32);
  NDArray wrong = NDArray::empty({5}, DType::Float32);
  EwArg too_few[] = {EwArg::of(x), EwArg::of(x)};
  EXPECT_THROW(elementwise_launch(spec, too_few, {4}), std::invalid_argument);
  EwArg mismatched[] = {EwArg::of(x), EwArg::of(wrong), EwArg::of(x)};
  EXPECT_THROW(elementwise_launch(spec, mismatched, {4}), std::invalid_argument);
  EwSpec broken = axpy_spec();
  broken.name = "engine_test_broken";
  broken.operation = "z = no_such_name(x);";
  EwArg args[] = {EwArg::of(x), EwArg::of(x), EwArg::of(x)};
  EXPECT_THROW(elementwise_launch(broken, args, {4}), runtime::CompileError);
}

TEST_F(ElementwiseEngineTest, SourceHoldsTheOperationAndTheVariants) {
  const EwSpec spec = axpy_spec();
  NDArray x = NDArray::empty({4}, DType::Float32);
  EwArg args[] = {EwArg::of(x), EwArg::of(x), EwArg::of(x)};
  const std::string src = elementwise_source(spec, args);
  EXPECT_NE(src.find("z = x * y + 1.0f;"), std::string::npos);
  EXPECT_NE(src.find("engine_test_axpy"), std::string::npos);
}

}  // namespace
}  // namespace kiln::arraycore
