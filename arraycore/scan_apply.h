// ufunc.accumulate (cumsum, cumprod and their kin): argument checks, the
// loop dtype, the (m, n) rows of the scanned axis and one launch of the scan
// engine (scan.h) for reorderable ufuncs, or of a sequential scan, one thread
// per row, for the others (scan_apply.cpp); and the NaN replacement of
// nancumsum/nancumprod.
//
//   AccumulateOptions o;                       // kiln.add.accumulate(a, axis=1)
//   o.axes = std::vector<int64_t>{1};
//   NDArray r = accumulate_apply(ufunc("add"), a, o);
#pragma once

#include <optional>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc.h"

namespace kiln::arraycore {

struct AccumulateOptions {
  std::optional<std::vector<int64_t>> axes;   // axis=: none = None (1-d operands only), else one entry
  std::optional<DType> dtype;                 // dtype=
  std::optional<NDArray> out;                 // out= (a's shape; the result is cast into it)
};

// Running results of the binary ufunc `uf` along one axis of `a`, as
// numpy.ufunc.accumulate: a new array, or options.out. Throws TypeError (0-d
// operand), std::invalid_argument (ValueError), AxisError, UfuncTypeError.
NDArray accumulate_apply(const UfuncDef& uf, const NDArray& a, const AccumulateOptions& options);

// `a` with NaNs (complex: either part NaN) replaced by `value` (0 or 1: the
// start of nancumsum, nancumprod), as a new C-contiguous array of a's dtype;
// `a` itself when it holds no floats.
NDArray nan_replaced(const NDArray& a, int value);

}  // namespace kiln::arraycore
