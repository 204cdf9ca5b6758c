// arraycore/polynomial.h through its C++ entries on the host backend: results
// worked out by hand (products, values, derivatives, companion matrices,
// trims) and NumPy's errors.
#include <stdexcept>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/polynomial.h"
#include "engine_fixture.h"

namespace kiln::arraycore {
namespace {

using testing::message_of;

class Polynomial : public testing::EngineTest {
 protected:
  static NDArray doubles(std::vector<double> v) {
    return filled<double>({static_cast<int64_t>(v.size())}, DType::Float64, [&](int64_t k) { return v[k]; });
  }
};

TEST_F(Polynomial, ProductsValuesAndTrims) {
  const NDArray p = doubles({0, 0, 1, -3, 2});   // x^2 - 3x + 2 after its leading zeros
  EXPECT_EQ(read<double>(poly1d_coeffs(p)), (std::vector<double>{1, -3, 2}));
  EXPECT_EQ(read<double>(polymul(p, doubles({1, 1}))), (std::vector<double>{1, -2, -1, 2}));
  EXPECT_EQ(read<double>(polyadd(p, doubles({1, 1}), true)), (std::vector<double>{0, 0, 1, -4, 1}));
  EXPECT_EQ(read<double>(polyval(p, doubles({0, 1, 2, 3}))), (std::vector<double>{2, 0, 0, 2}));
  EXPECT_EQ(read<double>(polyder(poly1d_coeffs(p), 1)), (std::vector<double>{2, -3}));
  auto [q, r] = polydiv(doubles({1, -2, -1, 2}), doubles({1, 1}));
  EXPECT_EQ(read<double>(q), (std::vector<double>{1, -3, 2}));
  EXPECT_EQ(read<double>(r), (std::vector<double>{0}));
  EXPECT_EQ(read<double>(trimseq(doubles({1, 2, 0, 0}))), (std::vector<double>{1, 2}));
  EXPECT_EQ(read<double>(polycompanion(doubles({2, -3, 1}))), (std::vector<double>{0, -2, 1, 3}));
  EXPECT_EQ(read<double>(vander(doubles({2, 3}), 3, false)), (std::vector<double>{4, 2, 1, 9, 3, 1}));
  RootsSetup roots = roots_setup(doubles({0, 1, -3, 2, 0}));
  EXPECT_EQ(roots.trailing_zeros, 1);
  ASSERT_TRUE(roots.companion.has_value());
  EXPECT_EQ(read<double>(*roots.companion), (std::vector<double>{3, -2, 1, 0}));
}

TEST_F(Polynomial, ErrorsAsNumPy) {
  const NDArray m = filled<double>({2, 2}, DType::Float64, [](int64_t k) { return double(k); });
  EXPECT_EQ(message_of<std::invalid_argument>([&] { poly1d_coeffs(m); }), "Polynomial must be 1d only.");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { polyder(m, -1); }),
            "Order of derivative must be positive (see polyint)");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { polycompanion(doubles({3, 0})); }),
            "Series must have maximum degree of at least 1.");
  EXPECT_EQ(message_of<TypeError>([&] { polyfit_system(m, doubles({1, 2}), 1, std::nullopt); }),
            "expected 1D vector for x");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { vander(m, std::nullopt, false); }),
            "x must be a one-dimensional array or sequence.");
}

}  // namespace
}  // namespace kiln::arraycore
