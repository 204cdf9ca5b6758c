// kiln.random's kernels (arraycore/random.h): the distribution table, the
// dtype rules, and draws through the engine on the selected backend (the
// host one in CI), checked against Philox4x32-10's published vector.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/random.h"
#include "arraycore/transfer.h"
#include "runtime/backend.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

TEST(RandomTable, RowsAndTypes) {
  const RandomDistribution& normal = random_distribution("normal");
  EXPECT_EQ(normal.kind, RandomKind::Normal);
  ASSERT_EQ(normal.nparams, 2);
  EXPECT_EQ(normal.params[0], "loc");
  EXPECT_EQ(normal.params[1], "scale");
  EXPECT_THROW(random_distribution("nope"), std::invalid_argument);

  EXPECT_EQ(random_types(normal, DType::Float32), std::make_pair(DType::Float32, DType::Float32));
  EXPECT_THROW(random_types(normal, DType::Float16), TypeError);
  // Integer-valued distributions compute in double and give int64; another
  // dtype is random_draw_as's (Note [Samples in any dtype]).
  EXPECT_EQ(random_types(random_distribution("poisson"), DType::Int64),
            std::make_pair(DType::Float64, DType::Int64));
  EXPECT_THROW(random_types(random_distribution("poisson"), DType::Int32), TypeError);
}

class RandomDraws : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { runtime::set_stdlib_include_dir(KILN_SOURCE_STDLIB_DIR); }

  // A take() from counter `start` that records the units asked for.
  PhiloxTake take_from(uint64_t start) {
    return [this, start](int64_t units) {
      asked.push_back(units);
      return PhiloxKey{0, 0, start, 0};
    };
  }

  template <class T>
  std::vector<T> host(const NDArray& a) {
    std::vector<T> v(static_cast<size_t>(a.size()));
    copy_to_host(a, v.data(), runtime::current_stream());
    return v;
  }

  std::vector<int64_t> asked;
};

TEST_F(RandomDraws, WordsAreThePhiloxBlocks) {
  // Philox4x32-10 of counter 0 under key 0 (Salmon et al.'s known answer).
  NDArray w = random_words(DType::UInt32, {6}, take_from(0));
  EXPECT_EQ(asked, std::vector<int64_t>{2});
  std::vector<uint32_t> v = host<uint32_t>(w);
  EXPECT_EQ(v[0], 0x6627e8d5u);
  EXPECT_EQ(v[1], 0xe169c58du);
  EXPECT_EQ(v[2], 0xbc57ac4cu);
  EXPECT_EQ(v[3], 0x9b00dbd8u);
  // uint64 words pair them, high word first.
  NDArray w64 = random_words(DType::UInt64, {2}, take_from(0));
  std::vector<uint64_t> v64 = host<uint64_t>(w64);
  EXPECT_EQ(v64[0], 0x6627e8d5e169c58dull);
  EXPECT_EQ(v64[1], 0xbc57ac4c9b00dbd8ull);
}

TEST_F(RandomDraws, ScalarAndArrayParametersGiveTheSameNumbers) {
  // The unit kernel (scalar params) and the element kernel (array params)
  // compute the same value for each element (Note in random.h).
  NDArray scale = NDArray::empty({5}, DType::Float64);
  const std::vector<double> twos(5, 2.0);
  copy_from_host(scale, twos.data(), runtime::current_stream());
  const RandomParam scalars[] = {{nullptr, 1.0}, {nullptr, 2.0}};
  const RandomParam arrays[] = {{nullptr, 1.0}, {&scale, 0}};
  std::vector<double> a = host<double>(random_draw("normal", DType::Float64, scalars, {5}, take_from(7)));
  std::vector<double> b = host<double>(random_draw("normal", DType::Float64, arrays, {5}, take_from(7)));
  EXPECT_EQ(asked, (std::vector<int64_t>{3, 3}));   // 2 doubles a unit
  EXPECT_EQ(a, b);
  EXPECT_THROW(random_draw("normal", DType::Int32, scalars, {5}, take_from(7)), TypeError);
}

}  // namespace
}  // namespace kiln::arraycore
