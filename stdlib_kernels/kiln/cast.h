// kiln::numpy_cast<To>(x): the value conversion NumPy's astype makes, for
// every pair of kiln's scalar types, identical on every backend.
//
//   int8_t i = kiln::numpy_cast<signed char>(1e300);   // 0, as NumPy on x86
//   unsigned u = kiln::numpy_cast<unsigned>(-1.0f);     // 4294967295
//
// Note [Float to integer casts]
// C++ leaves a float -> integer conversion undefined when the truncated value
// does not fit (NaN, inf, 1e300, -1.0 -> unsigned); PTX saturates, x86
// returns the "integer indefinite" 0x80...0 of the 32- or 64-bit convert
// instruction. NumPy's results are those of x86 code from its C casts, so
// kiln spells that code out and every backend gives NumPy-on-x86's answer:
// - int64: one 64-bit convert (out of range or NaN -> INT64_MIN);
// - int8/16/32, uint8/16: a 32-bit convert (out of range -> INT32_MIN), then
//   the low bits (so 1e300 -> int8 is 0, 300.0 -> uint8 is 44);
// - uint32: a 64-bit convert, then the low 32 bits (-1.0 -> 4294967295,
//   1e10 -> 1410065408, NaN -> 0). This is NumPy's scalar cast; NumPy's
//   vectorised loop differs for out-of-range values (NaN -> 2^31, 1e10 -> 0),
//   so NumPy's own answer depends on the array's length there: kiln gives the
//   scalar one always.
// - uint64: below 2^63 (or NaN) a 64-bit convert, else a 64-bit convert of
//   x - 2^63 with the top bit flipped (1e300 -> 0, -1.0 -> 2^64 - 1).
// These are NumPy 2.4's results on x86-64 (SSE4/AVX2 builds); a NumPy whose
// casts use AVX-512's unsigned converts may differ, and the tests then check
// the documented values only.
// float16 and bfloat16 convert through float and complex through its real part first.
// In-range values truncate toward zero as C++ does; the extra compares cost
// nothing measurable in a memory-bound copy.
#pragma once

#include "kiln/bfloat16.h"
#include "kiln/complex.h"
#include "kiln/half.h"

namespace kiln {
namespace detail {

template <class F>
KILN_HOST_DEVICE long long convert_64(F x) {
  return (x >= F(-9223372036854775808.0) && x < F(9223372036854775808.0)) ? static_cast<long long>(x)
                                                                          : (long long)(1ULL << 63);
}

template <class F>
KILN_HOST_DEVICE int convert_32(F x) {
  return (x > F(-2147483649.0) && x < F(2147483648.0)) ? static_cast<int>(x) : (int)(1U << 31);
}

template <class F>
KILN_HOST_DEVICE unsigned long long convert_u64(F x) {
  if (!(x >= F(9223372036854775808.0))) return static_cast<unsigned long long>(convert_64(x));
  return static_cast<unsigned long long>(convert_64(x - F(9223372036854775808.0))) ^ (1ULL << 63);
}

// To integer type I from floating F (float or double).
template <class I, class F> struct float_to_int;
template <class F> struct float_to_int<signed char, F> {
  static KILN_HOST_DEVICE signed char run(F x) { return static_cast<signed char>(convert_32(x)); }
};
template <class F> struct float_to_int<unsigned char, F> {
  static KILN_HOST_DEVICE unsigned char run(F x) { return static_cast<unsigned char>(convert_32(x)); }
};
template <class F> struct float_to_int<short, F> {
  static KILN_HOST_DEVICE short run(F x) { return static_cast<short>(convert_32(x)); }
};
template <class F> struct float_to_int<unsigned short, F> {
  static KILN_HOST_DEVICE unsigned short run(F x) { return static_cast<unsigned short>(convert_32(x)); }
};
template <class F> struct float_to_int<int, F> {
  static KILN_HOST_DEVICE int run(F x) { return convert_32(x); }
};
template <class F> struct float_to_int<unsigned int, F> {
  static KILN_HOST_DEVICE unsigned int run(F x) { return static_cast<unsigned int>(convert_64(x)); }
};
template <class F> struct float_to_int<long long, F> {
  static KILN_HOST_DEVICE long long run(F x) { return convert_64(x); }
};
template <class F> struct float_to_int<long, F> {
  static KILN_HOST_DEVICE long run(F x) { return static_cast<long>(convert_64(x)); }
};
template <class F> struct float_to_int<unsigned long long, F> {
  static KILN_HOST_DEVICE unsigned long long run(F x) { return convert_u64(x); }
};
template <class F> struct float_to_int<unsigned long, F> {
  static KILN_HOST_DEVICE unsigned long run(F x) { return static_cast<unsigned long>(convert_u64(x)); }
};

// Default: the C++ conversion (exact NumPy semantics for everything that is
// not float -> integer; see half.h and complex.h).
template <class To, class From> struct numpy_cast_impl {
  static KILN_HOST_DEVICE To run(From x) { return static_cast<To>(x); }
};
#define KILN_FLOAT_TO_INT(I)                                                                                  \
  template <> struct numpy_cast_impl<I, float> {                                                              \
    static KILN_HOST_DEVICE I run(float x) { return float_to_int<I, float>::run(x); }                         \
  };                                                                                                          \
  template <> struct numpy_cast_impl<I, double> {                                                             \
    static KILN_HOST_DEVICE I run(double x) { return float_to_int<I, double>::run(x); }                       \
  };                                                                                                          \
  template <> struct numpy_cast_impl<I, half> {                                                               \
    static KILN_HOST_DEVICE I run(half x) { return float_to_int<I, float>::run(static_cast<float>(x)); }      \
  };                                                                                                          \
  template <> struct numpy_cast_impl<I, bfloat16> {                                                           \
    static KILN_HOST_DEVICE I run(bfloat16 x) { return float_to_int<I, float>::run(static_cast<float>(x)); }  \
  };                                                                                                          \
  template <> struct numpy_cast_impl<I, complex<float>> {                                                     \
    static KILN_HOST_DEVICE I run(complex<float> x) { return float_to_int<I, float>::run(x.real()); }         \
  };                                                                                                          \
  template <> struct numpy_cast_impl<I, complex<double>> {                                                    \
    static KILN_HOST_DEVICE I run(complex<double> x) { return float_to_int<I, double>::run(x.real()); }       \
  };
KILN_FLOAT_TO_INT(signed char)
KILN_FLOAT_TO_INT(unsigned char)
KILN_FLOAT_TO_INT(short)
KILN_FLOAT_TO_INT(unsigned short)
KILN_FLOAT_TO_INT(int)
KILN_FLOAT_TO_INT(unsigned int)
KILN_FLOAT_TO_INT(long long)
KILN_FLOAT_TO_INT(long)
KILN_FLOAT_TO_INT(unsigned long long)
KILN_FLOAT_TO_INT(unsigned long)
#undef KILN_FLOAT_TO_INT

}  // namespace detail

template <class To, class From>
KILN_HOST_DEVICE To numpy_cast(From x) {
  return detail::numpy_cast_impl<To, From>::run(x);
}

}  // namespace kiln
