// NumPy's functions built on the ufuncs (math_functions.cpp): where, clip,
// nan_to_num, isreal, iscomplex, angle, i0, sinc, isclose, allclose,
// array_equal and around, each one kernel from an ExpressionKernel (Note
// [One kernel per function]) with NumPy's dtypes at every step. Operands
// are arrays or scalars (UfuncInput: Python scalars weak under NEP 50).
//
//   NDArray r = where(UfuncInput::of(c), UfuncInput::of(x), zero);
//   bool same = allclose(UfuncInput::of(a), UfuncInput::of(b), rtol, atol, false);
//
// kiln/_math_functions.py and kiln/_rounding.py keep the signatures, the
// argument shaping (which operands are given, host-data errors), warnings
// and the paths that are single ufunc calls or copies.
#pragma once

#include <cstdint>
#include <optional>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// x where condition, else y, in result_type(x, y) (scalars cast as numpy.asarray(v).astype(dtype): a Python
// int out of range wraps, as NumPy's where does).
NDArray where(const UfuncInput& condition, const UfuncInput& x, const UfuncInput& y);

// a limited to [lo, hi] (a missing bound: no limit) into `out` or a new array, with NumPy's dtype, NaN and
// signed-zero rules (Note [clip]).
NDArray clip(const UfuncInput& a, std::optional<UfuncInput> lo, std::optional<UfuncInput> hi, const NDArray* out);

// x (a float or complex array) with NaN, +inf and -inf replaced by the NumPy scalars nan, posinf and neginf
// (of x's real dtype), in each part of a complex value; into `out` (x itself for copy=False) or a new array.
NDArray nan_to_num(const NDArray& x, const ScalarValue& nan, const ScalarValue& posinf, const ScalarValue& neginf,
                   const NDArray* out);

// Where the imaginary part of the complex array x is zero (isreal) or nonzero (iscomplex).
NDArray complex_part_test(const NDArray& x, bool nonzero);

// arctan2(imag, real) of each element (arctan2(0, z) for real dtypes); in degrees when `deg`.
NDArray angle(const UfuncInput& z, bool deg);

// The modified Bessel function of the first kind, order 0 (kiln::ufn::i0); complex: TypeError.
NDArray i0(const UfuncInput& x);

// sin(pi x) / (pi x), 1 where pi x is 0, by NumPy's steps.
NDArray sinc(const UfuncInput& x);

// NumPy's isclose and allclose (Note [isclose]).
NDArray isclose(const UfuncInput& a, const UfuncInput& b, const UfuncInput& rtol, const UfuncInput& atol,
                bool equal_nan);
bool allclose(const UfuncInput& a, const UfuncInput& b, const UfuncInput& rtol, const UfuncInput& atol,
              bool equal_nan);

// Whether a1 and a2 (equal shapes) have equal elements, NaNs equal each other when equal_nan.
bool array_equal(const UfuncInput& a1, const UfuncInput& a2, bool equal_nan);

// around(a, decimals, out) for the cases that are not a copy or a plain rint (Note [NumPy's rounding]):
// decimals != 0, or an integer array into `out`.
NDArray around(const NDArray& a, int64_t decimals, const NDArray* out);

}  // namespace kiln::arraycore
