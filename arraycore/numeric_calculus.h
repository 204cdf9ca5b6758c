// Numerical calculus on arrays (numeric_calculus.cpp): numpy.gradient, each
// step one ExpressionKernel (Note [One kernel per function]) over views of
// the operand, with NumPy's dtypes and roundings at every step.
//
//   UfuncInput dx = UfuncInput::of(ScalarValue::python_float(0.5));                // a Python float
//   std::vector<NDArray> g = gradient(f, {&dx, 1}, AxisArg::all(), 1);              // one array per axis
//   UfuncInput x = UfuncInput::of(coords);                                          // 1-d coordinates
//   std::vector<NDArray> gx = gradient(f, {&x, 1}, AxisArg::one(0), 2);
//
// Note [Gradient steps]
// numpy.gradient computes, per axis, second-order central differences on
// the interior and one-sided differences of edge_order 1 or 2 at both ends,
// as ufunc calls on slices written into np.empty_like(f, dtype=otype)
// (otype: f's dtype when inexact, else float64; integer f is first cast to
// float64). kiln runs the same three assignments (interior, first, last) as
// three ExpressionKernel launches into views of the result, with the same
// operand types: a spacing given as a Python scalar stays weak and its
// factors (2.0 * dx, -1.5 / dx ...) are Python arithmetic (double or
// complex, on the host); a NumPy scalar or 0-d array is strong and its
// factors are computed in the kernel with the ufunc loops NumPy's scalar
// arithmetic uses; coordinates (a 1-d array) become their differences
// (float64 for integer coordinates), which reduce to NumPy's scalar diffx[0]
// when all equal (one sync), else give the per-point weights a, b, c,
// computed per element in the kernel as NumPy computes them per array.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/statistics.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// numpy.gradient(f, *spacing, axis=axis, edge_order=edge_order): one array
// per axis of `axis` (Note [Gradient steps]). `spacing` holds no entry (unit
// spacing), one scalar (for every axis), or one scalar or 1-d coordinate
// array per axis. Errors are NumPy's: TypeError "invalid number of
// arguments", ValueError for coordinates that are not 1-d or do not match
// their axis, an edge_order above 2, an axis shorter than edge_order + 1;
// AxisError; the ufuncs' TypeError for bool f.
std::vector<NDArray> gradient(const NDArray& f, std::span<const UfuncInput> spacing, const AxisArg& axis,
                              int64_t edge_order);

}  // namespace kiln::arraycore
