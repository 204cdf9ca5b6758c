// arraycore/order_statistics.h through its C++ entry on the host backend:
// NumPy's argument errors, median and quantile results worked out by hand,
// the all-NaN warning and a weighted quantile.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/order_statistics.h"
#include "engine_fixture.h"

namespace kiln::arraycore {
namespace {

using OrderStatistics = testing::EngineTest;

using testing::message_of;

QuantileQ q_of(std::vector<double> values) {
  QuantileQ q;
  q.shape = {static_cast<int64_t>(values.size())};
  q.values = std::move(values);
  return q;
}

TEST_F(OrderStatistics, ArgumentErrorsAsNumPy) {
  const NDArray x = filled<double>({2, 3}, DType::Float64, [](int64_t k) { return double(k); });
  OrderArgs o;
  o.q = q_of({1.5});
  EXPECT_EQ(message_of<std::invalid_argument>([&] { quantile_apply(x, o); }), "Quantiles must be in the range [0, 1]");
  o.q = q_of({50, 101});
  o.percentile = true;
  EXPECT_EQ(message_of<std::invalid_argument>([&] { quantile_apply(x, o); }),
            "Percentiles must be in the range [0, 100]");
  o.q = q_of({0.5});
  o.percentile = false;
  o.method = "bogus";
  o.method_repr = "'bogus'";
  EXPECT_EQ(message_of<std::invalid_argument>([&] { quantile_apply(x, o); }).substr(0, 60),
            "'bogus' is not a valid method. Use one of: ('inverted_cdf', ");
  o.method = "linear";
  o.axis = AxisArg::one(2);
  EXPECT_THROW(quantile_apply(x, o), AxisError);
  o.axis = AxisArg::of({0, -2});
  EXPECT_EQ(message_of<std::invalid_argument>([&] { quantile_apply(x, o); }), "repeated axis in `axis` argument");
  const NDArray c = filled<float>({2}, DType::Complex64, [](int64_t) { return 0.0f; });
  o.axis = AxisArg::all();
  EXPECT_EQ(message_of<TypeError>([&] { quantile_apply(c, o); }), "a must be an array of real numbers");
}

TEST_F(OrderStatistics, MedianAndQuantiles) {
  // rows [9 .. 0] and [0, 1, NaN, 3, 4, 5, 6, 7, 8, 9]
  const NDArray x = filled<double>({2, 10}, DType::Float64,
                                   [](int64_t k) { return k < 10 ? double(9 - k) : (k == 12 ? NAN : double(k - 10)); });
  OrderArgs o;
  o.axis = AxisArg::one(1);
  StatResult m = quantile_apply(x, o);
  std::vector<double> got = read<double>(m.result);
  EXPECT_EQ(got[0], 4.5);
  EXPECT_TRUE(std::isnan(got[1]));
  o.skip_nan = true;
  got = read<double>(quantile_apply(x, o).result);
  EXPECT_EQ(got[0], 4.5);
  EXPECT_EQ(got[1], 5.0);   // the median of the nine numbers
  o.skip_nan = false;
  o.q = q_of({0.25, 0.5});
  StatResult q = quantile_apply(x, o);
  EXPECT_EQ(q.result.shape(), (Shape{2, 2}));
  got = read<double>(q.result);
  EXPECT_EQ(got[0], 2.25);
  EXPECT_EQ(got[2], 4.5);
  EXPECT_TRUE(q.warnings.empty());
}

TEST_F(OrderStatistics, AllNanRowWarns) {
  const NDArray x = filled<float>({2, 2}, DType::Float32, [](int64_t k) { return k < 2 ? NAN : float(k); });
  OrderArgs o;
  o.axis = AxisArg::one(1);
  o.skip_nan = true;
  StatResult r = quantile_apply(x, o);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "All-NaN slice encountered");
  std::vector<float> got = read<float>(r.result);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[1], 2.5f);
}

TEST_F(OrderStatistics, WeightedInvertedCdf) {
  const NDArray x = filled<double>({4}, DType::Float64, [](int64_t k) { return double(4 - k); });   // 4 3 2 1
  const NDArray w = filled<double>({4}, DType::Float64, [](int64_t k) { return k < 2 ? 1.0 : 0.0; });
  OrderArgs o;
  o.q = q_of({0.0, 0.5, 1.0});
  o.method = "inverted_cdf";
  o.weights = &w;
  // sorted 1 2 3 4 with weights 0 0 1 1: cumulative 0 0 .5 1
  std::vector<double> got = read<double>(quantile_apply(x, o).result);
  EXPECT_EQ(got, (std::vector<double>{3.0, 3.0, 4.0}));
  o.method = "linear";
  EXPECT_EQ(message_of<std::invalid_argument>([&] { quantile_apply(x, o); }),
            "Only method 'inverted_cdf' supports weights. Got: linear.");
}

}  // namespace
}  // namespace kiln::arraycore
