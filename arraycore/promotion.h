// NumPy 2 type promotion and casting rules over kiln's dtypes (promotion.cpp).
// The one implementation: ufuncs, routines and the Python layer all ask here.
//
//   promote_types(DType::Int8, DType::UInt8)              == DType::Int16
//   can_cast(DType::Int64, DType::Float64, Casting::Safe) == true
//   DType d[] = {DType::Float32};  WeakScalar w[] = {WeakScalar::Complex};
//   result_type(d, w)                                     == DType::Complex64   // NEP 50
#pragma once

#include <span>

#include "arraycore/dtype.h"

namespace kiln::arraycore {

// numpy.can_cast's casting= levels, weakest guarantee last.
enum class Casting { No, Equiv, Safe, SameKind, Unsafe };

// The kind of a Python scalar operand. Under NEP 50 Python scalars are "weak":
// they take the array's dtype when their kind allows it. None_ means "not weak".
enum class WeakScalar { None_, Bool, Int, Float, Complex };

// numpy.promote_types: the smallest dtype both a and b cast to safely.
// Commutative; not associative for mixed signed/unsigned ints with floats,
// exactly as in NumPy (int8, uint8, float16).
DType promote_types(DType a, DType b);

// numpy.can_cast(from, to, casting) for dtypes (no values involved).
bool can_cast(DType from, DType to, Casting casting);

// numpy.result_type under NEP 50: `dtypes` are strong (arrays, dtypes, NumPy
// scalars); `weak` are the kinds of Python scalars (None_ entries ignored).
// std::invalid_argument when both are empty (as NumPy's ValueError).
DType result_type(std::span<const DType> dtypes, std::span<const WeakScalar> weak);

// The dtype NumPy gives a lone Python scalar of that kind: bool, int64,
// float64, complex128 (None_ -> std::invalid_argument).
DType default_dtype(WeakScalar kind);

}  // namespace kiln::arraycore
