// kiln::ufn's bfloat16 loops (Note [Bfloat16 loops], arraycore/ufunc_table.cpp):
// one overload per ufunc that ml_dtypes gives a bfloat16 loop, computed in
// float and rounded once to bfloat16, as ml_dtypes' loops do; sign, absolute,
// negative and copysign work on the bits; nextafter and spacing step
// bfloat16's own bits. Comparisons and the logical ufuncs are ufunc_arith.h's
// templates (bfloat16 compares through float). Included by kiln/ufunc_math.h
// after the float overloads these call.
//
//   kiln::bfloat16 y = kiln::ufn::exp(kiln::bfloat16(1.0f));   // bfloat16(expf(1.0f))
#pragma once

#include "kiln/bfloat16.h"
#include "kiln/ufunc_arith.h"
#include "kiln/ufunc_transcendental.h"

namespace kiln {
namespace ufn {

#define KILN_BF16_VIA_FLOAT1(name) \
  KILN_HOST_DEVICE bfloat16 name(bfloat16 a) { return bfloat16(name(static_cast<float>(a))); }
#define KILN_BF16_VIA_FLOAT2(name)                                          \
  KILN_HOST_DEVICE bfloat16 name(bfloat16 a, bfloat16 b) {                 \
    return bfloat16(name(static_cast<float>(a), static_cast<float>(b)));   \
  }

KILN_BF16_VIA_FLOAT2(add)
KILN_BF16_VIA_FLOAT2(subtract)
KILN_BF16_VIA_FLOAT2(multiply)
KILN_BF16_VIA_FLOAT2(divide)
KILN_BF16_VIA_FLOAT2(floor_divide)
KILN_BF16_VIA_FLOAT2(remainder)
KILN_BF16_VIA_FLOAT2(fmod)
KILN_BF16_VIA_FLOAT2(power)
KILN_BF16_VIA_FLOAT2(heaviside)
KILN_BF16_VIA_FLOAT2(logaddexp)
KILN_BF16_VIA_FLOAT2(logaddexp2)
KILN_BF16_VIA_FLOAT2(arctan2)
KILN_BF16_VIA_FLOAT2(hypot)
KILN_BF16_VIA_FLOAT2(maximum)
KILN_BF16_VIA_FLOAT2(minimum)
KILN_BF16_VIA_FLOAT2(fmax)
KILN_BF16_VIA_FLOAT2(fmin)

KILN_BF16_VIA_FLOAT1(sign)
KILN_BF16_VIA_FLOAT1(exp)
KILN_BF16_VIA_FLOAT1(exp2)
KILN_BF16_VIA_FLOAT1(expm1)
KILN_BF16_VIA_FLOAT1(log)
KILN_BF16_VIA_FLOAT1(log2)
KILN_BF16_VIA_FLOAT1(log10)
KILN_BF16_VIA_FLOAT1(log1p)
KILN_BF16_VIA_FLOAT1(sqrt)
KILN_BF16_VIA_FLOAT1(cbrt)
KILN_BF16_VIA_FLOAT1(square)
KILN_BF16_VIA_FLOAT1(reciprocal)
KILN_BF16_VIA_FLOAT1(sin)
KILN_BF16_VIA_FLOAT1(cos)
KILN_BF16_VIA_FLOAT1(tan)
KILN_BF16_VIA_FLOAT1(arcsin)
KILN_BF16_VIA_FLOAT1(arccos)
KILN_BF16_VIA_FLOAT1(arctan)
KILN_BF16_VIA_FLOAT1(sinh)
KILN_BF16_VIA_FLOAT1(cosh)
KILN_BF16_VIA_FLOAT1(tanh)
KILN_BF16_VIA_FLOAT1(arcsinh)
KILN_BF16_VIA_FLOAT1(arccosh)
KILN_BF16_VIA_FLOAT1(arctanh)
KILN_BF16_VIA_FLOAT1(deg2rad)
KILN_BF16_VIA_FLOAT1(rad2deg)
KILN_BF16_VIA_FLOAT1(floor)
KILN_BF16_VIA_FLOAT1(ceil)
KILN_BF16_VIA_FLOAT1(trunc)
KILN_BF16_VIA_FLOAT1(rint)
#undef KILN_BF16_VIA_FLOAT1
#undef KILN_BF16_VIA_FLOAT2

KILN_HOST_DEVICE bfloat16 negative(bfloat16 a) { return -a; }
KILN_HOST_DEVICE bfloat16 positive(bfloat16 a) { return a; }
KILN_HOST_DEVICE bfloat16 conjugate(bfloat16 a) { return a; }
KILN_HOST_DEVICE bfloat16 absolute(bfloat16 a) {
  return bfloat16::from_bits(static_cast<unsigned short>(a.bits() & 0x7fffu));
}
KILN_HOST_DEVICE bfloat16 fabs(bfloat16 a) { return absolute(a); }
KILN_HOST_DEVICE bfloat16 copysign(bfloat16 a, bfloat16 b) {
  return bfloat16::from_bits(static_cast<unsigned short>((a.bits() & 0x7fffu) | (b.bits() & 0x8000u)));
}

KILN_HOST_DEVICE bool isnan(bfloat16 a) { return (a.bits() & 0x7fffu) > 0x7f80u; }
KILN_HOST_DEVICE bool isinf(bfloat16 a) { return (a.bits() & 0x7fffu) == 0x7f80u; }
KILN_HOST_DEVICE bool isfinite(bfloat16 a) { return (a.bits() & 0x7fffu) < 0x7f80u; }
KILN_HOST_DEVICE bool signbit(bfloat16 a) { return (a.bits() & 0x8000u) != 0; }

KILN_HOST_DEVICE void divmod(bfloat16 a, bfloat16 b, bfloat16& q, bfloat16& r) {
  float fq, fr;
  divmod(static_cast<float>(a), static_cast<float>(b), fq, fr);
  q = bfloat16(fq);
  r = bfloat16(fr);
}
KILN_HOST_DEVICE void modf(bfloat16 x, bfloat16& frac, bfloat16& whole) {
  float f, w;
  modf(static_cast<float>(x), f, w);
  frac = bfloat16(f);
  whole = bfloat16(w);
}
KILN_HOST_DEVICE void frexp(bfloat16 x, bfloat16& mantissa, int& exponent) {
  float m;
  frexp(static_cast<float>(x), m, exponent);
  mantissa = bfloat16(m);
}
KILN_HOST_DEVICE bfloat16 ldexp(bfloat16 x, int e) { return bfloat16(ldexp(static_cast<float>(x), e)); }

// nextafter: NaN in -> quiet NaN; x == y -> y (C's rule); else one step of
// bfloat16's bits (the sign-magnitude step of detail::half_step fits any
// 16-bit IEEE-style layout). spacing: the step away from zero (-0.0 steps
// down), signed as x, as ml_dtypes' (unlike NumPy's float16 one); NaN for inf/NaN.
KILN_HOST_DEVICE bfloat16 nextafter(bfloat16 x, bfloat16 y) {
  const float fx = static_cast<float>(x), fy = static_cast<float>(y);
  if (fx != fx || fy != fy) return bfloat16::from_bits(0x7fc0u);
  if (fx == fy) return y;
  return bfloat16::from_bits(detail::half_step(x.bits(), fy > fx));
}
KILN_HOST_DEVICE bfloat16 spacing(bfloat16 x) {
  if (!isfinite(x)) return bfloat16::from_bits(0x7fc0u);
  const bfloat16 next = bfloat16::from_bits(detail::half_step(x.bits(), !signbit(x)));
  return bfloat16(static_cast<float>(next) - static_cast<float>(x));
}

}  // namespace ufn
}  // namespace kiln
