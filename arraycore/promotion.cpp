#include "arraycore/promotion.h"

#include "arraycore/axes.h"
#include "arraycore/record_dtype.h"

#include <algorithm>
#include <cmath>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>

namespace kiln::arraycore {
namespace {

// Note [Promotion as data]
// NumPy's promotion table is not arbitrary: promote_types(a, b) is the first
// dtype, in the order below, that both a and b cast to *safely*. So kiln
// keeps one small rule (safe casting as a kind + size lattice, safe_cast
// below) and generates the 14x14 table from it at compile time, instead of
// spelling 196 entries by hand. Python tests compare every entry, and every
// can_cast, with NumPy itself.
//
// The order puts kinds first (bool < integers < floats < complex) and sizes
// next, signed before unsigned at equal size: int8 + uint8 finds int16 before
// float16, uint8 + int16 finds int16.
constexpr std::array<DType, kNumDTypes> kPromotionOrder = {
    DType::Bool,    DType::Int8,    DType::UInt8,   DType::Int16,     DType::UInt16,
    DType::Int32,   DType::UInt32,  DType::Int64,   DType::UInt64,    DType::Float16,
    DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128,
};

enum class Kind { Bool, UInt, Int, Float, Complex };  // same_kind order: b < u < i < f < c

struct Traits {
  Kind kind;
  int size;  // bytes of one real component (complex64 -> 4)
};

constexpr Traits traits(DType d) {
  switch (d) {
    case DType::Bool: return {Kind::Bool, 1};
    case DType::Int8: return {Kind::Int, 1};
    case DType::Int16: return {Kind::Int, 2};
    case DType::Int32: return {Kind::Int, 4};
    case DType::Int64: return {Kind::Int, 8};
    case DType::UInt8: return {Kind::UInt, 1};
    case DType::UInt16: return {Kind::UInt, 2};
    case DType::UInt32: return {Kind::UInt, 4};
    case DType::UInt64: return {Kind::UInt, 8};
    case DType::Float16: return {Kind::Float, 2};
    case DType::Float32: return {Kind::Float, 4};
    case DType::Float64: return {Kind::Float, 8};
    case DType::Complex64: return {Kind::Complex, 4};
    case DType::Complex128: return {Kind::Complex, 8};
    case DType::BFloat16: return {Kind::Float, 2};
  }
  return {Kind::Bool, 1};
}

constexpr bool is_integer(Kind k) { return k == Kind::Int || k == Kind::UInt; }
constexpr bool is_inexact(Kind k) { return k == Kind::Float || k == Kind::Complex; }

// Widest integer (bytes) a float of `component` bytes holds safely. The
// mantissa decides (half: 11 bits, float: 24) except for double, which NumPy
// declares safe for 64-bit integers too.
constexpr int widest_safe_int(int component) { return component == 2 ? 1 : component == 4 ? 2 : 8; }

// Note [Bfloat16 promotion]
// ml_dtypes defines bfloat16's rules (NumPy asks the user dtype): bool, int8
// and uint8 cast safely to bfloat16, bfloat16 safely to float32, float64 and
// complex; nothing else is safe either way (not even float16, whose range
// bfloat16 exceeds and whose precision it lacks). same_kind allows any cast
// to bfloat16 and, from it, what is safe. promote_types follows the safe
// casts; with float16 or a wider integer there is no common dtype at all
// (NumPy's DTypePromotionError), while a ufunc's loop search still finds the
// first loop both inputs cast to safely (bfloat16 + int16 runs ff->f).
constexpr bool bfloat16_safe_cast(DType from, DType to) {
  if (from == to) return true;
  if (to == DType::BFloat16) return from == DType::Bool || from == DType::Int8 || from == DType::UInt8;
  return to == DType::Float32 || to == DType::Float64 || to == DType::Complex64 || to == DType::Complex128;
}

constexpr bool safe_cast(DType from, DType to) {
  const Traits f = traits(from), t = traits(to);
  if (from == DType::BFloat16 || to == DType::BFloat16) return bfloat16_safe_cast(from, to);
  if (from == to || f.kind == Kind::Bool) return true;
  switch (t.kind) {
    case Kind::Bool: return false;
    case Kind::UInt: return f.kind == Kind::UInt && f.size <= t.size;
    case Kind::Int:
      return (f.kind == Kind::Int && f.size <= t.size) || (f.kind == Kind::UInt && f.size < t.size);
    case Kind::Float:
    case Kind::Complex:
      if (is_integer(f.kind)) return f.size <= widest_safe_int(t.size);
      if (f.kind == Kind::Complex && t.kind == Kind::Float) return false;
      return f.size <= t.size;
  }
  return false;
}

using Table = std::array<std::array<DType, kNumDTypes>, kNumDTypes>;

constexpr Table make_promotion_table() {
  Table table{};
  for (int i = 0; i < kNumDTypes; ++i) {
    for (int j = 0; j < kNumDTypes; ++j) {
      const auto a = static_cast<DType>(i), b = static_cast<DType>(j);
      table[i][j] = DType::Complex128;  // every dtype casts safely to it
      if ((a == DType::BFloat16 || b == DType::BFloat16) && !safe_cast(a, b) && !safe_cast(b, a)) {
        table[i][j] = DType::BFloat16;  // no common dtype: Note [Bfloat16 promotion]
        continue;
      }
      for (DType c : kPromotionOrder) {
        if (safe_cast(a, c) && safe_cast(b, c)) {
          table[i][j] = c;
          break;
        }
      }
    }
  }
  return table;
}

constexpr Table kPromotionTable = make_promotion_table();

// Spot checks of the generated table, so a broken rule fails the build.
static_assert(kPromotionTable[int(DType::Int64)][int(DType::UInt64)] == DType::Float64);
static_assert(kPromotionTable[int(DType::Int8)][int(DType::UInt8)] == DType::Int16);
static_assert(kPromotionTable[int(DType::Float16)][int(DType::Int16)] == DType::Float32);
static_assert(kPromotionTable[int(DType::Bool)][int(DType::Int8)] == DType::Int8);
static_assert(kPromotionTable[int(DType::Complex64)][int(DType::Float64)] == DType::Complex128);
static_assert(kPromotionTable[int(DType::BFloat16)][int(DType::UInt8)] == DType::BFloat16);
static_assert(kPromotionTable[int(DType::Float32)][int(DType::BFloat16)] == DType::Float32);

bool no_common_dtype(DType a, DType b) {
  return (a == DType::BFloat16) != (b == DType::BFloat16) && !safe_cast(a, b) && !safe_cast(b, a);
}

// NumPy's DType class as its promotion message prints it.
std::string dtype_class_name(DType d) {
  if (d == DType::BFloat16) return "<class 'numpy.dtype[bfloat16]'>";
  std::string name(dtype_info(d).name);
  name[0] = static_cast<char>(name[0] - 'a' + 'A');
  if (name.rfind("Uint", 0) == 0) name = "UInt" + name.substr(4);
  return "<class 'numpy.dtypes." + name + "DType'>";
}

}  // namespace

DType promote_types(DType a, DType b) {
  // Note [Record dtypes]: a record promotes only with itself.
  if (is_record(a) || is_record(b)) {
    if (a == b) return a;
    throw TypeError("invalid type promotion: " + dtype_repr(a) + " and " + dtype_repr(b) + " have no common dtype");
  }
  if (no_common_dtype(a, b)) [[unlikely]] {
    throw DTypePromotionError("The DTypes " + dtype_class_name(a) + " and " + dtype_class_name(b) +
                              " do not have a common DType. For example they cannot be stored in a single array "
                              "unless the dtype is `object`.");
  }
  return kPromotionTable[static_cast<size_t>(a)][static_cast<size_t>(b)];
}

bool can_cast(DType from, DType to, Casting casting) {
  if (is_record(from) || is_record(to)) return from == to || (casting == Casting::Unsafe && is_record(to));
  switch (casting) {
    case Casting::No:
    case Casting::Equiv: return from == to;  // kiln arrays are native byte order
    case Casting::Safe: return safe_cast(from, to);
    case Casting::SameKind:
      if (to == DType::BFloat16) return true;  // Note [Bfloat16 promotion]
      return safe_cast(from, to) || (from != DType::BFloat16 && traits(from).kind <= traits(to).kind);
    case Casting::Unsafe: return true;
  }
  return false;
}

DType min_scalar_type_integer(uint64_t magnitude, bool negative) {
  if (!negative) {
    if (magnitude <= 0xFFu) return DType::UInt8;
    if (magnitude <= 0xFFFFu) return DType::UInt16;
    if (magnitude <= 0xFFFFFFFFu) return DType::UInt32;
    return DType::UInt64;
  }
  if (magnitude <= 0x80u) return DType::Int8;
  if (magnitude <= 0x8000u) return DType::Int16;
  if (magnitude <= 0x80000000u) return DType::Int32;
  if (magnitude <= 0x8000000000000000u) return DType::Int64;
  throw std::invalid_argument("min_scalar_type: integer below the int64 range");
}

// NumPy's thresholds are round numbers below the types' maxima, compared
// strictly: |v| < 65000 is float16 and |v| < 3.4e38 float32. A float nan or inf
// is float16, but a complex part that is nan or inf fails the comparison.
DType min_scalar_type_float(double value) {
  double m = std::fabs(value);
  if (std::isnan(m) || std::isinf(m) || m < 65000.0) return DType::Float16;
  return m < 3.4e38 ? DType::Float32 : DType::Float64;
}

DType min_scalar_type_complex(double real, double imag) {
  return std::fabs(real) < 3.4e38 && std::fabs(imag) < 3.4e38 ? DType::Complex64 : DType::Complex128;
}

DType common_type(std::span<const DType> dtypes) {
  if (dtypes.empty()) throw std::invalid_argument("common_type needs at least one array");
  int precision = 0;  // 0 half, 1 single, 2 double
  bool complex = false;
  for (DType d : dtypes) {
    if (d == DType::BFloat16) throw std::invalid_argument("can't get common type for non-numeric array");
    switch (dtype_info(d).kind) {
      case 'b': throw std::invalid_argument("can't get common type for non-numeric array");
      case 'i': case 'u': precision = 2; break;
      case 'c': complex = true; [[fallthrough]];
      default: {
        int p = d == DType::Float16 ? 0 : (d == DType::Float32 || d == DType::Complex64) ? 1 : 2;
        precision = std::max(precision, p);
      }
    }
  }
  if (complex) return precision == 2 ? DType::Complex128 : DType::Complex64;
  return precision == 0 ? DType::Float16 : precision == 1 ? DType::Float32 : DType::Float64;
}

DType default_dtype(WeakScalar kind) {
  switch (kind) {
    case WeakScalar::Bool: return DType::Bool;
    case WeakScalar::Int: return DType::Int64;
    case WeakScalar::Float: return DType::Float64;
    case WeakScalar::Complex: return DType::Complex128;
    case WeakScalar::None_: break;
  }
  throw std::invalid_argument("default_dtype: not a Python scalar kind");
}

// Note [Promoting a sequence]
// promote_types is not associative across kinds: int8, uint8 meet at int16,
// which then takes float16 to float32, while float16 alone holds both int8
// and uint8. NumPy's result_type of many dtypes promotes each integer or
// bool with the inexact dtypes' common dtype F, never with the other
// integers first: result_type(int8, uint8, float16) is float16,
// result_type(int16, uint16, float32) float32 (pairwise: float64). Without an
// inexact dtype the pairwise fold is what NumPy gives (integer promotion is
// associative). This rule was checked against NumPy 2.4 for every sequence of
// two to four of the numeric dtypes.
namespace {

DType promote_sequence(std::span<const DType> dtypes) {
  std::optional<DType> inexact;
  for (DType d : dtypes)
    if (!is_record(d) && is_inexact(traits(d).kind)) inexact = inexact ? promote_types(*inexact, d) : d;
  DType out = inexact ? promote_types(dtypes[0], *inexact) : dtypes[0];
  for (DType d : dtypes.subspan(1)) out = promote_types(out, inexact ? promote_types(d, *inexact) : d);
  return out;
}

}  // namespace

// Note [Weak scalars]
// NEP 50: Python scalars first combine among themselves (the highest kind
// wins: True, 1, 1.0 -> a float), then meet the strong dtype D:
//   - kind no higher than D's: D (int8 + 1 -> int8, float16 + 1.0 -> float16;
//     a Python bool is no higher than any dtype);
//   - complex with a float D: the complex of D's precision (float32 + 1j -> complex64);
//   - otherwise the scalar's default dtype (int8 + 1.0 -> float64, bool + 1 -> int64,
//     uint8 + 1j -> complex128).
// Whether the value fits D (uint8 + 300) is checked where the value is known.
DType result_type(std::span<const DType> dtypes, std::span<const WeakScalar> weak) {
  WeakScalar top = WeakScalar::None_;
  for (WeakScalar w : weak)
    if (w > top) top = w;
  if (dtypes.empty()) {
    if (top == WeakScalar::None_) throw std::invalid_argument("at least one array or dtype is required");
    return default_dtype(top);
  }
  const DType strong = promote_sequence(dtypes);
  if (is_record(strong) && top != WeakScalar::None_)
    throw TypeError("invalid type promotion: " + dtype_repr(strong) + " and a Python scalar have no common dtype");
  if (is_record(strong)) return strong;
  const Kind k = traits(strong).kind;
  switch (top) {
    case WeakScalar::None_:
    case WeakScalar::Bool: return strong;
    case WeakScalar::Int: return k == Kind::Bool ? DType::Int64 : strong;
    case WeakScalar::Float: return is_inexact(k) ? strong : DType::Float64;
    case WeakScalar::Complex:
      if (k == Kind::Float) return promote_types(strong, DType::Complex64);
      return k == Kind::Complex ? strong : DType::Complex128;
  }
  return strong;
}

const char* casting_name(Casting casting) {
  switch (casting) {
    case Casting::No: return "no";
    case Casting::Equiv: return "equiv";
    case Casting::Safe: return "safe";
    case Casting::SameKind: return "same_kind";
    case Casting::Unsafe: return "unsafe";
  }
  return "?";
}

}  // namespace kiln::arraycore
