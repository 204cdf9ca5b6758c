// kiln::ufn: the scalar functions behind NumPy's arithmetic, integer,
// bitwise, comparison, logical, classification and rounding ufuncs, for
// generated ufunc kernels (kiln/ufunc_math.h includes this header and the
// transcendental one). Each function is named as the ufunc's __name__ and has
// one overload per NumPy type loop over kiln's dtypes, taking the loop's input
// types by value and returning its output type (two outputs: by reference).
//
//   out0 = kiln::ufn::floor_divide(in0, in1);   // int8: Python's //; float: NumPy's
//   kiln::ufn::divmod(a, b, q, r);              // q = a // b, r = a % b
//   bool lt = kiln::ufn::less(z, w);            // complex: NumPy's order, NaN rules included
//   float m = kiln::ufn::absolute(z);           // complex64 -> float32
//
// Types: bool, signed char (int8), short, int, long long (int64; long works
// too), the unsigned ones, kiln::half, float, double, kiln::complex<float|double>.
// NumPy 2.4 on x86-64 (AVX2 dispatch, NumPy's X86_V3) is the reference, bit
// for bit, with these exceptions and choices:
//
// Note [Integer division by zero]
// floor_divide, remainder, fmod and divmod by 0 give 0, as NumPy does (NumPy
// also warns; a kernel cannot). INT_MIN // -1 wraps to INT_MIN (NumPy warns of
// the overflow), INT_MIN % -1 is 0. reciprocal of an integer is NumPy's C cast
// of 1.0 / x: 1, -1 or 0, and 1/0 = inf cast as x86 casts it: INT32_MIN and
// INT64_MIN for int32 and int64, 0 for the narrower and the unsigned types.
//
// Note [Integer power]
// By repeated squaring in the unsigned type of the same width, so results
// wrap modulo 2^bits as NumPy's do. NumPy raises ValueError for a negative
// exponent before running its loop; a kernel cannot raise, so power(a, b < 0)
// gives the truncated 1 / a^|b|: 1 for a == 1, +-1 for a == -1, else 0 (also
// for a == 0).
//
// Note [Shifts past the width]
// left_shift by b >= bits (or b < 0) gives 0; right_shift gives 0, or -1 for
// a negative signed a. C++ leaves these undefined; NumPy defines them so.
//
// Note [Float floor division]
// floor_divide, remainder and divmod of floats follow NumPy's derivation
// from fmod (Python's sign rules): the remainder takes the divisor's sign
// (1.0 % -inf is -inf, -1.0 % inf is inf), a zero remainder is a zero with the
// divisor's sign, the quotient is floor((a - fmod(a, b)) / b) snapped to the
// nearest integer, a zero quotient has the sign of a / b, division by zero
// gives a / b (+-inf, NaN) and remainder NaN. float16 computes in float and
// rounds once, as NumPy's float16 loops do for every arithmetic ufunc.
//
// Note [NaN in maximum and fmax]
// maximum/minimum return the first argument when it is NaN, else the larger
// (smaller) one, else the second: so maximum(0.0, -0.0) is -0.0 for float32
// and float64, whose x86 loops compare with >, but 0.0 for float16, whose
// loop compares with >=. fmax/fmin return the first argument when the second
// is NaN. NumPy's own fmax/fmin differ between the SIMD body of an array and
// its scalar tail for +-0 ties and for two NaNs (which one's bits come back);
// kiln gives the SIMD body's answer everywhere. Complex: NumPy's lexicographic
// order (complex_ge/complex_le below), a NaN part counting as NaN.
//
// Note [Complex products use FMA]
// NumPy's x86 complex loops (AVX2) compute a * b as (fma(ar, br, -(ai bi)),
// fma(ar, bi, ai br)), square as (fma(r, r, -(i i)), r i + i r) and
// absolute as big * sqrt(fma(s/big, s/big, 1)) with big, s the larger and
// smaller magnitude; kiln does the same on every backend. Division and
// reciprocal are NumPy's Smith's algorithm without FMA. A device compiler
// would contract a * b + c into an FMA of its own choosing, so these are
// spelled with __fmul_rn / __fadd_rn (never contracted) and explicit fma.
// (A NumPy without AVX2 dispatch rounds each product instead: its results
// then differ from these in the last bit.)
// sign(z) is z / hypot(re, im) as NumPy 2 (complex64: hypot in double,
// rounded once, as glibc's hypotf), with z = 0 -> 0, one infinite part -> +-1
// on that axis, both infinite or NaN -> NaN, and, as NumPy, +-1j when |z|
// overflows with both parts finite (sign(max + max j) is 1j). complex128
// sign uses the backend's hypot: glibc's on the host, the correctly rounded
// one on a GPU (Note [Double hypot on the device]), so there it alone may
// differ from NumPy by up to 2 ulp per part (1 ulp of hypot, then the
// division's rounding).
//
// Note [NaN payloads]
// Functions that select or move bits (copysign, absolute, negative, maximum,
// sign of a real NaN...) pass NaNs on bit for bit. A NaN an arithmetic
// instruction makes carries the hardware's payload: x86's on the host backend
// (as NumPy's), the canonical NaN on a GPU. heaviside(NaN) and complex sign of
// a NaN are NumPy's constant +NaN; complex absolute of a NaN is +NaN (NumPy's
// payload there varies).
//
// Everything else is exact IEEE arithmetic (division, sqrt, fma, fmod, floor,
// rint), so results are NumPy's bit for bit provided kernels are compiled
// without fast-math options (-use_fast_math, -ftz=true, -prec-div=false).
#pragma once

#include "kiln/complex.h"

