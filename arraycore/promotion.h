// NumPy 2 type promotion and casting rules over kiln's dtypes (promotion.cpp).
// The one implementation: ufuncs, routines and the Python layer all ask here.
//
//   promote_types(DType::Int8, DType::UInt8)              == DType::Int16
//   can_cast(DType::Int64, DType::Float64, Casting::Safe) == true
//   DType d[] = {DType::Float32};  WeakScalar w[] = {WeakScalar::Complex};
//   result_type(d, w)                                     == DType::Complex64   // NEP 50
#pragma once

#include <span>
#include <stdexcept>

#include "arraycore/dtype.h"

namespace kiln::arraycore {

// numpy.can_cast's casting= levels, weakest guarantee last.
enum class Casting { No, Equiv, Safe, SameKind, Unsafe };

// The kind of a Python scalar operand. Under NEP 50 Python scalars are "weak":
// they take the array's dtype when their kind allows it. None_ means "not weak".
enum class WeakScalar { None_, Bool, Int, Float, Complex };

// numpy.exceptions.DTypePromotionError (a TypeError): two dtypes without a
// common dtype (bfloat16 with float16 or int16: Note [Bfloat16 promotion]).
class DTypePromotionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// numpy.promote_types: the smallest dtype both a and b cast to safely.
// Commutative; not associative for mixed signed/unsigned ints with floats,
// exactly as in NumPy (int8, uint8, float16).
DType promote_types(DType a, DType b);

// numpy.can_cast(from, to, casting) for dtypes (no values involved).
bool can_cast(DType from, DType to, Casting casting);
// NumPy's name of a casting rule: "no", "equiv", "safe", "same_kind", "unsafe".
const char* casting_name(Casting casting);

// numpy.result_type under NEP 50: `dtypes` are strong (arrays, dtypes, NumPy
// scalars), promoted as NumPy promotes a sequence (Note [Promoting a sequence]:
// int8, uint8, float16 -> float16); `weak` are the kinds of Python scalars
// (None_ entries ignored). std::invalid_argument when both are empty (as NumPy's ValueError).
DType result_type(std::span<const DType> dtypes, std::span<const WeakScalar> weak);

// numpy.min_scalar_type of a value: the smallest dtype of its kind that holds
// it (non-negative integers take unsigned types; floats and complex parts by
// range only, inf and nan fit float16). Integers are given as magnitude and
// sign so the whole uint64 and int64 ranges are covered.
DType min_scalar_type_integer(uint64_t magnitude, bool negative);
DType min_scalar_type_float(double value);
DType min_scalar_type_complex(double real, double imag);

// numpy.common_type's dtype: float64 for integer inputs, else the widest float
// precision present, made complex when any input is complex (float16 + complex
// -> complex64). std::invalid_argument for bool or no inputs.
DType common_type(std::span<const DType> dtypes);

// The dtype NumPy gives a lone Python scalar of that kind: bool, int64,
// float64, complex128 (None_ -> std::invalid_argument).
DType default_dtype(WeakScalar kind);

}  // namespace kiln::arraycore
