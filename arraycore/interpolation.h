// numpy.interp (interpolation.cpp): piecewise-linear interpolation of the
// points (xp, fp) at x, one thread per value of x, with NumPy's formulas
// (Note [interp]). kiln/_numeric.py handles period= by NumPy's steps
// (x and xp modulo the period, xp sorted and extended by one period on
// each side) and calls this.
//
//   NDArray y = interp(x, xp, fp, std::nullopt, ScalarValue{...});   // left: fp[0]
#pragma once

#include <optional>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// Note [interp]
// As NumPy's compiled interp: x and xp as float64, fp as float64 (complex128
// when complex); for each x, left (default fp[0]) below xp[0], right
// (default fp[-1]) above xp[-1], fp[j] where x == xp[j] or j is the last
// point, else slope * (x - xp[j]) + fp[j] with slope = (fp[j + 1] - fp[j]) /
// (xp[j + 1] - xp[j]) (complex: each part times 1 / (xp[j + 1] - xp[j])),
// retried from the right point when that is NaN, and fp[j] when still NaN
// with fp[j] == fp[j + 1] (each part apart for complex). j is the last point
// with xp[j] <= x (0 for a NaN x).
// Errors are NumPy's: ValueError for empty xp, xp and fp of different
// lengths, xp or fp not 1-d.
NDArray interp(const NDArray& x, const NDArray& xp, const NDArray& fp, const std::optional<ScalarValue>& left,
               const std::optional<ScalarValue>& right);

}  // namespace kiln::arraycore
