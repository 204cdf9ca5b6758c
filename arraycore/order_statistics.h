// Order statistics: median, percentile, quantile and their NaN-skipping
// versions, on sorted rows (order_statistics.cpp, Note [Order statistics],
// Note [Weighted quantiles]). One entry: it normalises the axes (axes.h),
// checks q, the method and the weights as NumPy does, sorts the rows with the
// sort engine (sort_apply.h), generates and launches the per-(quantile, row)
// kernel, picks the result dtype and applies keepdims and out=.
//
//   OrderArgs o;                                  // kiln.quantile(a, [0.1, 0.9], axis=1, method='nearest')
//   o.q = QuantileQ{{0.1, 0.9}, {2}, DType::Float64, false, false};
//   o.axis = AxisArg::one(1);
//   o.method = "nearest";
//   StatResult r = quantile_apply(a, o);          // r.result; r.warnings: NumPy's RuntimeWarnings to give
//   OrderArgs m;  m.skip_nan = true;              // no q: kiln.nanmedian(a)
//   StatResult s = quantile_apply(a, m);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/statistics.h"

namespace kiln::arraycore {

// q as the binding reads it (numpy.asarray(q)).
struct QuantileQ {
  std::vector<double> values;       // q's elements in C order, exact (numpy's astype(float64) for non-floats)
  Shape shape;                      // q's shape (the result's leading axes)
  DType dtype = DType::Float64;     // q's dtype when floating (and not weak), else float64: q's arithmetic
  bool integer = false;             // q held integers (kind i or u): quantile's 'linear' then takes elements
  bool weak = false;                // a Python int or float (NEP 50: weak, so gamma is a Python float)
};

struct OrderArgs {
  std::optional<QuantileQ> q;       // none: the median
  bool percentile = false;          // q in [0, 100] (percentile, nanpercentile)
  AxisArg axis;                     // None, an int, or a tuple (list) of ints
  std::string method = "linear";    // one of NumPy's thirteen
  std::string method_repr;          // how NumPy's message shows a bad method (Python's repr)
  const NDArray* weights = nullptr; // weights= (method 'inverted_cdf' only)
  const NDArray* out = nullptr;     // out= (the result is cast into it, broadcast as numpy.copyto does)
  bool keepdims = false;
  bool skip_nan = false;            // nanmedian, nanquantile, nanpercentile
  bool overwrite_input = false;     // a's reduced axes may be left changed (they are left sorted)
};

// numpy.median / quantile / percentile (and nan*): the result (out when
// given) and NumPy's RuntimeWarnings ("All-NaN slice encountered", "Mean of
// empty slice") for the caller to give; complex_to_real when a complex
// median is written to a real out=. Throws TypeError, std::invalid_argument
// (ValueError), AxisError and std::out_of_range (IndexError) with NumPy's
// messages.
StatResult quantile_apply(const NDArray& a, const OrderArgs& args);

}  // namespace kiln::arraycore
