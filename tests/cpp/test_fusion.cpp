// kiln.fuse's traces and plans (arraycore/fusion.h) on the host backend:
// loop resolution and NEP 50 constants per node, host scalars, outputs of
// several shapes, reductions, stores into arguments, and the errors of what
// cannot be fused.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/fusion.h"
#include "arraycore/views.h"
#include "tests/cpp/engine_fixture.h"

namespace kiln::arraycore {
namespace {

using FusionTest = testing::EngineTest;

TEST_F(FusionTest, ChainOfUfuncsWithWeakConstantsKeepsTheArrayDtype) {
  NDArray x = filled<int8_t>({5}, DType::Int8, [](int64_t k) { return static_cast<int8_t>(k * 30); });
  UfuncInput args[] = {UfuncInput::of(x)};
  FusionTrace t("fusion_test_chain", args);
  const int two = t.constant(ScalarValue::python_int(2));
  const int inputs[] = {0, two};
  const int y = t.ufunc("multiply", inputs, std::nullopt, Casting::SameKind)[0];
  EXPECT_EQ(t.node(y).dtype, DType::Int8);   // NEP 50: the Python int is weak
  const int h = t.constant(ScalarValue::python_float(0.5));
  const int inputs2[] = {y, h};
  const int z = t.ufunc("add", inputs2, std::nullopt, Casting::SameKind)[0];
  EXPECT_EQ(t.node(z).dtype, DType::Float64);   // int8 + Python float: float64
  const int results[] = {y, z, 0};
  FusionPlan p = t.plan(results);
  ASSERT_EQ(p.results().size(), 3u);
  EXPECT_EQ(p.results()[2].kind, FusionPlan::Result::Kind::Arg);
  std::vector<NDArray> outs = p.run(args, {});
  ASSERT_EQ(outs.size(), 2u);
  auto ys = read<int8_t>(outs[0]);
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(ys[k], static_cast<int8_t>(k * 60)) << k;   // int8 wraps
  EXPECT_EQ(outs[1].dtype(), DType::Float64);
}

TEST_F(FusionTest, ConstantThatDoesNotFitRaisesOverflowAndComparisonsAreExact) {
  NDArray x = filled<uint8_t>({3}, DType::UInt8, [](int64_t k) { return static_cast<uint8_t>(k); });
  UfuncInput args[] = {UfuncInput::of(x)};
  FusionTrace t("fusion_test_overflow", args);
  const int big[] = {0, t.constant(ScalarValue::python_int(300))};
  EXPECT_THROW(t.ufunc("add", big, std::nullopt, Casting::SameKind), ScalarOverflow);
  const int minus[] = {0, t.constant(ScalarValue::python_int(-1))};
  const int gt = t.ufunc("greater", minus, std::nullopt, Casting::SameKind)[0];
  const int results[] = {gt};
  std::vector<NDArray> outs = t.plan(results).run(args, {});
  for (bool b : read<bool>(outs[0])) EXPECT_TRUE(b);   // uint8 > -1 everywhere
}

TEST_F(FusionTest, PythonScalarArgumentIsConvertedAtEachRun) {
  NDArray x = filled<float>({4}, DType::Float32, [](int64_t k) { return static_cast<float>(k); });
  UfuncInput args[] = {UfuncInput::of(x), UfuncInput{}};
  args[1].scalar = ScalarValue::python_int(3);
  FusionTrace t("fusion_test_scalar_arg", args);
  const int inputs[] = {0, 1};
  const int y = t.ufunc("multiply", inputs, std::nullopt, Casting::SameKind)[0];
  const int results[] = {y};
  FusionPlan p = t.plan(results);
  args[1].scalar = ScalarValue::python_int(5);
  auto ys = read<float>(p.run(args, {})[0]);
  for (int64_t k = 0; k < 4; ++k) EXPECT_EQ(ys[k], 5.0f * k);
}

TEST_F(FusionTest, OutputsOfTwoShapesAndAFinalReduction) {
  NDArray a = filled<double>({3, 1}, DType::Float64, [](int64_t k) { return static_cast<double>(k); });
  NDArray b = filled<int32_t>({4}, DType::Int32, [](int64_t k) { return static_cast<int32_t>(k + 1); });
  UfuncInput args[] = {UfuncInput::of(a), UfuncInput::of(b)};
  FusionTrace t("fusion_test_shapes", args);
  const int ab[] = {0, 1};
  const int prod = t.ufunc("multiply", ab, std::nullopt, Casting::SameKind)[0];
  const int one[] = {1, t.constant(ScalarValue::python_int(1))};
  const int b1 = t.ufunc("subtract", one, std::nullopt, Casting::SameKind)[0];
  const int rows = t.reduce(prod, "sum", std::vector<int64_t>{1}, std::nullopt, true);
  const int results[] = {prod, b1, rows};
  std::vector<NDArray> outs = t.plan(results).run(args, {});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[0].shape(), (Shape{3, 4}));
  EXPECT_EQ(outs[1].shape(), (Shape{4}));
  EXPECT_EQ(outs[2].shape(), (Shape{3, 1}));
  auto sums = read<double>(outs[2]);
  for (int64_t r = 0; r < 3; ++r) EXPECT_EQ(sums[r], r * 10.0);   // r * (1 + 2 + 3 + 4)
  EXPECT_THROW(t.reduce(prod, "sum", std::vector<int64_t>{2}, std::nullopt, false), AxisError);
}

TEST_F(FusionTest, InPlaceOnAnArgumentWritesItAndReductionsAreReadAgain) {
  // Note [Stores], Note [Reductions used inside]: x -= x.sum(axis=1, keepdims=True) writes x.
  NDArray x = filled<float>({2, 3}, DType::Float32, [](int64_t k) { return static_cast<float>(k); });
  UfuncInput args[] = {UfuncInput::of(x)};
  FusionTrace t("fusion_test_store", args);
  const int s = t.reduce(0, "sum", std::vector<int64_t>{1}, std::nullopt, true);
  const int r = t.inplace("subtract", 0, s);
  const int results[] = {r};
  FusionPlan p = t.plan(results);
  EXPECT_EQ(p.results()[0].kind, FusionPlan::Result::Kind::Arg);
  p.run(args, {});
  const float expected[] = {-3, -2, -1, -9, -8, -7};
  auto xs = read<float>(x);
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(xs[k], expected[k]) << k;
}

TEST_F(FusionTest, EmptyMaxIsAnError) {
  NDArray x = NDArray::empty({0}, DType::Float32);
  UfuncInput args[] = {UfuncInput::of(x)};
  FusionTrace t("fusion_test_errors", args);
  const int m = t.reduce(0, "max", std::nullopt, std::nullopt, false);
  const int results[] = {m};
  EXPECT_THROW(t.plan(results).run(args, {}), std::invalid_argument);
}

TEST_F(FusionTest, WrittenArgumentSharingMemoryIsRefusedBeforeAnythingRuns) {
  // Note [Arguments sharing memory]: x += z with z = x.T throws; reading x.T does not.
  NDArray x = filled<int64_t>({2, 2}, DType::Int64, [](int64_t k) { return k; });
  NDArray xt = transpose(x);
  UfuncInput args[] = {UfuncInput::of(x), UfuncInput::of(xt)};
  FusionTrace t("fusion_test_sharing", args);
  const int sum[] = {0, 1};
  const int added = t.ufunc("add", sum, std::nullopt, Casting::SameKind)[0];
  const int reads[] = {added};
  EXPECT_EQ(read<int64_t>(t.plan(reads).run(args, {})[0])[1], 3);   // x[0, 1] + x[1, 0]
  const int stored[] = {t.inplace("add", 0, 1)};
  EXPECT_THROW(t.plan(stored).run(args, {}), FusionArgumentsShareMemory);
  EXPECT_EQ(read<int64_t>(x)[1], 1);   // nothing ran
  NDArray other = NDArray::zeros({2, 2}, DType::Int64);
  UfuncInput apart[] = {UfuncInput::of(x), UfuncInput::of(other)};
  t.plan(stored).run(apart, {});
  EXPECT_EQ(read<int64_t>(x)[1], 1);
}

TEST_F(FusionTest, MathFunctionsTakeTheDtypesOfTheEagerOnes) {
  NDArray z = NDArray::zeros({3}, DType::Complex64);
  NDArray i = NDArray::zeros({3}, DType::Int16);
  UfuncInput args[] = {UfuncInput::of(z), UfuncInput::of(i)};
  FusionTrace t("fusion_test_functions", args);
  EXPECT_EQ(t.node(t.real(0)).dtype, DType::Float32);
  EXPECT_EQ(t.node(t.imag(1)).dtype, DType::Int16);
  EXPECT_EQ(t.real(1), 1);   // the array itself
  EXPECT_EQ(t.node(t.angle(1, true)).dtype, DType::Float32);
  EXPECT_EQ(t.node(t.i0(1)).dtype, DType::Float64);
  EXPECT_EQ(t.node(t.sinc(0)).dtype, DType::Complex64);
  EXPECT_THROW(t.i0(0), TypeError);
}

}  // namespace
}  // namespace kiln::arraycore
