// kiln::ufn::<ufunc>: the scalar functions behind NumPy's transcendental and
// floating-point-manipulation ufuncs (exp ... arctanh, power, float_power,
// logaddexp, nextafter, spacing, modf, ldexp, frexp) and numpy.i0 / sinc, one
// overload per NumPy type loop over kiln's dtypes: kiln::half, float, double,
// kiln::complex<float>, kiln::complex<double>. Generated ufunc kernels call
// them; compiles under NVRTC/hiprtc (no SDK headers) and the host prelude.
//
//   double y = kiln::ufn::exp(1.0);                          // out0 = f(in0)
//   kiln::half h = kiln::ufn::logaddexp(kiln::half(1.0f), kiln::half(2.0f));
//   kiln::complex<float> w = kiln::ufn::arcsin(kiln::complex<float>(2.0f, 0.0f));
//   kiln::half m; int e; kiln::ufn::frexp(kiln::half(48.0f), m, e);   // 0.75, 6
//
// Note [Transcendental accuracy]
// Real float/double loops call CUDA's math library by its C names (expf,
// log1p, ...), which the host prelude maps to the C library. Versus NumPy
// 2.4 on x86-64 the error is CUDA's documented maximum plus NumPy's own:
// NumPy uses the C library (< 1 ulp) except its SIMD float32 exp/log (up to
// ~4 ulp) and sin/cos (~1.5 ulp). CUDA's maxima, in ulp (float / double):
// exp 2/1, exp2 2/1, expm1 1/1, log 1/1, log2 1/1, log10 2/1, log1p 1/1,
// sqrt 0/0, cbrt 1/1, sin cos 2/2, tan 4/2, arcsin arccos arctan 2/2,
// arctan2 3/2, sinh 3/2, cosh 2/1, tanh 2/1, arcsinh 3/3, arccosh 4/3,
// arctanh 3/2, power 4/2. hypot is not CUDA's: float as glibc's hypotf,
// double correctly rounded (Note [Double hypot on the device] in
// ufunc_arith.h). logaddexp(x, y) = max + t, t = log1p(exp(-|x - y|)) (and
// logaddexp2 alike) add ~2 ulp of rounding to the errors of exp and log1p,
// in ulps of max(|max|, |t|, |result|), not of the result: where the result
// is near 0 the sum cancels, exactly, leaving t's rounding error, which
// NumPy's result has as well. nextafter, spacing, modf, ldexp, frexp are
// exact. float16 loops compute in float and round once, as NumPy does:
// within 1 ulp of float16 of NumPy (equal unless the float results straddle
// a rounding boundary).
// Complex results are bounded normwise, |got - exact| <= k max(eps |exact|,
// smallest subnormal) per part, |exact| = max(|re|, |im|):
// exp exp2 log log2 log10 sqrt sinh cosh sin cos: k = 4 (plus the real
// functions' CUDA ulps); tanh tan expm1 log1p: 8; arcsin arccos arctan
// arcsinh arccosh arctanh: 8; power by exp(b log a): 8 (1 + |b log a|).
// Special values (infinities, NaNs, signed zeros, branch cuts) are C99
// Annex G's, with glibc's choices where Annex G leaves a sign unspecified,
// which are NumPy's on Linux.
//
// Note [Complex log1p is accurate]
// NumPy computes complex log1p(z) as log(1 + z), which loses the low bits
// of z when |z| is small (log1p(1e-10+1e-10j) is off in the 8th digit,
// log1p(1e-300) is 0). kiln computes Re log1p(z) = log1p(2x + x^2 + y^2) / 2
// for |x|, |y| < 1/2, so it agrees with NumPy only where NumPy is accurate.
#pragma once

#include "kiln/cast.h"
#include "kiln/ufunc_arith.h"

