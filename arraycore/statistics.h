// The statistics reductions: mean, var, std and their nan-variants, argmax,
// argmin and their nan-variants, count_nonzero. Each entry normalises the
// axes (arraycore/axes.h), picks the accumulator and result dtypes, builds
// (once) and launches the reduction engine's spec (arraycore/reduction.h),
// and applies keepdims and out=, with NumPy 2's rules and messages
// (statistics.cpp; device helpers in stdlib_kernels/kiln/statistics.h).
//
//   StatOptions o;
//   o.axis = AxisArg::of({1});
//   StatResult r = mean_apply(a, o);        // r.result: a's mean over axis 1
//   for (auto& w : r.warnings) ...          // NumPy's RuntimeWarnings, for the caller to give
//   VarOptions v;  v.ddof = 1;  v.root = true;
//   StatResult s = var_apply(a, v);         // std(a, ddof=1)
//   NDArray i = arg_reduce_apply(a, AxisArg::all(), nullptr, false, /*largest=*/true, /*skip_nan=*/false);   // argmax
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// An axis= argument: None (every axis), one int, or a tuple of ints.
struct AxisArg {
  enum class Kind { None, Int, Tuple } kind = Kind::None;
  std::vector<int64_t> values;   // Int: one value

  static AxisArg all() { return {}; }
  static AxisArg one(int64_t axis) { return {Kind::Int, {axis}}; }
  static AxisArg of(std::vector<int64_t> axes) { return {Kind::Tuple, std::move(axes)}; }
};

// ufunc.reduce's axes: None is every axis, a tuple each of its axes (no
// repeats), an int one axis; a 0-d operand accepts 0 and -1 (no axis).
std::vector<int> reduction_axes(const AxisArg& axis, int ndim);

struct StatOptions {
  AxisArg axis;
  std::optional<DType> dtype;     // dtype=
  const NDArray* out = nullptr;   // out= (shape checked; written with an unsafe cast)
  bool keepdims = false;
  const NDArray* where = nullptr; // where= (any dtype, broadcast to the operand); nullptr: where=True
  bool skip_nan = false;          // the nan-variant
};

struct VarOptions : StatOptions {
  double ddof = 0;
  const NDArray* mean = nullptr;  // mean= (broadcast to the operand), else computed
  bool root = false;              // std: the square root of the variance
};

struct StatResult {
  NDArray result;                     // keepdims applied; *out itself when out= was given
  std::vector<std::string> warnings;  // NumPy's RuntimeWarning messages, in order, for the caller to give
  bool complex_to_real = false;       // a complex result written to a real out= (NumPy's ComplexWarning)
};

// numpy.mean / nanmean (Note [Mean and variance] in statistics.cpp).
StatResult mean_apply(const NDArray& a, const StatOptions& options);

// numpy.var / std / nanvar / nanstd.
StatResult var_apply(const NDArray& a, const VarOptions& options);

// numpy.argmax / argmin (largest = false) / nanargmax / nanargmin (Note [Arg
// reductions]): int64 positions over one axis, or over the flattened array
// for axis=None. `out` is written with an unsafe cast and returned.
NDArray arg_reduce_apply(const NDArray& a, const AxisArg& axis, const NDArray* out, bool keepdims, bool largest,
                         bool skip_nan);

// numpy.count_nonzero: int64 counts over axis (a 0-d array for a full count).
NDArray count_nonzero_apply(const NDArray& a, const AxisArg& axis, bool keepdims);

}  // namespace kiln::arraycore
