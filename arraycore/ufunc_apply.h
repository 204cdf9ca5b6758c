// Calling a ufunc: operands (arrays and scalars), loop resolution
// (ufunc.h), broadcasting, output allocation, casting, where=, and one
// launch of the elementwise engine (ufunc_apply.cpp).
//
//   UfuncInput one;                                    // a Python int 1 (weak)
//   one.scalar.i = 1;
//   UfuncInput in[] = {UfuncInput::of(a), one};        // a + 1
//   std::vector<NDArray> r = ufunc_apply(ufunc("add"), in, {});
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc.h"

namespace kiln::arraycore {

// A scalar operand's value: a Python bool/int/float/complex (weak under NEP
// 50, except bool) or a NumPy scalar of a given dtype (strong).
struct ScalarValue {
  enum class Kind : uint8_t { Bool, Int, UInt, BigInt, Float, Complex, Typed } kind = Kind::Int;
  long long i = 0;            // Bool (0/1), Int
  unsigned long long u = 0;   // UInt: a Python int above INT64_MAX
  double re = 0, im = 0;      // Float, Complex; BigInt: the value rounded to double
  DType dtype = DType::Int64; // Typed: the NumPy scalar's dtype, bytes in `bytes`
  unsigned char bytes[16] = {};

  // A Python int or float (weak in NumPy 2's promotion).
  static ScalarValue python_int(long long v) {
    ScalarValue s;
    s.kind = Kind::Int;
    s.i = v;
    return s;
  }
  static ScalarValue python_float(double v) {
    ScalarValue s;
    s.kind = Kind::Float;
    s.re = v;
    return s;
  }
};

// An operand: an array (not owned: the caller keeps it alive for the call)
// or a scalar value.
struct UfuncInput {
  const NDArray* array = nullptr;
  ScalarValue scalar;
  std::shared_ptr<const NDArray> owned;   // `array`, when the caller converted the operand (another library's array)
  static UfuncInput of(const NDArray& a) { UfuncInput u; u.array = &a; return u; }
  static UfuncInput of(const ScalarValue& v) { UfuncInput u; u.scalar = v; return u; }
};

struct UfuncOptions {
  std::vector<std::optional<NDArray>> out;  // empty, or nout entries
  std::optional<NDArray> where;             // a bool array; none = everywhere
  bool where_false = false;                 // where=False: nothing is computed
  Casting casting = Casting::SameKind;
  std::optional<DType> dtype;
  char order = 'K';                         // K A C F
};

// NumPy's OverflowError for a Python int that does not fit the dtype NEP 50
// gave it ("Python integer 1000 out of bounds for int8").
struct ScalarOverflow : std::exception {
  std::string message;
  explicit ScalarOverflow(std::string m) : message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

// Applies `uf` and returns its outputs (the given `out` arrays or new ones).
// Throws UfuncTypeError, ScalarOverflow, std::invalid_argument (broadcasting,
// shapes: ValueError).
std::vector<NDArray> ufunc_apply(const UfuncDef& uf, std::span<const UfuncInput> inputs, const UfuncOptions& options);

// NumPy's cast of one value between two dtypes (the copy kernel's rules, on
// the host): `dst` receives itemsize(to) bytes.
void cast_scalar(const void* src, DType from, void* dst, DType to);

// A scalar operand's bytes as dtype `to`, through the dtype NEP 50 gave it
// (`weak`): Python ints must fit an integer `weak` dtype (ScalarOverflow).
void scalar_bytes(const ScalarValue& s, DType weak, DType to, void* dst);

// An operand's dtype and, for a Python scalar, its weak kind (NEP 50).
Operand operand_of(const UfuncInput& in);

// A scalar value converted to `to` as numpy.array(value, dtype=to) does: a
// Python int must fit an integer `to` (ScalarOverflow otherwise), NumPy
// scalars are cast. `dst` receives itemsize(to) bytes.
void scalar_to_dtype(const ScalarValue& s, DType to, void* dst);

}  // namespace kiln::arraycore
