// CuPy's <cupy/complex.cuh> over kiln::complex (kiln/complex.h), for
// RawKernel, RawModule, ElementwiseKernel and ReductionKernel code written
// for CuPy: `complex<float>` and `complex<double>` at global scope (also as
// thrust::complex), with the functions CuPy's Thrust-derived header offers.
// The arithmetic is kiln's ufuncs' own (kiln/ufunc_arith.h,
// ufunc_transcendental.h), so exp(z) in a kernel gives what kiln.exp gives,
// NumPy's special values and branch cuts included. Compiles under NVRTC,
// hiprtc and the host prelude.
//
//   #include <cupy/complex.cuh>
//   extern "C" __global__ void f(const complex<float>* z, complex<float>* out, float* r) {
//     out[0] = exp(z[0]) * 2.0f + conj(z[1]);     // complex op real, real op complex
//     r[0] = abs(z[0]) + arg(z[0]) + norm(z[1]);   // found by argument-dependent lookup
//     out[1] = thrust::polar(1.0f, 0.5f);
//   }
//
// What differs from CuPy's header: narrowing between precisions
// (complex<float>(complex<double>)) is explicit, as in kiln/complex.h;
// pow(0, 0) and other special values follow NumPy's power (CuPy's header
// computes exp(y log x)).
#pragma once

#include "kiln/complex.h"
#include "kiln/ufunc_transcendental.h"

namespace kiln {

// Found by argument-dependent lookup from any namespace (as CuPy's, which
// live in namespace thrust). Every name here has a complex parameter, so real
// calls inside namespace kiln still reach the C library (Note [Global math
// names] in kiln/ufunc_transcendental.h).
template <class T> KILN_HOST_DEVICE T abs(const complex<T>& z) { return ufn::absolute(z); }
template <class T> KILN_HOST_DEVICE T arg(const complex<T>& z) { return ufn::detail::fp<T>::atan2(z.imag(), z.real()); }
template <class T> KILN_HOST_DEVICE T norm(const complex<T>& z) { return z.real() * z.real() + z.imag() * z.imag(); }
template <class T> KILN_HOST_DEVICE complex<T> proj(const complex<T>& z) {
  if (ufn::isinf(z)) return complex<T>(ufn::detail::fp<T>::inf(), ufn::detail::fp<T>::copysign(T(0), z.imag()));
  return z;
}
template <class T> KILN_HOST_DEVICE bool isnan(const complex<T>& z) { return ufn::isnan(z); }
template <class T> KILN_HOST_DEVICE bool isinf(const complex<T>& z) { return ufn::isinf(z); }
template <class T> KILN_HOST_DEVICE bool isfinite(const complex<T>& z) { return ufn::isfinite(z); }
template <class T> KILN_HOST_DEVICE complex<T> rint(const complex<T>& z) { return ufn::rint(z); }
// CuPy's min and max of complex numbers: a NaN loses, else lexicographic.
template <class T> KILN_HOST_DEVICE complex<T> min(const complex<T>& a, const complex<T>& b) { return ufn::fmin(a, b); }
template <class T> KILN_HOST_DEVICE complex<T> max(const complex<T>& a, const complex<T>& b) { return ufn::fmax(a, b); }

#define KILN_CUPY_COMPLEX1(name, ufunc) \
  template <class T> KILN_HOST_DEVICE complex<T> name(const complex<T>& z) { return ufn::ufunc(z); }
KILN_CUPY_COMPLEX1(exp, exp)
KILN_CUPY_COMPLEX1(expm1, expm1)
KILN_CUPY_COMPLEX1(log, log)
KILN_CUPY_COMPLEX1(log10, log10)
KILN_CUPY_COMPLEX1(log2, log2)
KILN_CUPY_COMPLEX1(log1p, log1p)
KILN_CUPY_COMPLEX1(sqrt, sqrt)
KILN_CUPY_COMPLEX1(sin, sin)
KILN_CUPY_COMPLEX1(cos, cos)
KILN_CUPY_COMPLEX1(tan, tan)
KILN_CUPY_COMPLEX1(sinh, sinh)
KILN_CUPY_COMPLEX1(cosh, cosh)
KILN_CUPY_COMPLEX1(tanh, tanh)
KILN_CUPY_COMPLEX1(asin, arcsin)
KILN_CUPY_COMPLEX1(acos, arccos)
KILN_CUPY_COMPLEX1(atan, arctan)
KILN_CUPY_COMPLEX1(asinh, arcsinh)
KILN_CUPY_COMPLEX1(acosh, arccosh)
KILN_CUPY_COMPLEX1(atanh, arctanh)
#undef KILN_CUPY_COMPLEX1

// pow: complex ^ complex, complex ^ real, real ^ complex; mixed precisions
// compute in the wider one (Thrust's rule).
template <class T, class U> struct wider_part { typedef T type; };
template <> struct wider_part<float, double> { typedef double type; };
template <class T, class U>
KILN_HOST_DEVICE complex<typename wider_part<T, U>::type> pow(const complex<T>& x, const complex<U>& y) {
  typedef typename wider_part<T, U>::type W;
  return ufn::power(complex<W>(W(x.real()), W(x.imag())), complex<W>(W(y.real()), W(y.imag())));
}
template <class T, class R, class = typename detail::enable_if<detail::is_real_scalar<R>::value>::type>
KILN_HOST_DEVICE complex<T> pow(const complex<T>& x, const R& y) {
  return ufn::power(x, complex<T>(y));
}
template <class T, class R, class = typename detail::enable_if<detail::is_real_scalar<R>::value>::type>
KILN_HOST_DEVICE complex<T> pow(const R& x, const complex<T>& y) {
  return ufn::power(complex<T>(x), y);
}

// A complex number of magnitude m and phase theta (radians).
template <class T, class = typename detail::enable_if<detail::is_complex_part<T>::value>::type>
KILN_HOST_DEVICE complex<T> polar(const T& m, const T& theta = T(0)) {
  return complex<T>(m * ufn::detail::fp<T>::cos(theta), m * ufn::detail::fp<T>::sin(theta));
}

}  // namespace kiln

// CuPy's spelling: thrust::complex and its functions, and the global names
// CuPy's header brings in with `using`.
namespace thrust {
using kiln::complex;
using kiln::abs;
using kiln::arg;
using kiln::norm;
using kiln::conj;
using kiln::real;
using kiln::imag;
using kiln::polar;
using kiln::proj;
using kiln::exp;
using kiln::log;
using kiln::log10;
using kiln::pow;
using kiln::sqrt;
using kiln::sin;
using kiln::cos;
using kiln::tan;
using kiln::sinh;
using kiln::cosh;
using kiln::tanh;
using kiln::asin;
using kiln::acos;
using kiln::atan;
using kiln::asinh;
using kiln::acosh;
using kiln::atanh;
}  // namespace thrust

using kiln::complex;
using kiln::conj;
using kiln::real;
using kiln::imag;
using kiln::arg;
using kiln::exp;
using kiln::log;
using kiln::log10;
using kiln::log2;
using kiln::log1p;
using kiln::expm1;
using kiln::sin;
using kiln::cos;
using kiln::tan;
using kiln::sinh;
using kiln::cosh;
using kiln::tanh;
using kiln::asin;
using kiln::acos;
using kiln::atan;
using kiln::asinh;
using kiln::acosh;
using kiln::atanh;
using kiln::isnan;
using kiln::isinf;
using kiln::isfinite;
using kiln::rint;
using kiln::min;
using kiln::max;