namespace kiln {
namespace ufn {
namespace detail {

// Note [Global math names]
// kiln::ufn defines exp, sqrt, copysign, isnan, ... itself (this header and
// ufunc_arith.h), which hide the C names inside the namespace: every call
// to the math library below is qualified with `::`.
//
// Note [Device NaN signs]
// PTX leaves the NaN that neg, abs and arithmetic on a NaN return
// unspecified (the GPU gives its canonical NaN), where x86 keeps the
// operand's sign and payload. Where a result's signed zero is copied from
// a NaN's sign (Annex G special values), negation, fabs and copysign are
// bit operations (ufunc_arith.h's) and scaled() passes NaN parts through,
// so the zero's sign is the input's on every backend, as on x86.
using arith_detail::flip_sign;

using kiln::detail::bits_double;

// Note [Float functions rounded from double on the device]
// CUDA's expf, exp2f, log1pf and atan2f are off by up to 2-3 ulp (and expf
// by more for subnormal results), glibc's (NumPy's) are within about half
// an ulp. Where kiln's results depend on those roundings (logaddexp's
// cancellation near 0 keeps log1p's rounding error whole; float32 arctan2
// and angle; complex exp's subnormal parts), the device evaluates them in
// double and rounds once, which gives
// the correctly rounded float (glibc's, except in rare double-rounding or
// glibc 1-ulp cases); the host calls glibc.
#if defined(__CUDA_ARCH__)
#define KILN_FLOAT_VIA_DOUBLE1(f32, f64) \
  static_cast<float>(::f64(static_cast<double>(x)))
#define KILN_FLOAT_VIA_DOUBLE2(f32, f64) \
  static_cast<float>(::f64(static_cast<double>(x), static_cast<double>(y)))
#else
#define KILN_FLOAT_VIA_DOUBLE1(f32, f64) ::f32(x)
#define KILN_FLOAT_VIA_DOUBLE2(f32, f64) ::f32(x, y)
#endif
KILN_HOST_DEVICE float exp_rounded(float x) { return KILN_FLOAT_VIA_DOUBLE1(expf, exp); }
KILN_HOST_DEVICE float exp2_rounded(float x) { return KILN_FLOAT_VIA_DOUBLE1(exp2f, exp2); }
KILN_HOST_DEVICE float log1p_rounded(float x) { return KILN_FLOAT_VIA_DOUBLE1(log1pf, log1p); }
// atan2_rounded(y, x) is atan2(y, x).
KILN_HOST_DEVICE float atan2_rounded(float x, float y) { return KILN_FLOAT_VIA_DOUBLE2(atan2f, atan2); }
#undef KILN_FLOAT_VIA_DOUBLE1
#undef KILN_FLOAT_VIA_DOUBLE2

// The real math of one precision, so complex code is written once.
template <class T> struct fp;
template <> struct fp<float> {
  static KILN_HOST_DEVICE float inf() { return kiln::detail::bits_float(0x7f800000u); }
  static KILN_HOST_DEVICE float nan() { return kiln::detail::bits_float(0x7fc00000u); }
  static KILN_HOST_DEVICE float max() { return 3.40282347e+38f; }
  static KILN_HOST_DEVICE float pi() { return 3.14159265358979323846f; }
  static KILN_HOST_DEVICE float pi_2() { return 1.57079632679489661923f; }
  static KILN_HOST_DEVICE float ln2() { return 0.693147180559945309417f; }
  static KILN_HOST_DEVICE float log2e() { return 1.44269504088896340736f; }
  static KILN_HOST_DEVICE float log10e() { return 0.434294481903251827651f; }
  static KILN_HOST_DEVICE float exp_max() { return 88.0f; }        // exp(x) finite below
  static KILN_HOST_DEVICE float tanh_one() { return 9.0f; }        // tanh(x) rounds to 1 above
  static KILN_HOST_DEVICE float huge() { return 1.0e18f; }          // 1/|z|^2 below eps^2 above
  static KILN_HOST_DEVICE float small() { return 1.0e-4f; }         // |z|^2 below eps/10
  static KILN_HOST_DEVICE float square_max() { return 1.0e18f; }    // x*x finite below
  static KILN_HOST_DEVICE float square_min() { return 8.67e-19f; }  // x*x normal above (2^-60)
  static KILN_HOST_DEVICE float subnormal_zone() { return 4.7e-38f; }  // 4 * smallest normal
  static KILN_HOST_DEVICE float scale_up() { return 18446744073709551616.0f; }  // 2^64
  static KILN_HOST_DEVICE float scale_down() { return 2.3283064365386963e-10f; }  // 2^-32
  static KILN_HOST_DEVICE float exp(float x) { return exp_rounded(x); }
  static KILN_HOST_DEVICE float expm1(float x) { return ::expm1f(x); }
  static KILN_HOST_DEVICE float log(float x) { return ::logf(x); }
  static KILN_HOST_DEVICE float log1p(float x) { return log1p_rounded(x); }
  static KILN_HOST_DEVICE float sqrt(float x) { return ::sqrtf(x); }
  static KILN_HOST_DEVICE float hypot(float x, float y) { return arith_detail::hypot_(x, y); }
  static KILN_HOST_DEVICE float atan2(float y, float x) { return atan2_rounded(y, x); }
  static KILN_HOST_DEVICE float sin(float x) { return ::sinf(x); }
  static KILN_HOST_DEVICE float cos(float x) { return ::cosf(x); }
  static KILN_HOST_DEVICE float tan(float x) { return ::tanf(x); }
  static KILN_HOST_DEVICE float sinh(float x) { return ::sinhf(x); }
  static KILN_HOST_DEVICE float cosh(float x) { return ::coshf(x); }
  static KILN_HOST_DEVICE float asinh(float x) { return ::asinhf(x); }
  static KILN_HOST_DEVICE float fabs(float x) { return arith_detail::fabs_(x); }
  static KILN_HOST_DEVICE float copysign(float x, float s) { return arith_detail::copysign_(x, s); }
  static KILN_HOST_DEVICE float fma(float a, float b, float c) { return ::fmaf(a, b, c); }
};
template <> struct fp<double> {
  static KILN_HOST_DEVICE double inf() { return bits_double(0x7ff0000000000000ull); }
  static KILN_HOST_DEVICE double nan() { return bits_double(0x7ff8000000000000ull); }
  static KILN_HOST_DEVICE double max() { return 1.7976931348623157e+308; }
  static KILN_HOST_DEVICE double pi() { return 3.14159265358979323846; }
  static KILN_HOST_DEVICE double pi_2() { return 1.57079632679489661923; }
  static KILN_HOST_DEVICE double ln2() { return 0.693147180559945309417; }
  static KILN_HOST_DEVICE double log2e() { return 1.44269504088896340736; }
  static KILN_HOST_DEVICE double log10e() { return 0.434294481903251827651; }
  static KILN_HOST_DEVICE double exp_max() { return 709.0; }
  static KILN_HOST_DEVICE double tanh_one() { return 22.0; }
  static KILN_HOST_DEVICE double huge() { return 1.0e150; }
  static KILN_HOST_DEVICE double small() { return 1.0e-9; }
  static KILN_HOST_DEVICE double square_max() { return 1.0e150; }
  static KILN_HOST_DEVICE double square_min() { return 3.0549363634996047e-151; }  // 2^-500
  static KILN_HOST_DEVICE double subnormal_zone() { return 8.9e-308; }
  static KILN_HOST_DEVICE double scale_up() { return 1.329227995784916e+36; }        // 2^120
  static KILN_HOST_DEVICE double scale_down() { return 8.673617379884035e-19; }      // 2^-60
  static KILN_HOST_DEVICE double exp(double x) { return ::exp(x); }
  static KILN_HOST_DEVICE double expm1(double x) { return ::expm1(x); }
  static KILN_HOST_DEVICE double log(double x) { return ::log(x); }
  static KILN_HOST_DEVICE double log1p(double x) { return ::log1p(x); }
  static KILN_HOST_DEVICE double sqrt(double x) { return ::sqrt(x); }
  static KILN_HOST_DEVICE double hypot(double x, double y) { return arith_detail::hypot_(x, y); }
  static KILN_HOST_DEVICE double atan2(double y, double x) { return ::atan2(y, x); }
  static KILN_HOST_DEVICE double sin(double x) { return ::sin(x); }
  static KILN_HOST_DEVICE double cos(double x) { return ::cos(x); }
  static KILN_HOST_DEVICE double tan(double x) { return ::tan(x); }
  static KILN_HOST_DEVICE double sinh(double x) { return ::sinh(x); }
  static KILN_HOST_DEVICE double cosh(double x) { return ::cosh(x); }
  static KILN_HOST_DEVICE double asinh(double x) { return ::asinh(x); }
  static KILN_HOST_DEVICE double fabs(double x) { return arith_detail::fabs_(x); }
  static KILN_HOST_DEVICE double copysign(double x, double s) { return arith_detail::copysign_(x, s); }
  static KILN_HOST_DEVICE double fma(double a, double b, double c) { return ::fma(a, b, c); }
};

template <class T> KILN_HOST_DEVICE bool is_nan(T x) { return x != x; }
KILN_HOST_DEVICE bool is_signaling(float x) { return arith_detail::is_nan(x) && !(kiln::detail::float_bits(x) & 0x00400000u); }
KILN_HOST_DEVICE bool is_signaling(double x) {
  return arith_detail::is_nan(x) && !(kiln::detail::double_bits(x) & 0x0008000000000000ull);
}
KILN_HOST_DEVICE bool is_signaling(half x) { return arith_detail::is_nan(x) && !(x.bits() & 0x0200u); }
template <class T> KILN_HOST_DEVICE bool is_inf(T x) { return fp<T>::fabs(x) == fp<T>::inf(); }
template <class T> KILN_HOST_DEVICE bool is_finite(T x) { return fp<T>::fabs(x) < fp<T>::inf(); }

// ---- logaddexp ----
template <class T> KILN_HOST_DEVICE T logaddexp(T x, T y) {
  if (x == y) return x + fp<T>::ln2();  // also inf + inf, where x - y would be NaN
  const T d = x - y;
  if (d > T(0)) return x + fp<T>::log1p(fp<T>::exp(-d));
  if (d <= T(0)) return y + fp<T>::log1p(fp<T>::exp(d));
  return d;  // NaN
}
template <class T> KILN_HOST_DEVICE T exp2_of(T x);
template <> KILN_HOST_DEVICE float exp2_of(float x) { return exp2_rounded(x); }
template <> KILN_HOST_DEVICE double exp2_of(double x) { return ::exp2(x); }
template <class T> KILN_HOST_DEVICE T logaddexp2(T x, T y) {
  if (x == y) return x + T(1);
  const T d = x - y;
  if (d > T(0)) return x + fp<T>::log2e() * fp<T>::log1p(exp2_of(-d));
  if (d <= T(0)) return y + fp<T>::log2e() * fp<T>::log1p(exp2_of(d));
  return d;
}

// ---- float16 bit stepping (nextafter, spacing) ----
// The next binary16 after finite or infinite `a` in the direction of sign
// `up` (false: toward -inf).
KILN_HOST_DEVICE unsigned short half_step(unsigned short a, bool up) {
  if ((a & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u;  // +-0 -> +-smallest subnormal
  const bool negative = (a & 0x8000u) != 0;
  return static_cast<unsigned short>(negative == up ? a - 1u : a + 1u);  // toward zero : away
}

// ---- complex ----
// m e^a k for a > exp_max, where e^a overflows but the product may not:
// e^(a/2) or e^(a/4) (exact halvings) multiplied in one at a time.
template <class T> KILN_HOST_DEVICE T exp_product(T a, T m, T k) {
  typedef fp<T> F;
  if (a <= T(2) * F::exp_max()) {
    const T h = F::exp(T(0.5) * a);
    return ((m * h) * k) * h;
  }
  const T q = F::exp(T(0.25) * a);
  return ((((m * q) * k) * q) * q) * q;
}

template <class T> KILN_HOST_DEVICE complex<T> cexp(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (y == T(0)) return complex<T>(F::exp(x), y);
  if (is_inf(x) && !is_finite(y)) {  // exp(+inf + i inf or nan) = inf + i nan; exp(-inf + ...) = 0 +- i0
    return x > T(0) ? complex<T>(x, y - y) : complex<T>(T(0), F::copysign(T(0), y));
  }
  if (!is_finite(y)) return complex<T>(y - y, y - y);
  const T c = F::cos(y), s = F::sin(y);
  if (x > F::exp_max()) return complex<T>(exp_product(x, c, T(1)), exp_product(x, s, T(1)));
  const T e = F::exp(x);
  return complex<T>(e * c, e * s);
}

// log|z| without overflow, underflow or cancellation near |z| = 1.
template <class T> KILN_HOST_DEVICE T log_abs(T x, T y) {
  typedef fp<T> F;
  T hi = F::fabs(x), lo = F::fabs(y);
  if (hi < lo) {
    const T t = hi;
    hi = lo;
    lo = t;
  }
  if (hi >= T(0.5) && hi <= T(2)) return T(0.5) * F::log1p(F::fma(lo, lo, (hi - T(1)) * (hi + T(1))));
  if (hi > F::max() * T(0.25)) return F::log(F::hypot(hi * T(0.25), lo * T(0.25))) + T(2) * F::ln2();
  if (hi < F::subnormal_zone()) {
    const T s = F::scale_up();  // a power of two: exact
    return F::log(F::hypot(hi * s, lo * s)) - F::log(s);
  }
  return F::log(F::hypot(hi, lo));  // inf and NaN follow hypot: hypot(inf, nan) = inf
}
template <class T> KILN_HOST_DEVICE complex<T> clog(complex<T> z) {
  return complex<T>(log_abs(z.real(), z.imag()), fp<T>::atan2(z.imag(), z.real()));
}

template <class T> KILN_HOST_DEVICE complex<T> csqrt(complex<T> z) {
  typedef fp<T> F;
  T x = z.real(), y = z.imag();
  if (x == T(0) && y == T(0)) return complex<T>(T(0), y);
  if (is_inf(y)) return complex<T>(F::inf(), y);
  if (is_nan(x)) return complex<T>(x, x);
  if (is_inf(x)) {
    // sqrt(-inf + i NaN) = NaN +- i inf, the sign of the NaN's (glibc's, NumPy's choice).
    if (is_nan(y)) return x > T(0) ? complex<T>(x, y) : complex<T>(y, F::copysign(F::inf(), y));
    return x > T(0) ? complex<T>(x, F::copysign(T(0), y)) : complex<T>(T(0), F::copysign(F::inf(), y));
  }
  if (is_nan(y)) return complex<T>(y, y);
  // Note [Complex sqrt scaling]: t = sqrt((|x| + |z|) / 2) would overflow
  // for |z| near the maximum and lose bits for subnormal z; powers of four
  // in, powers of two out, keep both exact.
  T unscale = T(1);
  const T m = F::fabs(x) > F::fabs(y) ? F::fabs(x) : F::fabs(y);
  if (m > F::max() * T(0.25)) {
    x *= T(0.25);
    y *= T(0.25);
    unscale = T(2);
  } else if (m < F::subnormal_zone()) {
    x *= F::scale_up();
    y *= F::scale_up();
    unscale = F::scale_down();
  }
  const T t = F::sqrt(T(0.5) * (F::fabs(x) + F::hypot(x, y)));
  if (x >= T(0)) return complex<T>(t * unscale, (y / (T(2) * t)) * unscale);
  return complex<T>((F::fabs(y) / (T(2) * t)) * unscale, F::copysign(t, y) * unscale);
}

// sinh and cosh of x + iy.
template <class T> KILN_HOST_DEVICE complex<T> csinh(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (y == T(0)) return complex<T>(F::sinh(x), y);
  if (!is_finite(y)) {
    if (x == T(0)) return complex<T>(x, y - y);
    if (is_inf(x)) return complex<T>(F::inf(), y - y);
    return complex<T>(y - y, y - y);
  }
  const T c = F::cos(y), s = F::sin(y);
  if (F::fabs(x) > F::exp_max())  // sinh x = cosh x = e^|x| / 2 there
    return complex<T>(exp_product(F::fabs(x), c, F::copysign(T(0.5), x)), exp_product(F::fabs(x), s, T(0.5)));
  return complex<T>(F::sinh(x) * c, F::cosh(x) * s);
}
template <class T> KILN_HOST_DEVICE complex<T> ccosh(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (y == T(0)) return complex<T>(F::cosh(x), is_nan(x) ? y : F::copysign(T(1), x) * y);
  if (!is_finite(y)) {
    if (x == T(0)) return complex<T>(y - y, T(0));
    if (is_inf(x)) return complex<T>(F::inf(), y - y);
    return complex<T>(y - y, y - y);
  }
  const T c = F::cos(y), s = F::sin(y);
  if (F::fabs(x) > F::exp_max())
    return complex<T>(exp_product(F::fabs(x), c, T(0.5)), exp_product(F::fabs(x), s, F::copysign(T(0.5), x)));
  return complex<T>(F::cosh(x) * c, F::sinh(x) * s);
}
// Note [Complex tanh]: Kahan's formula, with t = tan y, s = sinh x,
// b = 1 + t^2: tanh z = (b s sqrt(1 + s^2) + i t) / (1 + b s^2). Where
// tanh x rounds to +-1 the imaginary part is 4 sin y cos y e^(-2|x|).
template <class T> KILN_HOST_DEVICE complex<T> ctanh(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (is_inf(x)) {
    const T sign = is_finite(y) ? F::sin(y) * F::cos(y) : y;
    return complex<T>(F::copysign(T(1), x), F::copysign(T(0), sign));
  }
  if (is_nan(x)) return complex<T>(x, y == T(0) ? y : x);
  if (!is_finite(y)) return complex<T>(x == T(0) ? x : y - y, y - y);
  if (F::fabs(x) > F::tanh_one()) {
    const T e = F::exp(T(-2) * F::fabs(x));
    return complex<T>(F::copysign(T(1), x), T(4) * F::sin(y) * F::cos(y) * e);
  }
  const T t = F::tan(y), b = T(1) + t * t, s = F::sinh(x), r = F::sqrt(T(1) + s * s);
  const T d = T(1) + b * s * s;
  return complex<T>(b * r * s / d, t / d);
}
// k z, part by part (a complex product would make inf * 0 = NaN of the zero
// part); NaN parts unchanged (Note [Device NaN signs]).
template <class T> KILN_HOST_DEVICE T times_k(T x, T k) { return is_nan(x) ? x : x * k; }
template <class T> KILN_HOST_DEVICE complex<T> scaled(complex<T> z, T k) {
  return complex<T>(times_k(z.real(), k), times_k(z.imag(), k));
}
// sin z = -i sinh(iz), except that glibc (NumPy's) gives NaN + i inf for
// every sin(non-finite +- i inf), where the identity leaves the sign open.
template <class T> KILN_HOST_DEVICE complex<T> times_i(complex<T> z);
template <class T> KILN_HOST_DEVICE complex<T> times_minus_i(complex<T> z);
template <class T> KILN_HOST_DEVICE complex<T> csin(complex<T> z) {
  if (!is_finite(z.real()) && is_inf(z.imag())) return complex<T>(fp<T>::nan(), fp<T>::inf());
  return times_minus_i(csinh(times_i(z)));
}
// i z and -i z.
template <class T> KILN_HOST_DEVICE complex<T> times_i(complex<T> z) { return complex<T>(flip_sign(z.imag()), z.real()); }
template <class T> KILN_HOST_DEVICE complex<T> times_minus_i(complex<T> z) {
  return complex<T>(z.imag(), flip_sign(z.real()));
}

// Note [Complex inverse trig]
// Moderate z: Kahan's formulas ("Branch cuts for complex elementary
// functions"), in which the signed zeros of 1 - z and 1 + z put the branch
// cuts' limits on the right side:
//   asin z = atan2(x, Re(s1 s2)) + i asinh(Im(conj(s1) s2)),
//   acos z = 2 atan2(Re s1, Re s2) + i asinh(Im(conj(s2) s1)),
// s1 = sqrt(1 - z), s2 = sqrt(1 + z). Beyond `huge`, where the products
// would overflow, and at infinities: asin and acos from log(2z), exact
// there to eps^2. asinh, acosh and atan come from these by the Annex G
// identities; atanh has its own formula.
template <class T> KILN_HOST_DEVICE bool is_huge(T x, T y) {  // or inf, or NaN with either (NaN results there)
  return !(fp<T>::fabs(x) <= fp<T>::huge() && fp<T>::fabs(y) <= fp<T>::huge());
}
template <class T> KILN_HOST_DEVICE bool is_small(T x, T y) {  // asin z = z (1 + z^2/6 + ...) = z to rounding
  return fp<T>::fabs(x) < fp<T>::small() && fp<T>::fabs(y) < fp<T>::small();
}
template <class T> KILN_HOST_DEVICE complex<T> casin(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if ((x == T(0) && is_nan(y)) || is_small(x, y)) return z;
  if (is_huge(x, y))
    return complex<T>(F::atan2(x, F::fabs(y)), F::copysign(log_abs(x, y) + F::ln2(), y));
  const complex<T> s1 = csqrt(complex<T>(T(1) - x, -y)), s2 = csqrt(complex<T>(T(1) + x, y));
  return complex<T>(F::atan2(x, s1.real() * s2.real() - s1.imag() * s2.imag()),
                    F::asinh(s1.real() * s2.imag() - s1.imag() * s2.real()));
}
template <class T> KILN_HOST_DEVICE complex<T> cacos(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (x == T(0) && is_nan(y)) return complex<T>(F::pi_2(), y);
  if (is_small(x, y)) return complex<T>(F::pi_2() - x, -y);
  if (is_huge(x, y))
    return complex<T>(F::fabs(F::atan2(y, x)), -F::copysign(log_abs(x, y) + F::ln2(), y));
  const complex<T> s1 = csqrt(complex<T>(T(1) - x, -y)), s2 = csqrt(complex<T>(T(1) + x, y));
  return complex<T>(T(2) * F::atan2(s1.real(), s2.real()),
                    F::asinh(s2.real() * s1.imag() - s2.imag() * s1.real()));
}
template <class T> KILN_HOST_DEVICE complex<T> cacosh(complex<T> z) {
  const T x = z.real(), y = z.imag();
  if (is_nan(y) && is_finite(x)) return complex<T>(y, x == T(0) ? fp<T>::pi_2() : y);
  const complex<T> a = cacos(z);  // acosh z = +-i acos z: real part >= 0, imaginary with y's sign
  return complex<T>(fp<T>::fabs(a.imag()), fp<T>::copysign(a.real(), y));
}
// Note [Complex atanh]: for x >= 0 (odd symmetry gives the rest),
//   Re = log1p(4x / ((1 - x)^2 + y^2)) / 4,  Im = atan2(2y, (1 - x)(1 + x) - y^2) / 2;
// past `square_max` Re is Re(1/z) and Im is +-pi/2; at x = 1 with y^2
// below the normal range Re is (ln 2 - log|y|) / 2.
template <class T> KILN_HOST_DEVICE complex<T> catanh(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (is_inf(x) || is_inf(y)) return complex<T>(F::copysign(T(0), x), is_nan(y) ? y : F::copysign(F::pi_2(), y));
  if (is_nan(x) || is_nan(y)) return x == T(0) ? z : complex<T>(x + y, x + y);
  if (is_small(x, y)) return z;  // atanh z = z (1 + z^2/3 + ...)
  const T ax = F::fabs(x), ay = F::fabs(y);
  if (ax > F::square_max() || ay > F::square_max()) {
    T re;
    if (ax >= ay) {
      const T r = y / ax;
      re = T(1) / (ax + y * r);
    } else {
      const T r = ax / y;
      re = r / (y + ax * r);
    }
    return complex<T>(F::copysign(re, x), F::copysign(F::pi_2(), y));
  }
  const T one_minus = T(1) - ax;
  const T re = (one_minus == T(0) && ay < F::square_min())
                   ? T(0.5) * (F::ln2() - F::log(ay))
                   : T(0.25) * F::log1p(T(4) * ax / (one_minus * one_minus + y * y));
  return complex<T>(F::copysign(re, x), T(0.5) * F::atan2(T(2) * y, one_minus * (T(1) + ax) - y * y));
}

// Note [Complex expm1 special values]
// expm1(z) at infinities, NaNs and zero is the array API standard's (those
// of cexp(z) - 1, C99 Annex G's cexp less one), where NumPy's expm1(x)cos(y)
// form gives NaN parts the value does not have: expm1(inf + 0j) = inf + 0j
// (NumPy: inf + nan j), expm1(-inf + yj) = -1 +- 0j for every y (NumPy: NaN
// parts for infinite or NaN y), expm1(nan + 0j) = nan + 0j, and
// expm1(-0 + 0j) = +0 + 0j. Finite nonzero inputs are NumPy's formula.
template <class T> KILN_HOST_DEVICE complex<T> cexpm1(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (!is_finite(x) || !is_finite(y)) {
    if (is_nan(x)) return complex<T>(x, y == T(0) ? y : F::nan());
    if (is_inf(x) && x < T(0)) return complex<T>(T(-1), F::copysign(T(0), is_finite(y) ? F::sin(y) : y));
    if (is_inf(x)) {
      if (y == T(0)) return complex<T>(x, y);
      if (is_finite(y)) return complex<T>(x * F::cos(y), x * F::sin(y));
      return complex<T>(x, F::nan());
    }
    return complex<T>(F::nan(), F::nan());   // finite x, y infinite or NaN
  }
  if (x == T(0) && y == T(0)) return complex<T>(T(0), y);
  const T h = F::sin(T(0.5) * y);
  return complex<T>(F::expm1(x) * F::cos(y) - T(2) * h * h, F::exp(x) * F::sin(y));
}
template <class T> KILN_HOST_DEVICE complex<T> clog1p(complex<T> z) {
  typedef fp<T> F;
  const T x = z.real(), y = z.imag();
  if (F::fabs(x) < T(0.5) && F::fabs(y) < T(0.5))  // See Note [Complex log1p is accurate]
    return complex<T>(T(0.5) * F::log1p(F::fma(y, y, x * (T(2) + x))), F::atan2(y, T(1) + x));
  return clog(complex<T>(T(1) + x, y));
}

// a b, with C99 Annex G's recovery of infinities from a NaN + i NaN
// product (glibc's cpow multiplies so, and NumPy's power calls it):
// an infinite operand part becomes +-1, NaN parts of the other +-0, and
// the product is recomputed times inf.
// r = u op v with x86's NaN: u's or v's (quieted) where one is NaN, else
// the negative default NaN of an invalid operation (inf * 0, inf - inf),
// not the GPU's positive canonical one (Note [Device NaN signs]: its sign
// becomes the zero's in cexp(-inf + i NaN), e.g. of 2^(-inf + 0i)).
template <class T> KILN_HOST_DEVICE T x86_nan(T r, T u, T v) {
  if (!is_nan(r)) return r;
  return is_nan(u) ? arith_detail::quieted(u) : (is_nan(v) ? arith_detail::quieted(v) : flip_sign(fp<T>::nan()));
}
template <class T> KILN_HOST_DEVICE complex<T> annex_g_multiply(complex<T> p, complex<T> q) {
  typedef fp<T> F;
  T a = p.real(), b = p.imag(), c = q.real(), d = q.imag();
  const T ac = x86_nan(a * c, a, c), bd = x86_nan(b * d, b, d), ad = x86_nan(a * d, a, d), bc = x86_nan(b * c, b, c);
  const T x = x86_nan(ac - bd, ac, bd), y = x86_nan(ad + bc, ad, bc);
  if (!is_nan(x) || !is_nan(y)) return complex<T>(x, y);
  bool again = false;
  if (is_inf(a) || is_inf(b)) {
    a = F::copysign(is_inf(a) ? T(1) : T(0), a);
    b = F::copysign(is_inf(b) ? T(1) : T(0), b);
    if (is_nan(c)) c = F::copysign(T(0), c);
    if (is_nan(d)) d = F::copysign(T(0), d);
    again = true;
  }
  if (is_inf(c) || is_inf(d)) {
    c = F::copysign(is_inf(c) ? T(1) : T(0), c);
    d = F::copysign(is_inf(d) ? T(1) : T(0), d);
    if (is_nan(a)) a = F::copysign(T(0), a);
    if (is_nan(b)) b = F::copysign(T(0), b);
    again = true;
  }
  if (!again && (is_inf(ac) || is_inf(bd) || is_inf(ad) || is_inf(bc))) {
    if (is_nan(a)) a = F::copysign(T(0), a);
    if (is_nan(b)) b = F::copysign(T(0), b);
    if (is_nan(c)) c = F::copysign(T(0), c);
    if (is_nan(d)) d = F::copysign(T(0), d);
    again = true;
  }
  if (!again) return complex<T>(x, y);
  // No NaN is left in a..d: inf times a zero part is x86's negative NaN
  // (its sign becomes a zero's in cexp(-inf + i NaN): 0 - 0j, as NumPy's).
  const T re = a * c - b * d, im = a * d + b * c;
  return complex<T>(x86_nan(F::inf() * re, F::inf(), re), x86_nan(F::inf() * im, F::inf(), im));
}

// NumPy's complex power: a^0 = 1; 0^b = 0 for Re b > 0, else NaN; real
// integer exponents below 100 in magnitude: a, a a and a (a a) for 1, 2
// and 3, else binary powering from 1 (reciprocal for negative exponents),
// with the plain product (no Annex G recovery), as NumPy's loop: so
// 1 (inf + 0j) is inf + NaN j and (inf + 0j)^-1 is NaN + NaN j, and a -0
// part of a power of two can come back +0 (1j^4 is 1 + 0j); the rest
// exp(b log a).
template <class T> KILN_HOST_DEVICE complex<T> cpow(complex<T> a, complex<T> b) {
  const T br = b.real(), bi = b.imag();
  if (br == T(0) && bi == T(0)) return complex<T>(T(1), T(0));
  if (a.real() == T(0) && a.imag() == T(0)) {
    if (br > T(0)) return complex<T>(T(0), T(0));
    return complex<T>(fp<T>::nan(), fp<T>::nan());
  }
  if (bi == T(0) && br > T(-100) && br < T(100)) {
    const int n = static_cast<int>(br);
    if (static_cast<T>(n) == br) {
      if (n == 1) return a;
      if (n == 2) return a * a;
      if (n == 3) return a * (a * a);
      unsigned m = static_cast<unsigned>(n < 0 ? -n : n);
      complex<T> result = complex<T>(T(1), T(0)), square = a;
      while (true) {
        if (m & 1u) result = result * square;
        m >>= 1;
        if (m == 0) break;
        square = square * square;
      }
      return n < 0 ? complex<T>(T(1), T(0)) / result : result;
    }
  }
  return cexp(annex_g_multiply(b, clog(a)));
}

// ---- i0 and sinc ----
// Note [i0]: I0(x) = sum_k (x^2/4)^k / (k!)^2, all terms positive, for
// |x| <= 20; above, e^x / sqrt(2 pi x) * sum_k ((2k-1)!!)^2 / (k! (8x)^k),
// whose terms shrink below eps before they start to grow. The series'
// terms carry k roundings each: up to about |x|/2 + 2 ulp near |x| = 20,
// a few ulp elsewhere (NumPy's Chebyshev fit adds its own few: bound 16
// versus NumPy). Like NumPy, inf where e^|x| overflows (|x| > 709.78),
// NaN at +-inf.
KILN_HOST_DEVICE double i0(double x) {
  const double ax = ::fabs(x);
  if (!(ax <= 20.0)) {
    if (ax != ax || ax == fp<double>::inf()) return fp<double>::nan();
    if (ax > 709.782712893384) return fp<double>::inf();
    double term = 1.0, sum = 1.0;
    const double r = 1.0 / (8.0 * ax);
    for (int k = 1; k < 40; ++k) {
      const double odd = 2.0 * k - 1.0;
      term *= odd * odd * r / k;
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    return ::exp(ax) * (sum / ::sqrt(6.283185307179586 * ax));
  }
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 80; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}
// 64-bit exponents clamp to int: past +-2^31 every result is 0 or inf anyway.
KILN_HOST_DEVICE int clamp_exponent(long long e) {
  return e > 2147483647LL ? 2147483647 : (e < -2147483647LL - 1 ? -2147483647 - 1 : static_cast<int>(e));
}
}  // namespace detail

// ---- real loops: e->e f->f d->d ----
// float16 computes in float and rounds once (Note [Transcendental accuracy]).
#define KILN_UFN_REAL1(name, f32, f64)                                                  \
  KILN_HOST_DEVICE float name(float x) { return ::f32(x); }                            \
  KILN_HOST_DEVICE double name(double x) { return ::f64(x); }                          \
  KILN_HOST_DEVICE half name(half x) { return half(::f32(static_cast<float>(x))); }
#define KILN_UFN_REAL2(name, f32, f64)                                                  \
  KILN_HOST_DEVICE float name(float x, float y) { return ::f32(x, y); }                \
  KILN_HOST_DEVICE double name(double x, double y) { return ::f64(x, y); }             \
  KILN_HOST_DEVICE half name(half x, half y) {                                         \
    return half(::f32(static_cast<float>(x), static_cast<float>(y)));                  \
  }
KILN_UFN_REAL1(exp, expf, exp)
KILN_UFN_REAL1(exp2, exp2f, exp2)
KILN_UFN_REAL1(expm1, expm1f, expm1)
KILN_UFN_REAL1(log, logf, log)
KILN_UFN_REAL1(log2, log2f, log2)
KILN_UFN_REAL1(log10, log10f, log10)
KILN_UFN_REAL1(log1p, log1pf, log1p)
KILN_UFN_REAL1(sqrt, sqrtf, sqrt)
KILN_UFN_REAL1(cbrt, cbrtf, cbrt)
KILN_UFN_REAL1(sin, sinf, sin)
KILN_UFN_REAL1(cos, cosf, cos)
KILN_UFN_REAL1(tan, tanf, tan)
KILN_UFN_REAL1(arcsin, asinf, asin)
KILN_UFN_REAL1(arccos, acosf, acos)
KILN_UFN_REAL1(arctan, atanf, atan)
KILN_UFN_REAL1(sinh, sinhf, sinh)
KILN_UFN_REAL1(cosh, coshf, cosh)
KILN_UFN_REAL1(tanh, tanhf, tanh)
KILN_UFN_REAL1(arcsinh, asinhf, asinh)
KILN_UFN_REAL1(arccosh, acoshf, acosh)
KILN_UFN_REAL1(arctanh, atanhf, atanh)
#undef KILN_UFN_REAL1
#undef KILN_UFN_REAL2

// pow(x, 0) and pow(1, y) are 1 for a quiet NaN argument, but glibc (NumPy)
// returns NaN for a signaling one, where CUDA's pow returns 1.
KILN_HOST_DEVICE float power(float x, float y) {
  if (detail::is_signaling(x) || detail::is_signaling(y)) return arith_detail::quieted(arith_detail::is_nan(x) ? x : y);
  return ::powf(x, y);
}
KILN_HOST_DEVICE double power(double x, double y) {
  if (detail::is_signaling(x) || detail::is_signaling(y)) return arith_detail::quieted(arith_detail::is_nan(x) ? x : y);
  return ::pow(x, y);
}
KILN_HOST_DEVICE half power(half x, half y) {
  if (detail::is_signaling(x) || detail::is_signaling(y)) return half::from_bits(arith_detail::is_nan(x) ? x.bits() | 0x0200u : y.bits() | 0x0200u);
  return half(::powf(static_cast<float>(x), static_cast<float>(y)));
}
KILN_HOST_DEVICE double float_power(double x, double y) { return power(x, y); }

// float arctan2 rounded from double on the device (Note [Float functions rounded from double on the device]).
KILN_HOST_DEVICE float arctan2(float y, float x) { return detail::atan2_rounded(y, x); }
KILN_HOST_DEVICE double arctan2(double y, double x) { return ::atan2(y, x); }
KILN_HOST_DEVICE half arctan2(half y, half x) {
  return half(detail::atan2_rounded(static_cast<float>(y), static_cast<float>(x)));
}

// hypot: arith_detail::hypot_, not CUDA's: glibc's on the host; on a GPU
// glibc's method for float, correctly rounded for double.
KILN_HOST_DEVICE float hypot(float x, float y) { return arith_detail::hypot_(x, y); }
KILN_HOST_DEVICE double hypot(double x, double y) { return arith_detail::hypot_(x, y); }
KILN_HOST_DEVICE half hypot(half x, half y) { return half(arith_detail::hypot_(static_cast<float>(x), static_cast<float>(y))); }

KILN_HOST_DEVICE float logaddexp(float x, float y) { return detail::logaddexp(x, y); }
KILN_HOST_DEVICE double logaddexp(double x, double y) { return detail::logaddexp(x, y); }
KILN_HOST_DEVICE half logaddexp(half x, half y) {
  return half(detail::logaddexp(static_cast<float>(x), static_cast<float>(y)));
}
KILN_HOST_DEVICE float logaddexp2(float x, float y) { return detail::logaddexp2(x, y); }
KILN_HOST_DEVICE double logaddexp2(double x, double y) { return detail::logaddexp2(x, y); }
KILN_HOST_DEVICE half logaddexp2(half x, half y) {
  return half(detail::logaddexp2(static_cast<float>(x), static_cast<float>(y)));
}

// ---- nextafter, spacing ----
// A NaN argument comes back quieted (y's if both are NaN), as glibc's.
KILN_HOST_DEVICE float nextafter(float x, float y) {
  return arith_detail::is_nan(x) || arith_detail::is_nan(y) ? arith_detail::quieted(arith_detail::is_nan(y) ? y : x)
                                                            : ::nextafterf(x, y);
}
KILN_HOST_DEVICE double nextafter(double x, double y) {
  return arith_detail::is_nan(x) || arith_detail::is_nan(y) ? arith_detail::quieted(arith_detail::is_nan(y) ? y : x)
                                                            : ::nextafter(x, y);
}
// float16: NaN in -> NumPy's quiet NaN 0x7e00; x == y -> y, C's rule (so
// nextafter(0.0, -0.0) is -0.0), as for float and double: NumPy 2.5's
// float16 loop (NumPy 2.4's returned x).
KILN_HOST_DEVICE half nextafter(half x, half y) {
  const float fx = static_cast<float>(x), fy = static_cast<float>(y);
  if (fx != fx || fy != fy) return half::from_bits(0x7e00u);
  if (fx == fy) return y;
  return half::from_bits(detail::half_step(x.bits(), fy > fx));
}
// spacing(x): the gap to the next value away from zero, signed as x (+0
// and -0 both give the smallest subnormal), NaN for inf and NaN. NumPy's
// float16 spacing instead steps toward +inf for every x: spacing(-1) > 0.
KILN_HOST_DEVICE float spacing(float x) {
  return (x < 0.0f ? ::nextafterf(x, -detail::fp<float>::inf()) : ::nextafterf(x, detail::fp<float>::inf())) - x;
}
KILN_HOST_DEVICE double spacing(double x) {
  return (x < 0.0 ? ::nextafter(x, -detail::fp<double>::inf()) : ::nextafter(x, detail::fp<double>::inf())) - x;
}
KILN_HOST_DEVICE half spacing(half x) {
  const float fx = static_cast<float>(x);
  if (!detail::is_finite(fx)) return half::from_bits(0x7e00u);
  return half(static_cast<float>(half::from_bits(detail::half_step(x.bits(), true))) - fx);
}

// ---- modf, ldexp, frexp (exact; a NaN comes back quieted, as glibc's) ----
KILN_HOST_DEVICE void modf(float x, float& frac, float& whole) {
  if (arith_detail::is_nan(x)) frac = whole = arith_detail::quieted(x);
  else frac = ::modff(x, &whole);
}
KILN_HOST_DEVICE void modf(double x, double& frac, double& whole) {
  if (arith_detail::is_nan(x)) frac = whole = arith_detail::quieted(x);
  else frac = ::modf(x, &whole);
}
KILN_HOST_DEVICE void modf(half x, half& frac, half& whole) {
  float f, w;
  modf(static_cast<float>(x), f, w);
  frac = half(f);
  whole = half(w);
}

KILN_HOST_DEVICE float ldexp(float x, int e) { return arith_detail::is_nan(x) ? arith_detail::quieted(x) : ::ldexpf(x, e); }
KILN_HOST_DEVICE double ldexp(double x, int e) { return arith_detail::is_nan(x) ? arith_detail::quieted(x) : ::ldexp(x, e); }
KILN_HOST_DEVICE half ldexp(half x, int e) { return half(ldexp(static_cast<float>(x), e)); }
KILN_HOST_DEVICE float ldexp(float x, long long e) { return ldexp(x, detail::clamp_exponent(e)); }
KILN_HOST_DEVICE double ldexp(double x, long long e) { return ldexp(x, detail::clamp_exponent(e)); }
KILN_HOST_DEVICE half ldexp(half x, long long e) { return ldexp(x, detail::clamp_exponent(e)); }
KILN_HOST_DEVICE float ldexp(float x, long e) { return ldexp(x, static_cast<long long>(e)); }
KILN_HOST_DEVICE double ldexp(double x, long e) { return ldexp(x, static_cast<long long>(e)); }
KILN_HOST_DEVICE half ldexp(half x, long e) { return ldexp(x, static_cast<long long>(e)); }

// frexp of 0, inf and NaN: (x, 0), as NumPy (C leaves the exponent unspecified).
KILN_HOST_DEVICE void frexp(float x, float& mantissa, int& exponent) {
  exponent = 0;
  mantissa = (x == 0.0f || !detail::is_finite(x)) ? x : ::frexpf(x, &exponent);
}
KILN_HOST_DEVICE void frexp(double x, double& mantissa, int& exponent) {
  exponent = 0;
  mantissa = (x == 0.0 || !detail::is_finite(x)) ? x : ::frexp(x, &exponent);
}
KILN_HOST_DEVICE void frexp(half x, half& mantissa, int& exponent) {
  float m;
  frexp(static_cast<float>(x), m, exponent);
  mantissa = half(m);
}

// ---- i0 and sinc (for numpy.i0 and numpy.sinc) ----
KILN_HOST_DEVICE double i0(double x) { return detail::i0(x); }
// float: inf where e^|x| overflows float (NaN at +-inf: inf * 0), as NumPy's
// float32 evaluation; so does the double one at +-inf.
KILN_HOST_DEVICE float i0(float x) {
  const float ax = ::fabsf(x);
  if (ax > 88.72283935546875f) return ax == detail::fp<float>::inf() ? detail::fp<float>::nan() : detail::fp<float>::inf();
  return static_cast<float>(detail::i0(static_cast<double>(x)));
}
// numpy.sinc rounds pi x to the argument's type first, then sin(y) / y (1
// where pi x is 0); float16 rounds after each step, pi itself included.
KILN_HOST_DEVICE double sinc(double x) {
  const double y = 3.141592653589793 * x;
  return y == 0.0 ? 1.0 : ::sin(y) / y;
}
KILN_HOST_DEVICE float sinc(float x) {
  const float y = 3.14159265f * x;
  return y == 0.0f ? 1.0f : ::sinf(y) / y;
}
KILN_HOST_DEVICE half sinc(half x) {
  const half y = half(static_cast<float>(half(3.14159265f)) * static_cast<float>(x));
  if (static_cast<float>(y) == 0.0f) return half(1.0f);
  return half(static_cast<float>(half(::sinf(static_cast<float>(y)))) / static_cast<float>(y));
}

// ---- complex loops: F->F D->D ----
#define KILN_UFN_COMPLEX1(name, body)                                                              \
  KILN_HOST_DEVICE complex<float> name(complex<float> z) { typedef float T; return body; }          \
  KILN_HOST_DEVICE complex<double> name(complex<double> z) { typedef double T; return body; }
KILN_UFN_COMPLEX1(exp, detail::cexp(z))
KILN_UFN_COMPLEX1(exp2, detail::cexp(detail::scaled(z, detail::fp<T>::ln2())))
KILN_UFN_COMPLEX1(expm1, detail::cexpm1(z))
KILN_UFN_COMPLEX1(log, detail::clog(z))
KILN_UFN_COMPLEX1(log2, detail::scaled(detail::clog(z), detail::fp<T>::log2e()))
KILN_UFN_COMPLEX1(log10, detail::scaled(detail::clog(z), detail::fp<T>::log10e()))
KILN_UFN_COMPLEX1(log1p, detail::clog1p(z))
KILN_UFN_COMPLEX1(sqrt, detail::csqrt(z))
KILN_UFN_COMPLEX1(sinh, detail::csinh(z))
KILN_UFN_COMPLEX1(cosh, detail::ccosh(z))
KILN_UFN_COMPLEX1(tanh, detail::ctanh(z))
KILN_UFN_COMPLEX1(sin, detail::csin(z))
KILN_UFN_COMPLEX1(cos, detail::ccosh(detail::times_i(z)))                         // cos z = cosh(iz)
KILN_UFN_COMPLEX1(tan, detail::times_minus_i(detail::ctanh(detail::times_i(z))))  // tan z = -i tanh(iz)
KILN_UFN_COMPLEX1(arcsin, detail::casin(z))
KILN_UFN_COMPLEX1(arccos, detail::cacos(z))
KILN_UFN_COMPLEX1(arcsinh, detail::times_minus_i(detail::casin(detail::times_i(z))))  // -i asin(iz)
KILN_UFN_COMPLEX1(arccosh, detail::cacosh(z))
KILN_UFN_COMPLEX1(arctanh, detail::catanh(z))
KILN_UFN_COMPLEX1(arctan, detail::times_minus_i(detail::catanh(detail::times_i(z))))  // -i atanh(iz)
#undef KILN_UFN_COMPLEX1

KILN_HOST_DEVICE complex<float> power(complex<float> a, complex<float> b) { return detail::cpow(a, b); }
KILN_HOST_DEVICE complex<double> power(complex<double> a, complex<double> b) { return detail::cpow(a, b); }
KILN_HOST_DEVICE complex<double> float_power(complex<double> a, complex<double> b) { return detail::cpow(a, b); }

}  // namespace ufn
}  // namespace kiln