namespace kiln {
namespace ufn {
namespace arith_detail {

using kiln::detail::enable_if;

// Integers other than bool: the unsigned type of the same width, and the
// unsigned type arithmetic wraps in without C++'s promotion to int.
template <class T> struct int_info { static constexpr bool ok = false; };
#define KILN_UFN_INT_INFO(T, U, S)                                                             \
  template <> struct int_info<T> {                                                             \
    static constexpr bool ok = true, is_signed = S;                                            \
    static constexpr int bits = 8 * sizeof(T);                                                 \
    typedef U unsigned_type;                                                                   \
  };
KILN_UFN_INT_INFO(signed char, unsigned char, true)
KILN_UFN_INT_INFO(short, unsigned short, true)
KILN_UFN_INT_INFO(int, unsigned int, true)
KILN_UFN_INT_INFO(long, unsigned long, true)
KILN_UFN_INT_INFO(long long, unsigned long long, true)
KILN_UFN_INT_INFO(unsigned char, unsigned char, false)
KILN_UFN_INT_INFO(unsigned short, unsigned short, false)
KILN_UFN_INT_INFO(unsigned int, unsigned int, false)
KILN_UFN_INT_INFO(unsigned long, unsigned long, false)
KILN_UFN_INT_INFO(unsigned long long, unsigned long long, false)
#undef KILN_UFN_INT_INFO

template <bool Wide> struct wrap_type { typedef unsigned int type; };
template <> struct wrap_type<true> { typedef unsigned long long type; };
// x in the unsigned type its arithmetic wraps in (at least unsigned int).
template <class T>
KILN_HOST_DEVICE typename wrap_type<(sizeof(T) > 4)>::type wrap(T x) {
  return static_cast<typename wrap_type<(sizeof(T) > 4)>::type>(x);
}

// a < 0, without a compiler warning for unsigned T.
template <bool Signed> struct below_zero {
  template <class T> static KILN_HOST_DEVICE bool test(T a) { return a < T(0); }
};
template <> struct below_zero<false> {
  template <class T> static KILN_HOST_DEVICE bool test(T) { return false; }
};
template <class T>
KILN_HOST_DEVICE bool is_neg(T a) { return below_zero<int_info<T>::is_signed>::test(a); }

// float and double: bit patterns and the C library, overloaded.
template <class T> struct float_info { static constexpr bool ok = false; };
template <> struct float_info<float> { static constexpr bool ok = true; };
template <> struct float_info<double> { static constexpr bool ok = true; };

KILN_HOST_DEVICE bool is_nan(float x) { return (kiln::detail::float_bits(x) & 0x7fffffffu) > 0x7f800000u; }
KILN_HOST_DEVICE bool is_nan(double x) {
  return (kiln::detail::double_bits(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
KILN_HOST_DEVICE bool is_nan(half x) { return (x.bits() & 0x7fffu) > 0x7c00u; }
KILN_HOST_DEVICE bool is_inf(float x) { return (kiln::detail::float_bits(x) & 0x7fffffffu) == 0x7f800000u; }
KILN_HOST_DEVICE bool is_inf(double x) {
  return (kiln::detail::double_bits(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
}
KILN_HOST_DEVICE bool is_inf(half x) { return (x.bits() & 0x7fffu) == 0x7c00u; }
KILN_HOST_DEVICE bool sign_bit(float x) { return (kiln::detail::float_bits(x) >> 31) != 0; }
KILN_HOST_DEVICE bool sign_bit(double x) { return (kiln::detail::double_bits(x) >> 63) != 0; }
KILN_HOST_DEVICE bool sign_bit(half x) { return (x.bits() >> 15) != 0; }

// NumPy's NaN constant: positive, quiet, no payload.
template <class F> KILN_HOST_DEVICE F quiet_nan();
template <> KILN_HOST_DEVICE float quiet_nan<float>() { return kiln::detail::bits_float(0x7fc00000u); }
template <> KILN_HOST_DEVICE double quiet_nan<double>() { return kiln::detail::bits_double(0x7ff8000000000000ull); }
template <class F> KILN_HOST_DEVICE F infinity();
template <> KILN_HOST_DEVICE float infinity<float>() { return kiln::detail::bits_float(0x7f800000u); }
template <> KILN_HOST_DEVICE double infinity<double>() { return kiln::detail::bits_double(0x7ff0000000000000ull); }

// Sign-bit operations as bit operations, so NaNs keep their payload on every
// backend (PTX leaves the NaN that neg.f32 and abs.f32 return unspecified).
KILN_HOST_DEVICE float flip_sign(float x) { return kiln::detail::bits_float(kiln::detail::float_bits(x) ^ 0x80000000u); }
KILN_HOST_DEVICE double flip_sign(double x) { return kiln::detail::bits_double(kiln::detail::double_bits(x) ^ (1ull << 63)); }
KILN_HOST_DEVICE float fabs_(float x) { return kiln::detail::bits_float(kiln::detail::float_bits(x) & 0x7fffffffu); }
KILN_HOST_DEVICE double fabs_(double x) { return kiln::detail::bits_double(kiln::detail::double_bits(x) & ~(1ull << 63)); }
KILN_HOST_DEVICE float copysign_(float a, float b) {
  return kiln::detail::bits_float((kiln::detail::float_bits(a) & 0x7fffffffu) | (kiln::detail::float_bits(b) & 0x80000000u));
}
KILN_HOST_DEVICE double copysign_(double a, double b) {
  return kiln::detail::bits_double((kiln::detail::double_bits(a) & ~(1ull << 63)) | (kiln::detail::double_bits(b) & (1ull << 63)));
}

// A NaN with its quiet bit set, payload and sign kept: what glibc's floor,
// rint, modf, ldexp, nextafter, ... return for a NaN argument (x86 quiets
// the operand), where CUDA's library returns its canonical NaN.
KILN_HOST_DEVICE float quieted(float x) { return kiln::detail::bits_float(kiln::detail::float_bits(x) | 0x00400000u); }
KILN_HOST_DEVICE double quieted(double x) {
  return kiln::detail::bits_double(kiln::detail::double_bits(x) | 0x0008000000000000ull);
}
// The C library by overloading (kiln::ufn's own floor etc. hide the global
// names inside this namespace, hence the ::); a NaN comes back quieted().
KILN_HOST_DEVICE float floor_(float x) { return is_nan(x) ? quieted(x) : ::floorf(x); }
KILN_HOST_DEVICE double floor_(double x) { return is_nan(x) ? quieted(x) : ::floor(x); }
KILN_HOST_DEVICE float ceil_(float x) { return is_nan(x) ? quieted(x) : ::ceilf(x); }
KILN_HOST_DEVICE double ceil_(double x) { return is_nan(x) ? quieted(x) : ::ceil(x); }
KILN_HOST_DEVICE float trunc_(float x) { return is_nan(x) ? quieted(x) : ::truncf(x); }
KILN_HOST_DEVICE double trunc_(double x) { return is_nan(x) ? quieted(x) : ::trunc(x); }
KILN_HOST_DEVICE float rint_(float x) { return is_nan(x) ? quieted(x) : ::rintf(x); }
KILN_HOST_DEVICE double rint_(double x) { return is_nan(x) ? quieted(x) : ::rint(x); }
KILN_HOST_DEVICE float fmod_(float a, float b) { return ::fmodf(a, b); }
KILN_HOST_DEVICE double fmod_(double a, double b) { return ::fmod(a, b); }
KILN_HOST_DEVICE float sqrt_(float x) { return ::sqrtf(x); }
KILN_HOST_DEVICE double sqrt_(double x) { return ::sqrt(x); }
KILN_HOST_DEVICE float fma_(float a, float b, float c) { return ::fmaf(a, b, c); }
KILN_HOST_DEVICE double fma_(double a, double b, double c) { return ::fma(a, b, c); }
// See Note [Complex products use FMA]: never contracted.
KILN_HOST_DEVICE float mul_rn(float a, float b) { return __fmul_rn(a, b); }
KILN_HOST_DEVICE double mul_rn(double a, double b) { return __dmul_rn(a, b); }
KILN_HOST_DEVICE float add_rn(float a, float b) { return __fadd_rn(a, b); }
KILN_HOST_DEVICE double add_rn(double a, double b) { return __dadd_rn(a, b); }
KILN_HOST_DEVICE float sub_rn(float a, float b) { return __fsub_rn(a, b); }
KILN_HOST_DEVICE double sub_rn(double a, double b) { return __dsub_rn(a, b); }
// glibc's hypotf: the exact sum of squares in double, one sqrt, one rounding
// (inf if either is infinite, even with a NaN).
KILN_HOST_DEVICE float hypot_(float a, float b) {
  if (is_inf(a) || is_inf(b)) return infinity<float>();
  const double x = a, y = b;
  return static_cast<float>(::sqrt(x * x + y * y));
}
// Note [Double hypot on the device]
// glibc's hypot (NumPy's, and the host backend's) is within about 0.8 ulp;
// CUDA's within 2 ulp, and it overflows to inf near DBL_MAX where the result
// is finite (hypot(1.8e308, 1)): scaling its arguments down and its result
// back up cannot help, as its error alone can carry a result just below
// DBL_MAX past it. The device computes hypot correctly rounded instead
// (hypot_rounded): with big >= small the magnitudes,
//  - small < 2^-27 big: the result is big (the exact big sqrt(1 + r^2)
//    exceeds big by less than big 2^-55, under half an ulp);
//  - otherwise both are scaled by a power of two (exact) that puts big in
//    [2^-300, 2^500], so that the squares and their low halves are normal;
//    h = sqrt(big^2 + small^2) is within an ulp, and one Newton step
//    h + (big^2 + small^2 - h^2) / (2h), with the residual exact by FMA,
//    rounds correctly (but where the exact value is within about 2^-50 ulp
//    of a rounding boundary);
//  - scaled back by the inverse power of two: exact, inf only where the
//    correctly rounded result overflows; a subnormal result is rounded
//    once from the exact value, not from h (a tie of h's rounding is
//    decided by the residual).
// The device's result is the correctly rounded one; glibc's differs from it
// by 1 ulp for about 0.3% of arguments of comparable size (and more often
// for subnormal results), so complex128 sign on a GPU can differ from
// NumPy's by an ulp or two (Note [Complex products use FMA]).
KILN_HOST_DEVICE double hypot_rounded(double a, double b) {
  double big = fabs_(a), small = fabs_(b);
  if (is_inf(big) || is_inf(small)) return infinity<double>();  // even with a NaN
  if (is_nan(big) || is_nan(small)) return a + b;
  if (big < small) {
    const double t = big;
    big = small;
    small = t;
  }
  if (small == 0.0) return big;
  double scale = 1.0, unscale = 1.0;
  if (big > 2.037035976334486e+90) {          // 2^300
    scale = 2.409919865102884e-181;           // 2^-600
    unscale = 4.149515568880993e+180;         // 2^600
  } else if (big < 4.909093465297727e-91) {  // 2^-300
    scale = 6.668014432879854e+240;           // 2^800
    unscale = 1.499696813895631e-241;         // 2^-800
  }
  const double x = big * scale, y = small * scale;
  if (y < x * 7.450580596923828e-09) return big;  // 2^-27
  const double xx = mul_rn(x, x), yy = mul_rn(y, y);
  const double h = sqrt_(add_rn(xx, yy)), hh = mul_rn(h, h);
  const double residual = add_rn(add_rn(sub_rn(xx, hh), yy),
                                 sub_rn(add_rn(fma_(x, x, -xx), fma_(y, y, -yy)), fma_(h, h, -hh)));
  const double correction = mul_rn(residual, 0.5 / h);
  double r = mul_rn(add_rn(h, correction), unscale);
  if (r < 2.2250738585072014e-308) {  // subnormal (scale was 2^800): r is h + correction rounded twice
    const double above = add_rn(sub_rn(h, mul_rn(r, 6.668014432879854e+240)), correction);
    const double half_ulp = 1.6472184286297693e-83;  // 2^-1075 scaled by 2^800
    if (above > half_ulp) r = add_rn(r, 4.9406564584124654e-324);
    else if (above < -half_ulp) r = sub_rn(r, 4.9406564584124654e-324);
  }
  return r;
}
#if defined(__CUDA_ARCH__)
KILN_HOST_DEVICE double hypot_(double a, double b) { return hypot_rounded(a, b); }
#else
KILN_HOST_DEVICE double hypot_(double a, double b) { return ::hypot(a, b); }
#endif

// Python's floor division and remainder of floats; see Note [Float floor division].
template <class F>
KILN_HOST_DEVICE F float_divmod(F a, F b, F& mod) {
  mod = fmod_(a, b);
  if (b == F(0)) return a / b;
  F div = (a - mod) / b;
  if (mod != F(0)) {  // NaN included
    if ((b < F(0)) != (mod < F(0))) {
      mod += b;
      div -= F(1);
    }
  } else {
    mod = copysign_(F(0), b);
  }
  if (div == F(0)) return copysign_(F(0), a / b);
  F floordiv = floor_(div);
  if (div - floordiv > F(0.5)) floordiv += F(1);
  return floordiv;
}

// NumPy's complex order: lexicographic, a real-part decision needing both
// imaginary parts non-NaN (see Note [NaN in maximum and fmax]).
#define KILN_UFN_COMPLEX_ORDER(name, strict, op)                                                         \
  template <class T>                                                                                     \
  KILN_HOST_DEVICE bool name(complex<T> a, complex<T> b) {                                               \
    return (a.re_ strict b.re_ && !is_nan(a.im_) && !is_nan(b.im_)) || (a.re_ == b.re_ && a.im_ op b.im_); \
  }
KILN_UFN_COMPLEX_ORDER(complex_gt, >, >)
KILN_UFN_COMPLEX_ORDER(complex_ge, >, >=)
KILN_UFN_COMPLEX_ORDER(complex_lt, <, <)
KILN_UFN_COMPLEX_ORDER(complex_le, <, <=)
#undef KILN_UFN_COMPLEX_ORDER
template <class T>
KILN_HOST_DEVICE bool complex_has_nan(complex<T> z) { return is_nan(z.re_) || is_nan(z.im_); }

// -1, 0 or 1 as a is below, equal to or above b (int64 against uint64).
KILN_HOST_DEVICE int compare_mixed(long long a, unsigned long long b) {
  if (a < 0) return -1;
  const unsigned long long ua = static_cast<unsigned long long>(a);
  return ua < b ? -1 : (ua > b ? 1 : 0);
}

}  // namespace arith_detail

// Overload families: every integer type but bool; float and double; the real
// types (bool, integers, half, float, double).
#define KILN_UFN_INT template <class T, typename arith_detail::enable_if<arith_detail::int_info<T>::ok, int>::type = 0>
#define KILN_UFN_FLOAT \
  template <class T, typename arith_detail::enable_if<arith_detail::float_info<T>::ok, int>::type = 0>
#define KILN_UFN_HD KILN_HOST_DEVICE
// half f(half...) computed in float and rounded once, as NumPy's float16 loops.
#define KILN_UFN_HALF_VIA_FLOAT1(name) \
  KILN_UFN_HD half name(half a) { return half(name(static_cast<float>(a))); }
#define KILN_UFN_HALF_VIA_FLOAT2(name) \
  KILN_UFN_HD half name(half a, half b) { return half(name(static_cast<float>(a), static_cast<float>(b))); }

// ---- add subtract multiply divide ----
KILN_UFN_INT KILN_UFN_HD T add(T a, T b) { return static_cast<T>(arith_detail::wrap(a) + arith_detail::wrap(b)); }
KILN_UFN_INT KILN_UFN_HD T subtract(T a, T b) { return static_cast<T>(arith_detail::wrap(a) - arith_detail::wrap(b)); }
KILN_UFN_INT KILN_UFN_HD T multiply(T a, T b) { return static_cast<T>(arith_detail::wrap(a) * arith_detail::wrap(b)); }
KILN_UFN_HD bool add(bool a, bool b) { return a || b; }
KILN_UFN_HD bool multiply(bool a, bool b) { return a && b; }
KILN_UFN_FLOAT KILN_UFN_HD T add(T a, T b) { return a + b; }
KILN_UFN_FLOAT KILN_UFN_HD T subtract(T a, T b) { return a - b; }
KILN_UFN_FLOAT KILN_UFN_HD T multiply(T a, T b) { return a * b; }
KILN_UFN_FLOAT KILN_UFN_HD T divide(T a, T b) { return a / b; }
KILN_UFN_HD half add(half a, half b) { return a + b; }
KILN_UFN_HD half subtract(half a, half b) { return a - b; }
KILN_UFN_HD half multiply(half a, half b) { return a * b; }
KILN_UFN_HD half divide(half a, half b) { return a / b; }
template <class T>
KILN_UFN_HD complex<T> add(complex<T> a, complex<T> b) { return complex<T>(a.re_ + b.re_, a.im_ + b.im_); }
template <class T>
KILN_UFN_HD complex<T> subtract(complex<T> a, complex<T> b) { return complex<T>(a.re_ - b.re_, a.im_ - b.im_); }
template <class T>
KILN_UFN_HD complex<T> multiply(complex<T> a, complex<T> b) {
  using namespace arith_detail;
  return complex<T>(fma_(a.re_, b.re_, -mul_rn(a.im_, b.im_)), fma_(a.re_, b.im_, mul_rn(a.im_, b.re_)));
}
template <class T>
KILN_UFN_HD complex<T> divide(complex<T> a, complex<T> b) {
  using namespace arith_detail;
  const T abs_br = fabs_(b.re_), abs_bi = fabs_(b.im_);
  if (abs_br >= abs_bi) {
    if (abs_br == T(0) && abs_bi == T(0)) return complex<T>(a.re_ / abs_br, a.im_ / abs_bi);
    const T rat = b.im_ / b.re_, scl = T(1) / add_rn(b.re_, mul_rn(b.im_, rat));
    return complex<T>(add_rn(a.re_, mul_rn(a.im_, rat)) * scl, sub_rn(a.im_, mul_rn(a.re_, rat)) * scl);
  }
  const T rat = b.re_ / b.im_, scl = T(1) / add_rn(b.im_, mul_rn(b.re_, rat));
  return complex<T>(add_rn(mul_rn(a.re_, rat), a.im_) * scl, sub_rn(mul_rn(a.im_, rat), a.re_) * scl);
}

// ---- floor_divide remainder fmod divmod (Notes [Integer division by zero], [Float floor division]) ----
KILN_UFN_INT KILN_UFN_HD T floor_divide(T a, T b) {
  if (b == T(0)) return T(0);
  if (arith_detail::int_info<T>::is_signed && b == static_cast<T>(-1)) return static_cast<T>(T(0) - arith_detail::wrap(a));
  T q = static_cast<T>(a / b);
  if (arith_detail::int_info<T>::is_signed && static_cast<T>(a % b) != T(0) && (arith_detail::is_neg(a) != arith_detail::is_neg(b))) --q;
  return q;
}
KILN_UFN_INT KILN_UFN_HD T remainder(T a, T b) {
  if (b == T(0) || (arith_detail::int_info<T>::is_signed && b == static_cast<T>(-1))) return T(0);
  T r = static_cast<T>(a % b);
  if (arith_detail::int_info<T>::is_signed && r != T(0) && (arith_detail::is_neg(r) != arith_detail::is_neg(b))) r = static_cast<T>(r + b);
  return r;
}
KILN_UFN_INT KILN_UFN_HD T fmod(T a, T b) {
  if (b == T(0) || (arith_detail::int_info<T>::is_signed && b == static_cast<T>(-1))) return T(0);
  return static_cast<T>(a % b);
}
KILN_UFN_INT KILN_UFN_HD void divmod(T a, T b, T& q, T& r) {
  q = floor_divide(a, b);
  r = remainder(a, b);
}
KILN_UFN_FLOAT KILN_UFN_HD T floor_divide(T a, T b) {
  T mod;
  return arith_detail::float_divmod(a, b, mod);
}
KILN_UFN_FLOAT KILN_UFN_HD T remainder(T a, T b) {
  T mod;
  if (b == T(0)) return arith_detail::fmod_(a, b);
  arith_detail::float_divmod(a, b, mod);
  return mod;
}
KILN_UFN_FLOAT KILN_UFN_HD T fmod(T a, T b) { return arith_detail::fmod_(a, b); }
KILN_UFN_FLOAT KILN_UFN_HD void divmod(T a, T b, T& q, T& r) { q = arith_detail::float_divmod(a, b, r); }
KILN_UFN_HALF_VIA_FLOAT2(floor_divide)
KILN_UFN_HALF_VIA_FLOAT2(remainder)
KILN_UFN_HALF_VIA_FLOAT2(fmod)
KILN_UFN_HD void divmod(half a, half b, half& q, half& r) {
  float fq, fr;
  divmod(static_cast<float>(a), static_cast<float>(b), fq, fr);
  q = half(fq);
  r = half(fr);
}

// ---- negative positive absolute fabs sign heaviside conjugate ----
KILN_UFN_INT KILN_UFN_HD T negative(T a) { return static_cast<T>(0u - arith_detail::wrap(a)); }
KILN_UFN_FLOAT KILN_UFN_HD T negative(T a) { return arith_detail::flip_sign(a); }
KILN_UFN_HD half negative(half a) { return -a; }
template <class T>
KILN_UFN_HD complex<T> negative(complex<T> a) {
  return complex<T>(arith_detail::flip_sign(a.re_), arith_detail::flip_sign(a.im_));
}

KILN_UFN_INT KILN_UFN_HD T positive(T a) { return a; }
KILN_UFN_FLOAT KILN_UFN_HD T positive(T a) { return a; }
KILN_UFN_HD half positive(half a) { return a; }
template <class T>
KILN_UFN_HD complex<T> positive(complex<T> a) { return a; }

KILN_UFN_INT KILN_UFN_HD T conjugate(T a) { return a; }
KILN_UFN_FLOAT KILN_UFN_HD T conjugate(T a) { return a; }
KILN_UFN_HD half conjugate(half a) { return a; }
template <class T>
KILN_UFN_HD complex<T> conjugate(complex<T> a) { return complex<T>(a.re_, arith_detail::flip_sign(a.im_)); }

KILN_UFN_INT KILN_UFN_HD T absolute(T a) { return arith_detail::is_neg(a) ? negative(a) : a; }  // INT_MIN stays INT_MIN
KILN_UFN_HD bool absolute(bool a) { return a; }
KILN_UFN_FLOAT KILN_UFN_HD T absolute(T a) { return arith_detail::fabs_(a); }
KILN_UFN_HD half absolute(half a) { return half::from_bits(static_cast<unsigned short>(a.bits() & 0x7fffu)); }
template <class T>
KILN_UFN_HD T absolute(complex<T> z) {  // Note [Complex products use FMA]
  using namespace arith_detail;
  const T re = fabs_(z.re_), im = fabs_(z.im_);
  if (is_inf(re) || is_inf(im)) return infinity<T>();
  if (is_nan(re) || is_nan(im)) return quiet_nan<T>();
  const T big = re < im ? im : re, small = re < im ? re : im;
  if (big == T(0)) return T(0);
  const T ratio = small / big;
  return big * sqrt_(fma_(ratio, ratio, T(1)));
}
KILN_UFN_FLOAT KILN_UFN_HD T fabs(T a) { return arith_detail::fabs_(a); }
KILN_UFN_HD half fabs(half a) { return absolute(a); }

KILN_UFN_INT KILN_UFN_HD T sign(T a) { return static_cast<T>((a > T(0)) - arith_detail::is_neg(a)); }
KILN_UFN_FLOAT KILN_UFN_HD T sign(T a) { return a > T(0) ? T(1) : (a < T(0) ? T(-1) : (a == T(0) ? T(0) : a)); }
KILN_UFN_HD half sign(half a) { return a > 0.0f ? half(1.0f) : (a < 0.0f ? half(-1.0f) : (a == 0.0f ? half(0.0f) : a)); }
template <class T>
KILN_UFN_HD complex<T> sign(complex<T> z) {  // Note [Complex products use FMA]
  using namespace arith_detail;
  const bool re_inf = is_inf(z.re_), im_inf = is_inf(z.im_);
  if (re_inf && im_inf) return complex<T>(quiet_nan<T>(), quiet_nan<T>());
  if (re_inf) return complex<T>(copysign_(T(1), z.re_), T(0));
  if (im_inf) return complex<T>(T(0), copysign_(T(1), z.im_));
  const T h = hypot_(z.re_, z.im_);
  if (is_nan(h)) return complex<T>(quiet_nan<T>(), quiet_nan<T>());
  if (is_inf(h)) return complex<T>(T(0), copysign_(T(1), z.im_));  // |z| overflows: NumPy's choice
  if (h == T(0)) return complex<T>(T(0), T(0));
  return complex<T>(z.re_ / h, z.im_ / h);
}

KILN_UFN_FLOAT KILN_UFN_HD T heaviside(T x, T h0) {
  if (arith_detail::is_nan(x)) return arith_detail::quiet_nan<T>();
  return x < T(0) ? T(0) : (x == T(0) ? h0 : T(1));
}
KILN_UFN_HALF_VIA_FLOAT2(heaviside)

// ---- square reciprocal ----
KILN_UFN_INT KILN_UFN_HD T square(T a) { return multiply(a, a); }
KILN_UFN_FLOAT KILN_UFN_HD T square(T a) { return a * a; }
KILN_UFN_HALF_VIA_FLOAT1(square)
template <class T>
KILN_UFN_HD complex<T> square(complex<T> z) {
  using namespace arith_detail;
  return complex<T>(fma_(z.re_, z.re_, -mul_rn(z.im_, z.im_)), add_rn(mul_rn(z.re_, z.im_), mul_rn(z.im_, z.re_)));
}

KILN_UFN_INT KILN_UFN_HD T reciprocal(T a) {  // Note [Integer division by zero]
  if (a == T(0)) return sizeof(T) >= 4 && arith_detail::int_info<T>::is_signed ? static_cast<T>(arith_detail::wrap(T(1)) << (8 * sizeof(T) - 1)) : T(0);
  if (a == T(1)) return T(1);
  return arith_detail::int_info<T>::is_signed && a == static_cast<T>(-1) ? a : T(0);
}
KILN_UFN_FLOAT KILN_UFN_HD T reciprocal(T a) { return T(1) / a; }
KILN_UFN_HALF_VIA_FLOAT1(reciprocal)
template <class T>
KILN_UFN_HD complex<T> reciprocal(complex<T> z) {  // NumPy's: Smith's algorithm for 1 / z
  using namespace arith_detail;
  if (fabs_(z.im_) <= fabs_(z.re_)) {
    const T r = z.im_ / z.re_, d = add_rn(z.re_, mul_rn(z.im_, r));
    return complex<T>(T(1) / d, -r / d);
  }
  const T r = z.re_ / z.im_, d = add_rn(mul_rn(z.re_, r), z.im_);
  return complex<T>(r / d, T(-1) / d);
}

// ---- gcd lcm power (Note [Integer power]) ----
KILN_UFN_INT KILN_UFN_HD T gcd(T a, T b) {
  typedef typename arith_detail::int_info<T>::unsigned_type U;
  U x = static_cast<U>(absolute(a)), y = static_cast<U>(absolute(b));  // |INT_MIN| as 2^(bits-1)
  while (y != 0) {
    const U t = static_cast<U>(x % y);
    x = y;
    y = t;
  }
  return static_cast<T>(x);
}
KILN_UFN_INT KILN_UFN_HD T lcm(T a, T b) {
  // NumPy's |a / gcd * b| with the product exact before it wraps: in unsigned.
  typedef typename arith_detail::int_info<T>::unsigned_type U;
  const U g = static_cast<U>(gcd(a, b));
  if (g == 0) return T(0);
  return static_cast<T>(arith_detail::wrap(static_cast<U>(static_cast<U>(absolute(a)) / g)) *
                        arith_detail::wrap(static_cast<U>(absolute(b))));
}
KILN_UFN_INT KILN_UFN_HD T power(T a, T b) {
  if (arith_detail::is_neg(b)) return a == T(1) ? T(1) : (a == static_cast<T>(-1) ? ((b & T(1)) ? a : T(1)) : T(0));
  typedef typename arith_detail::wrap_type<(sizeof(T) > 4)>::type W;
  W base = arith_detail::wrap(a), result = 1u;
  for (W e = arith_detail::wrap(b); e != 0u; e >>= 1) {
    if (e & 1u) result *= base;
    base *= base;
  }
  return static_cast<T>(result);
}

// ---- bitwise_and bitwise_or bitwise_xor invert left_shift right_shift (Note [Shifts past the width]) ----
KILN_UFN_INT KILN_UFN_HD T bitwise_and(T a, T b) { return static_cast<T>(a & b); }
KILN_UFN_INT KILN_UFN_HD T bitwise_or(T a, T b) { return static_cast<T>(a | b); }
KILN_UFN_INT KILN_UFN_HD T bitwise_xor(T a, T b) { return static_cast<T>(a ^ b); }
KILN_UFN_INT KILN_UFN_HD T invert(T a) { return static_cast<T>(~a); }
KILN_UFN_HD bool bitwise_and(bool a, bool b) { return a && b; }
KILN_UFN_HD bool bitwise_or(bool a, bool b) { return a || b; }
KILN_UFN_HD bool bitwise_xor(bool a, bool b) { return a != b; }
KILN_UFN_HD bool invert(bool a) { return !a; }
KILN_UFN_INT KILN_UFN_HD T left_shift(T a, T b) {
  typedef typename arith_detail::int_info<T>::unsigned_type U;
  return static_cast<U>(b) < static_cast<U>(8 * sizeof(T)) ? static_cast<T>(arith_detail::wrap(a) << b) : T(0);
}
KILN_UFN_INT KILN_UFN_HD T right_shift(T a, T b) {
  typedef typename arith_detail::int_info<T>::unsigned_type U;
  if (static_cast<U>(b) < static_cast<U>(8 * sizeof(T))) return static_cast<T>(a >> b);
  return arith_detail::is_neg(a) ? static_cast<T>(-1) : T(0);
}

// ---- comparisons ----
// Real types (bool, integers, half, bfloat16, float, double) compare as C++ does, half and bfloat16
// through float; int64 against uint64 by value; complex in NumPy's order.
#define KILN_UFN_REAL                                                                                     \
  template <class T, typename arith_detail::enable_if<arith_detail::int_info<T>::ok ||                    \
                                                          arith_detail::float_info<T>::ok ||              \
                                                          kiln::detail::is_same_type<T, bool>::value ||   \
                                                          kiln::detail::is_same_type<T, half>::value ||   \
                                                          kiln::detail::is_same_type<T, bfloat16>::value, \
                                                      int>::type = 0>
#define KILN_UFN_COMPARE(name, op, complex_expr)                                                          \
  KILN_UFN_REAL KILN_UFN_HD bool name(T a, T b) { return a op b; }                                        \
  KILN_UFN_HD bool name(long long a, unsigned long long b) { return arith_detail::compare_mixed(a, b) op 0; } \
  KILN_UFN_HD bool name(unsigned long long a, long long b) { return 0 op arith_detail::compare_mixed(b, a); } \
  template <class T>                                                                                      \
  KILN_UFN_HD bool name(complex<T> a, complex<T> b) { return complex_expr; }
KILN_UFN_COMPARE(greater, >, arith_detail::complex_gt(a, b))
KILN_UFN_COMPARE(greater_equal, >=, arith_detail::complex_ge(a, b))
KILN_UFN_COMPARE(less, <, arith_detail::complex_lt(a, b))
KILN_UFN_COMPARE(less_equal, <=, arith_detail::complex_le(a, b))
KILN_UFN_COMPARE(equal, ==, a.re_ == b.re_ && a.im_ == b.im_)
KILN_UFN_COMPARE(not_equal, !=, a.re_ != b.re_ || a.im_ != b.im_)
#undef KILN_UFN_COMPARE

// ---- logical_and logical_or logical_xor logical_not: nonzero is true (NaN too; complex: either part) ----
namespace arith_detail {
KILN_UFN_REAL KILN_HOST_DEVICE bool truth(T a) { return a != T(0); }
template <class T>
KILN_HOST_DEVICE bool truth(complex<T> z) { return z.re_ != T(0) || z.im_ != T(0); }
}  // namespace arith_detail
template <class T>
KILN_UFN_HD bool logical_and(T a, T b) { return arith_detail::truth(a) && arith_detail::truth(b); }
template <class T>
KILN_UFN_HD bool logical_or(T a, T b) { return arith_detail::truth(a) || arith_detail::truth(b); }
template <class T>
KILN_UFN_HD bool logical_xor(T a, T b) { return arith_detail::truth(a) != arith_detail::truth(b); }
template <class T>
KILN_UFN_HD bool logical_not(T a) { return !arith_detail::truth(a); }

// ---- maximum minimum fmax fmin (Note [NaN in maximum and fmax]) ----
KILN_UFN_INT KILN_UFN_HD T maximum(T a, T b) { return a < b ? b : a; }
KILN_UFN_INT KILN_UFN_HD T minimum(T a, T b) { return b < a ? b : a; }
KILN_UFN_INT KILN_UFN_HD T fmax(T a, T b) { return a < b ? b : a; }
KILN_UFN_INT KILN_UFN_HD T fmin(T a, T b) { return b < a ? b : a; }
KILN_UFN_HD bool maximum(bool a, bool b) { return a || b; }
KILN_UFN_HD bool minimum(bool a, bool b) { return a && b; }
KILN_UFN_HD bool fmax(bool a, bool b) { return a || b; }
KILN_UFN_HD bool fmin(bool a, bool b) { return a && b; }
KILN_UFN_FLOAT KILN_UFN_HD T maximum(T a, T b) { return (arith_detail::is_nan(a) || a > b) ? a : b; }
KILN_UFN_FLOAT KILN_UFN_HD T minimum(T a, T b) { return (arith_detail::is_nan(a) || a < b) ? a : b; }
KILN_UFN_FLOAT KILN_UFN_HD T fmax(T a, T b) { return (arith_detail::is_nan(b) || a > b) ? a : b; }
KILN_UFN_FLOAT KILN_UFN_HD T fmin(T a, T b) { return (arith_detail::is_nan(b) || a < b) ? a : b; }
KILN_UFN_HD half maximum(half a, half b) { return (arith_detail::is_nan(a) || a >= b) ? a : b; }
KILN_UFN_HD half minimum(half a, half b) { return (arith_detail::is_nan(a) || a <= b) ? a : b; }
KILN_UFN_HD half fmax(half a, half b) { return (arith_detail::is_nan(b) || a >= b) ? a : b; }
KILN_UFN_HD half fmin(half a, half b) { return (arith_detail::is_nan(b) || a <= b) ? a : b; }
template <class T>
KILN_UFN_HD complex<T> maximum(complex<T> a, complex<T> b) {
  return (arith_detail::complex_has_nan(a) || arith_detail::complex_ge(a, b)) ? a : b;
}
template <class T>
KILN_UFN_HD complex<T> minimum(complex<T> a, complex<T> b) {
  return (arith_detail::complex_has_nan(a) || arith_detail::complex_le(a, b)) ? a : b;
}
template <class T>
KILN_UFN_HD complex<T> fmax(complex<T> a, complex<T> b) {
  return (arith_detail::complex_has_nan(b) || arith_detail::complex_ge(a, b)) ? a : b;
}
template <class T>
KILN_UFN_HD complex<T> fmin(complex<T> a, complex<T> b) {
  return (arith_detail::complex_has_nan(b) || arith_detail::complex_le(a, b)) ? a : b;
}

// ---- isfinite isinf isnan signbit copysign ----
KILN_UFN_INT KILN_UFN_HD bool isfinite(T) { return true; }
KILN_UFN_INT KILN_UFN_HD bool isinf(T) { return false; }
KILN_UFN_INT KILN_UFN_HD bool isnan(T) { return false; }
KILN_UFN_HD bool isfinite(bool) { return true; }
KILN_UFN_HD bool isinf(bool) { return false; }
KILN_UFN_HD bool isnan(bool) { return false; }
#define KILN_UFN_CLASSIFY(F)                                                                         \
  KILN_UFN_HD bool isfinite(F a) { return !arith_detail::is_nan(a) && !arith_detail::is_inf(a); }   \
  KILN_UFN_HD bool isinf(F a) { return arith_detail::is_inf(a); }                                    \
  KILN_UFN_HD bool isnan(F a) { return arith_detail::is_nan(a); }                                    \
  KILN_UFN_HD bool signbit(F a) { return arith_detail::sign_bit(a); }
KILN_UFN_CLASSIFY(half)
KILN_UFN_CLASSIFY(float)
KILN_UFN_CLASSIFY(double)
#undef KILN_UFN_CLASSIFY
template <class T>
KILN_UFN_HD bool isfinite(complex<T> z) { return isfinite(z.re_) && isfinite(z.im_); }
template <class T>
KILN_UFN_HD bool isinf(complex<T> z) { return arith_detail::is_inf(z.re_) || arith_detail::is_inf(z.im_); }
template <class T>
KILN_UFN_HD bool isnan(complex<T> z) { return arith_detail::complex_has_nan(z); }

KILN_UFN_FLOAT KILN_UFN_HD T copysign(T a, T b) { return arith_detail::copysign_(a, b); }
KILN_UFN_HD half copysign(half a, half b) {
  return half::from_bits(static_cast<unsigned short>((a.bits() & 0x7fffu) | (b.bits() & 0x8000u)));
}

// ---- floor ceil trunc rint: integers and bool unchanged ----
KILN_UFN_INT KILN_UFN_HD T floor(T a) { return a; }
KILN_UFN_INT KILN_UFN_HD T ceil(T a) { return a; }
KILN_UFN_INT KILN_UFN_HD T trunc(T a) { return a; }
KILN_UFN_HD bool floor(bool a) { return a; }
KILN_UFN_HD bool ceil(bool a) { return a; }
KILN_UFN_HD bool trunc(bool a) { return a; }
KILN_UFN_FLOAT KILN_UFN_HD T floor(T a) { return arith_detail::floor_(a); }
KILN_UFN_FLOAT KILN_UFN_HD T ceil(T a) { return arith_detail::ceil_(a); }
KILN_UFN_FLOAT KILN_UFN_HD T trunc(T a) { return arith_detail::trunc_(a); }
KILN_UFN_FLOAT KILN_UFN_HD T rint(T a) { return arith_detail::rint_(a); }  // ties to even
KILN_UFN_HALF_VIA_FLOAT1(floor)
KILN_UFN_HALF_VIA_FLOAT1(ceil)
KILN_UFN_HALF_VIA_FLOAT1(trunc)
KILN_UFN_HALF_VIA_FLOAT1(rint)
template <class T>
KILN_UFN_HD complex<T> rint(complex<T> z) { return complex<T>(arith_detail::rint_(z.re_), arith_detail::rint_(z.im_)); }

// ---- deg2rad rad2deg radians degrees: one multiplication by NumPy's constant ----
KILN_UFN_HD float deg2rad(float a) { return a * 0.0174532924f; }  // (float)(pi / 180)
KILN_UFN_HD double deg2rad(double a) { return a * 0.017453292519943295; }
KILN_UFN_HD float rad2deg(float a) { return a * 57.2957763671875f; }  // 180.0f / (float)pi
KILN_UFN_HD double rad2deg(double a) { return a * 57.29577951308232; }
KILN_UFN_HALF_VIA_FLOAT1(deg2rad)
KILN_UFN_HALF_VIA_FLOAT1(rad2deg)
KILN_UFN_HD half radians(half a) { return deg2rad(a); }
KILN_UFN_HD float radians(float a) { return deg2rad(a); }
KILN_UFN_HD double radians(double a) { return deg2rad(a); }
KILN_UFN_HD half degrees(half a) { return rad2deg(a); }
KILN_UFN_HD float degrees(float a) { return rad2deg(a); }
KILN_UFN_HD double degrees(double a) { return rad2deg(a); }

#undef KILN_UFN_INT
#undef KILN_UFN_FLOAT
#undef KILN_UFN_REAL
#undef KILN_UFN_HD
#undef KILN_UFN_HALF_VIA_FLOAT1
#undef KILN_UFN_HALF_VIA_FLOAT2

}  // namespace ufn
}  // namespace kiln
