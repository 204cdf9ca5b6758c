// The scan engine (arraycore/scan.h) through scan_rows on the host backend:
// rows of one warp, one tile, several tiles and several levels of tiles
// (Note [Scan engine]), strided, reversed and in-place operands, conversion
// to the accumulator, a non-commutative operator, errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

#include "arraycore/scan.h"
#include "tests/cpp/engine_fixture.h"

namespace kiln::arraycore {
namespace {

using ScanEngineTest = testing::EngineTest;

ScanSpec int_cumsum() {
  ScanSpec s;
  s.name = "engine_test_cumsum_i8";
  s.combine = "a + b";
  s.acc = DType::Int64;
  return s;
}

std::function<int32_t(int64_t)> random_ints(unsigned seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  return [rng](int64_t) { return std::uniform_int_distribution<int32_t>(-100, 100)(*rng); };
}

std::vector<int64_t> row_prefix_sums(const std::vector<int32_t>& v, int64_t m, int64_t n) {
  std::vector<int64_t> out(v.size());
  for (int64_t i = 0; i < m; ++i) {
    int64_t acc = 0;
    for (int64_t j = 0; j < n; ++j) out[i * n + j] = acc += v[i * n + j];
  }
  return out;
}

TEST_F(ScanEngineTest, RowsOfEveryPathAreExactForIntegers) {
  const ScanSpec spec = int_cumsum();
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{50, 1}, {9, 128}, {3, 1024}, {4, 5000}, {1, 1100000}}) {
    NDArray x = filled<int32_t>({m, n}, DType::Int32, random_ints(static_cast<unsigned>(n)));
    NDArray y = NDArray::empty({m, n}, DType::Int64);
    scan_rows(spec, x, y);
    ASSERT_EQ(read<int64_t>(y), row_prefix_sums(read<int32_t>(x), m, n)) << m << "x" << n;
  }
}

TEST_F(ScanEngineTest, StridedReversedAndInPlace) {
  const ScanSpec spec = int_cumsum();
  NDArray base = filled<int32_t>({8, 300}, DType::Int32, random_ints(5));
  NDArray x = strided_view(base, {4, 150}, {-600, -2}, 7 * 300 + 299);   // base[::-2, ::-2]
  NDArray out = NDArray::empty({150, 4}, DType::Int64);
  NDArray y = strided_view(out, {4, 150}, {1, 4});                         // a transposed output
  scan_rows(spec, x, y);
  EXPECT_EQ(read<int64_t>(y), row_prefix_sums(read<int32_t>(x), 4, 150));
  NDArray z = filled<int64_t>({2, 3000}, DType::Int64, [](int64_t k) { return k % 17 - 8; });
  std::vector<int32_t> before;
  for (int64_t v : read<int64_t>(z)) before.push_back(static_cast<int32_t>(v));
  scan_rows(spec, z, z);
  EXPECT_EQ(read<int64_t>(z), row_prefix_sums(before, 2, 3000));
}

TEST_F(ScanEngineTest, NonCommutativeOperatorKeepsItsOrder) {
  // Composition of affine maps x -> p x + q (mod 2^64): associative, not commutative.
  ScanSpec s;
  s.name = "engine_test_affine";
  s.acc = DType::Complex128;   // (p, q) carried as a complex pair of doubles holding small integers
  s.preamble = "#include <kiln/complex.h>\n";
  s.combine = "kiln::complex<double>(a.real() * b.real(), b.real() * a.imag() + b.imag())";
  const int64_t n = 3000;
  NDArray x = NDArray::empty({1, n}, DType::Complex128);
  auto* p = static_cast<double*>(x.data());
  for (int64_t k = 0; k < n; ++k) {
    p[2 * k] = (k % 5 == 0) ? -1.0 : 1.0;   // p in {1, -1}: products stay exact
    p[2 * k + 1] = static_cast<double>(k % 7);
  }
  NDArray y = NDArray::empty({1, n}, DType::Complex128);
  scan_rows(s, x, y);
  runtime::backend().synchronize_stream(runtime::current_stream());
  const auto* q = static_cast<const double*>(y.data());
  double pp = 1.0, qq = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    qq = p[2 * k] * qq + p[2 * k + 1];
    pp = pp * p[2 * k];
    ASSERT_EQ(q[2 * k], pp) << k;
    ASSERT_EQ(q[2 * k + 1], qq) << k;
  }
}

TEST_F(ScanEngineTest, MismatchedArgumentsThrow) {
  const ScanSpec spec = int_cumsum();
  NDArray x = NDArray::empty({3, 4}, DType::Int32);
  NDArray wrong_dtype = NDArray::empty({3, 4}, DType::Int32);
  NDArray wrong_shape = NDArray::empty({3, 5}, DType::Int64);
  EXPECT_THROW(scan_rows(spec, x, wrong_dtype), std::invalid_argument);
  EXPECT_THROW(scan_rows(spec, x, wrong_shape), std::invalid_argument);
}

}  // namespace
}  // namespace kiln::arraycore
