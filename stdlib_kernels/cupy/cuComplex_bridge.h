// cuComplex.h's names over kiln::complex, for RawModule/RawKernel with
// translate_cucomplex=True (which points `#include <cuComplex.h>` here; Note
// [Raw constructor keywords] in pyfrontend/raw_kernel.cpp). The arithmetic is
// kiln's ufuncs' own (kiln/ufunc_arith.h), so a kernel's cuCdiv or cuCabs
// gives what kiln.divide or kiln.abs give. The double-named functions take
// either precision, as with CuPy's translation to Thrust.
//
//   cuDoubleComplex z = make_cuDoubleComplex(1.0, 2.0);
//   out[i] = cuCadd(a[i], z);       // cuCaddf for cuFloatComplex
#pragma once

#include "kiln/complex.h"
#include "kiln/ufunc_arith.h"

typedef kiln::complex<float> cuFloatComplex;
typedef kiln::complex<double> cuDoubleComplex;
typedef cuFloatComplex cuComplex;

template <class T> KILN_HOST_DEVICE T cuCreal(kiln::complex<T> z) { return z.real(); }
template <class T> KILN_HOST_DEVICE T cuCimag(kiln::complex<T> z) { return z.imag(); }
template <class T> KILN_HOST_DEVICE kiln::complex<T> cuConj(kiln::complex<T> z) { return kiln::ufn::conjugate(z); }
template <class T>
KILN_HOST_DEVICE kiln::complex<T> cuCadd(kiln::complex<T> a, kiln::complex<T> b) { return kiln::ufn::add(a, b); }
template <class T>
KILN_HOST_DEVICE kiln::complex<T> cuCsub(kiln::complex<T> a, kiln::complex<T> b) { return kiln::ufn::subtract(a, b); }
template <class T>
KILN_HOST_DEVICE kiln::complex<T> cuCmul(kiln::complex<T> a, kiln::complex<T> b) { return kiln::ufn::multiply(a, b); }
template <class T>
KILN_HOST_DEVICE kiln::complex<T> cuCdiv(kiln::complex<T> a, kiln::complex<T> b) { return kiln::ufn::divide(a, b); }
template <class T> KILN_HOST_DEVICE T cuCabs(kiln::complex<T> z) { return kiln::ufn::absolute(z); }
template <class T>
KILN_HOST_DEVICE kiln::complex<T> cuCfma(kiln::complex<T> a, kiln::complex<T> b, kiln::complex<T> c) {
  return kiln::ufn::add(kiln::ufn::multiply(a, b), c);
}

KILN_HOST_DEVICE float cuCrealf(cuFloatComplex z) { return z.real(); }
KILN_HOST_DEVICE float cuCimagf(cuFloatComplex z) { return z.imag(); }
KILN_HOST_DEVICE cuFloatComplex cuConjf(cuFloatComplex z) { return cuConj(z); }
KILN_HOST_DEVICE cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return cuCadd(a, b); }
KILN_HOST_DEVICE cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return cuCsub(a, b); }
KILN_HOST_DEVICE cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) { return cuCmul(a, b); }
KILN_HOST_DEVICE cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) { return cuCdiv(a, b); }
KILN_HOST_DEVICE float cuCabsf(cuFloatComplex z) { return cuCabs(z); }
KILN_HOST_DEVICE cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b, cuFloatComplex c) { return cuCfma(a, b, c); }

KILN_HOST_DEVICE cuFloatComplex make_cuFloatComplex(float re, float im) { return cuFloatComplex(re, im); }
KILN_HOST_DEVICE cuDoubleComplex make_cuDoubleComplex(double re, double im) { return cuDoubleComplex(re, im); }
KILN_HOST_DEVICE cuComplex make_cuComplex(float re, float im) { return cuComplex(re, im); }
KILN_HOST_DEVICE cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
  return cuDoubleComplex(z.real(), z.imag());
}
KILN_HOST_DEVICE cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return cuFloatComplex(static_cast<float>(z.real()), static_cast<float>(z.imag()));
}
