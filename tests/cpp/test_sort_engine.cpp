// The sort engine (arraycore/sort.h) through sort_rows on the host backend:
// keys and permutations of several rows, stability, NumPy's float order (NaNs
// last, -0.0 equal to 0.0), strided input, many segments (Note [Sort
// engine]), and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "arraycore/sort.h"
#include "tests/cpp/engine_fixture.h"

namespace kiln::arraycore {
namespace {

using SortEngineTest = testing::EngineTest;

TEST_F(SortEngineTest, RowsOfIntegersSortStablyWithTheirPermutation) {
  const int64_t m = 5, n = 3000;
  NDArray x = filled<int16_t>({m, n}, DType::Int16, [](int64_t k) { return static_cast<int16_t>((k * 7919) % 601 - 300); });
  NDArray keys = NDArray::empty({m, n}, DType::Int16);
  NDArray idx = NDArray::empty({m, n}, DType::Int64);
  sort_rows(x, &keys, &idx);
  auto xs = read<int16_t>(x);
  auto ks = read<int16_t>(keys);
  auto is = read<int64_t>(idx);
  for (int64_t i = 0; i < m; ++i) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return xs[i * n + a] < xs[i * n + b]; });
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(is[i * n + j], order[j]) << "row " << i << " position " << j;
      ASSERT_EQ(ks[i * n + j], xs[i * n + order[j]]);
    }
  }
}

TEST_F(SortEngineTest, FloatsFollowNumPysOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {3.0, nan, -0.0, -inf, 0.0, 2.5, nan, inf, -1.0, 0.0};
  NDArray x = filled<double>({1, 10}, DType::Float64, [&](int64_t k) { return values[k]; });
  NDArray idx = NDArray::empty({1, 10}, DType::Int64);
  sort_rows(x, nullptr, &idx);
  // -inf, -1, then -0.0 and the two 0.0 in input order (equal keys), 2.5, 3, inf, then the NaNs in order.
  EXPECT_EQ(read<int64_t>(idx), (std::vector<int64_t>{3, 8, 2, 4, 9, 5, 0, 7, 1, 6}));
}

TEST_F(SortEngineTest, StridedInputAndManySegments) {
  const int64_t previous = set_sort_segment_elements(1000);
  NDArray base = filled<float>({2, 9000}, DType::Float32, [](int64_t k) { return static_cast<float>((k * 104729) % 9973) - 5000.0f; });
  NDArray x = strided_view(base, {2, 4500}, {9000, -2}, 8999);   // base[:, ::-2]
  NDArray keys = NDArray::empty({2, 4500}, DType::Float32);
  sort_rows(x, &keys, nullptr);
  set_sort_segment_elements(previous);
  auto xs = read<float>(x);
  auto ks = read<float>(keys);
  for (int i = 0; i < 2; ++i) {
    std::vector<float> row(xs.begin() + i * 4500, xs.begin() + (i + 1) * 4500);
    std::sort(row.begin(), row.end());
    ASSERT_TRUE(std::equal(row.begin(), row.end(), ks.begin() + i * 4500)) << "row " << i;
  }
}

TEST_F(SortEngineTest, MismatchedArgumentsThrow) {
  NDArray x = NDArray::empty({2, 5}, DType::Int32);
  NDArray wrong = NDArray::empty({2, 5}, DType::Int32);
  EXPECT_THROW(sort_rows(x, nullptr, nullptr), std::invalid_argument);
  EXPECT_THROW(sort_rows(x, nullptr, &wrong), std::invalid_argument);   // indices must be int64
}

}  // namespace
}  // namespace kiln::arraycore
