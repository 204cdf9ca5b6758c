// The reduction engine (arraycore/reduction.h) through reduction_launch on
// the host backend: row, column and full paths (Note [Reduction kernels]),
// several axes, strided and reversed operands, `_j` with kiln::ValueIndex
// (an argmax), empty reductions, raw inputs and argument errors. Integer
// sums are exact on every path, so they compare for equality.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

#include "arraycore/reduction.h"
#include "tests/cpp/engine_fixture.h"

namespace kiln::arraycore {
namespace {

using ReductionEngineTest = testing::EngineTest;

ReductionSpec int_sum() {
  ReductionSpec s;
  s.name = "engine_test_sum_i8";
  s.params = {{"x", "long long"}};
  s.map_expr = "x";
  s.reduce_expr = "a + b";
  s.post_map_expr = "out = a;";
  s.identity = "0LL";
  s.reduce_dtype = DType::Int64;
  s.out_ctype = "long long";
  s.ordered = false;
  return s;
}

std::function<int32_t(int64_t)> random_ints(unsigned seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  return [rng](int64_t) { return std::uniform_int_distribution<int32_t>(-1000, 1000)(*rng); };
}

// The sums of a (C-order values of shape {m, n}) along axis 1 (rows) or 0 (columns).
std::vector<int64_t> sums(const std::vector<int32_t>& v, int64_t m, int64_t n, int axis) {
  std::vector<int64_t> out(axis == 1 ? m : n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) out[axis == 1 ? i : j] += v[i * n + j];
  return out;
}

TEST_F(ReductionEngineTest, RowsColumnsAndFullReductionsAreExactForIntegers) {
  const ReductionSpec spec = int_sum();
  // Shapes that take the warp rows, block rows, split rows, columns, split columns and full paths.
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1000, 7}, {64, 3000}, {2, 200000}, {1, 300001}}) {
    NDArray x = filled<int32_t>({m, n}, DType::Int32, random_ints(static_cast<unsigned>(m + n)));
    auto xs = read<int32_t>(x);
    for (int axis : {0, 1}) {
      NDArray out = NDArray::empty({axis == 1 ? m : n}, DType::Int64);
      const NDArray* in[] = {&x};
      const int axes[] = {axis};
      reduction_launch(spec, in, axes, out);
      ASSERT_EQ(read<int64_t>(out), sums(xs, m, n, axis)) << m << "x" << n << " axis " << axis;
    }
    NDArray total = NDArray::empty({}, DType::Int64);
    const NDArray* in[] = {&x};
    const int both[] = {0, 1};
    reduction_launch(spec, in, both, total);
    int64_t expected = 0;
    for (int32_t v : xs) expected += v;
    ASSERT_EQ(read<int64_t>(total)[0], expected) << m << "x" << n;
  }
}

TEST_F(ReductionEngineTest, SeveralAxesOfStridedAndReversedOperands) {
  const ReductionSpec spec = int_sum();
  NDArray base = filled<int32_t>({6, 10, 8}, DType::Int32, random_ints(7));
  // base[::-2, :, 1::3] : shape (3, 10, 3), negative and non-unit strides.
  NDArray x = strided_view(base, {3, 10, 3}, {-160, 8, 3}, 5 * 80 + 1);
  auto xs = read<int32_t>(x);
  NDArray out = NDArray::empty({10}, DType::Int64);
  const NDArray* in[] = {&x};
  const int axes[] = {2, 0};
  reduction_launch(spec, in, axes, out);
  std::vector<int64_t> expected(10, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 10; ++j)
      for (int k = 0; k < 3; ++k) expected[j] += xs[(i * 10 + j) * 3 + k];
  EXPECT_EQ(read<int64_t>(out), expected);
}

TEST_F(ReductionEngineTest, ArgmaxThroughValueIndexGivesTheFirstMaximum) {
  ReductionSpec s;
  s.name = "engine_test_argmax_i4";
  s.params = {{"x", "int"}};
  s.map_expr = "kiln::ValueIndex<int>{x, _j}";
  s.reduce_expr =
      "(b.index >= 0 && (a.index < 0 || b.value > a.value || (b.value == a.value && b.index < a.index))) ? b : a";
  s.post_map_expr = "out = a.index;";
  s.identity = "kiln::ValueIndex<int>{0, -1LL}";
  s.reduce_ctype = "kiln::ValueIndex<int>";
  s.reduce_itemsize = 16;
  s.out_ctype = "long long";
  s.ordered = false;
  s.preamble = "#include <kiln/reduction.h>\n";
  // Few distinct values, so ties are everywhere.
  NDArray x = filled<int32_t>({37, 2500}, DType::Int32, [](int64_t k) { return static_cast<int32_t>((k * 7919) % 13); });
  auto xs = read<int32_t>(x);
  NDArray out = NDArray::empty({37}, DType::Int64);
  const NDArray* in[] = {&x};
  const int axes[] = {1};
  reduction_launch(s, in, axes, out);
  auto got = read<int64_t>(out);
  for (int i = 0; i < 37; ++i) {
    int64_t best = 0;
    for (int64_t j = 1; j < 2500; ++j)
      if (xs[i * 2500 + j] > xs[i * 2500 + best]) best = j;
    ASSERT_EQ(got[i], best) << "row " << i;
  }
}

TEST_F(ReductionEngineTest, EmptyReductionWritesThePostMapOfTheIdentity) {
  ReductionSpec s = int_sum();
  s.name = "engine_test_sum_plus_seven";
  s.post_map_expr = "out = a + 7;";
  NDArray x = NDArray::empty({4, 0}, DType::Int32);
  NDArray out = NDArray::empty({4}, DType::Int64);
  const NDArray* in[] = {&x};
  const int axes[] = {1};
  reduction_launch(s, in, axes, out);
  EXPECT_EQ(read<int64_t>(out), (std::vector<int64_t>{7, 7, 7, 7}));
}

TEST_F(ReductionEngineTest, RawInputsWeighEachPosition) {
  ReductionSpec s = int_sum();
  s.name = "engine_test_weighted_sum";
  s.raw_params = {{"w", "long long", "", EwParam::Raw}};
  s.map_expr = "x * w[_j]";
  NDArray x = filled<int32_t>({3, 5}, DType::Int32, [](int64_t k) { return static_cast<int32_t>(k); });
  NDArray w = filled<int64_t>({5}, DType::Int64, [](int64_t k) { return k + 1; });
  NDArray out = NDArray::empty({3}, DType::Int64);
  const NDArray* in[] = {&x};
  const NDArray* raw[] = {&w};
  const int axes[] = {1};
  reduction_launch(s, in, axes, out, raw);
  std::vector<int64_t> expected(3, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) expected[i] += (i * 5 + j) * (j + 1);
  EXPECT_EQ(read<int64_t>(out), expected);
}

TEST_F(ReductionEngineTest, MismatchedArgumentsThrow) {
  const ReductionSpec spec = int_sum();
  NDArray x = NDArray::empty({3, 4}, DType::Int32);
  NDArray wrong = NDArray::empty({4}, DType::Int64);
  const NDArray* in[] = {&x};
  const int axes[] = {1};
  EXPECT_THROW(reduction_launch(spec, in, axes, wrong), std::invalid_argument);
  const int out_of_range[] = {2};
  NDArray out = NDArray::empty({3}, DType::Int64);
  EXPECT_THROW(reduction_launch(spec, in, out_of_range, out), std::invalid_argument);
}

}  // namespace
}  // namespace kiln::arraycore
