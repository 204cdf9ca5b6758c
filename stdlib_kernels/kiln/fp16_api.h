// cuda_fp16.h's names over kiln::half (kiln/half.h): the host backend's
// <cuda_fp16.h> (stdlib_kernels/host_cuda/cuda_fp16.h), and what
// ElementwiseKernel and ReductionKernel code sees on every backend (through
// cupy/carray.cuh), so `__hadd(x, y)` on float16 params works everywhere.
// Compiles under NVRTC, hiprtc and the host prelude; no SDK headers.
//
//   __half a = __float2half(1.5f), b = __hmul(a, a);   // 2.25
//   float f = __half2float(__hadd(a, b));               // 3.75
//   __half2 p = __floats2half2_rn(1.0f, 2.0f);          // p.x, p.y
//   bool lt = __hlt(a, b);                              // ordered comparisons: false with a NaN
//
// Note [Half intrinsics are correctly rounded]
// __half is kiln::half: the arithmetic intrinsics compute in float (fma in
// double) and round once to binary16, which is what the GPU's fp16 units
// give, bit for bit: float's 24 bits are at least 2 x 11 + 2, so rounding a
// float sum, difference, product, quotient or square root of halves to
// binary16 equals rounding the exact result. hexp, hlog, hsin ... are the C
// library's float functions rounded to binary16 (the GPU's approximations
// may differ in the last bit). Under NVRTC a kernel that included the
// toolkit's <cuda_fp16.h> first keeps it and gets none of this; one that
// includes this first gets kiln's names, and a later <cuda_fp16.h> is empty
// (its include guard is defined here). The toolkit's headers that build on
// the real __half (cuda_bf16.h, cuda_fp8.h, and so CUB) then fail to
// compile: a RawKernel that wants both includes those before
// <cupy/carray.cuh>.
#pragma once

#include "kiln/half.h"

#if !defined(__CUDA_FP16_H__)
#define __CUDA_FP16_H__
#define __CUDA_FP16_HPP__
#define __CUDA_FP16_TYPES_EXIST__
#define KILN_FP16_API 1

typedef kiln::half __half;
typedef kiln::half half;
struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};
struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  KILN_HOST_DEVICE __half2(__half a, __half b) : x(a), y(b) {}
  KILN_HOST_DEVICE __half2(__half2_raw r) : x(__half::from_bits(r.x)), y(__half::from_bits(r.y)) {}
};
typedef __half2 half2;

namespace kiln {
namespace fp16 {
KILN_HOST_DEVICE float f(__half h) { return static_cast<float>(h); }
// The neighbour of h toward +inf (up) or -inf, for the directed roundings.
KILN_HOST_DEVICE __half step(__half h, bool up) {
  unsigned short b = h.bits();
  if ((b & 0x7fffu) == 0) return __half::from_bits(up ? 0x0001u : 0x8001u);
  const bool negative = (b & 0x8000u) != 0;
  return __half::from_bits(static_cast<unsigned short>(up != negative ? b + 1 : b - 1));
}
// x rounded to binary16 toward zero (mode 0), -inf (1) or +inf (2): the
// nearest, or its neighbour where the nearest lies on the wrong side of x.
KILN_HOST_DEVICE __half directed(float x, int mode) {
  const __half h(x);
  const float back = f(h);
  if (x != x || back == x) return h;
  if ((mode == 1 || (mode == 0 && x > 0.0f)) && back > x) return step(h, false);
  if ((mode == 2 || (mode == 0 && x < 0.0f)) && back < x) return step(h, true);
  return h;
}
KILN_HOST_DEVICE bool is_nan(__half h) { return (h.bits() & 0x7fffu) > 0x7c00u; }
KILN_HOST_DEVICE __half sat(__half h) { return is_nan(h) ? __half(0.0f) : f(h) < 0.0f ? __half(0.0f) : f(h) > 1.0f ? __half(1.0f) : h; }
}  // namespace fp16
}  // namespace kiln

// ---- conversions ----
KILN_HOST_DEVICE __half __float2half(float x) { return __half(x); }
KILN_HOST_DEVICE __half __float2half_rn(float x) { return __half(x); }
KILN_HOST_DEVICE __half __float2half_rz(float x) { return kiln::fp16::directed(x, 0); }
KILN_HOST_DEVICE __half __float2half_rd(float x) { return kiln::fp16::directed(x, 1); }
KILN_HOST_DEVICE __half __float2half_ru(float x) { return kiln::fp16::directed(x, 2); }
KILN_HOST_DEVICE __half __double2half(double x) { return __half(x); }
KILN_HOST_DEVICE float __half2float(__half h) { return static_cast<float>(h); }
KILN_HOST_DEVICE __half __int2half_rn(int i) { return __half(static_cast<float>(i)); }
KILN_HOST_DEVICE __half __uint2half_rn(unsigned i) { return __half(static_cast<float>(i)); }
KILN_HOST_DEVICE __half __short2half_rn(short i) { return __half(static_cast<float>(i)); }
KILN_HOST_DEVICE __half __ushort2half_rn(unsigned short i) { return __half(static_cast<float>(i)); }
KILN_HOST_DEVICE __half __ll2half_rn(long long i) { return __half(static_cast<float>(i)); }
KILN_HOST_DEVICE __half __ull2half_rn(unsigned long long i) { return __half(static_cast<float>(i)); }
// To integers: NaN gives 0, out of range saturates (the GPU's cvt).
#define KILN_FP16_TO_INT(name, T, lo, hi, round)                         \
  KILN_HOST_DEVICE T name(__half h) {                                    \
    if (kiln::fp16::is_nan(h)) return static_cast<T>(0);                            \
    const float v = round(static_cast<float>(h));                        \
    return v <= static_cast<float>(lo) ? static_cast<T>(lo) : v >= static_cast<float>(hi) ? static_cast<T>(hi) : static_cast<T>(v); \
  }
KILN_FP16_TO_INT(__half2int_rz, int, -2147483647 - 1, 2147483647, truncf)
KILN_FP16_TO_INT(__half2int_rn, int, -2147483647 - 1, 2147483647, rintf)
KILN_FP16_TO_INT(__half2int_rd, int, -2147483647 - 1, 2147483647, floorf)
KILN_FP16_TO_INT(__half2int_ru, int, -2147483647 - 1, 2147483647, ceilf)
KILN_FP16_TO_INT(__half2uint_rz, unsigned, 0u, 4294967295u, truncf)
KILN_FP16_TO_INT(__half2short_rz, short, -32768, 32767, truncf)
KILN_FP16_TO_INT(__half2ushort_rz, unsigned short, 0, 65535, truncf)
KILN_FP16_TO_INT(__half2ll_rz, long long, -9223372036854775807LL - 1, 9223372036854775807LL, truncf)
#undef KILN_FP16_TO_INT
KILN_HOST_DEVICE short __half_as_short(__half h) { return static_cast<short>(h.bits()); }
KILN_HOST_DEVICE unsigned short __half_as_ushort(__half h) { return h.bits(); }
KILN_HOST_DEVICE __half __short_as_half(short s) { return __half::from_bits(static_cast<unsigned short>(s)); }
KILN_HOST_DEVICE __half __ushort_as_half(unsigned short s) { return __half::from_bits(s); }

// ---- __half2 construction and parts ----
KILN_HOST_DEVICE __half2 make_half2(__half a, __half b) { return __half2(a, b); }
KILN_HOST_DEVICE __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
KILN_HOST_DEVICE __half2 __half2half2(__half a) { return __half2(a, a); }
KILN_HOST_DEVICE __half2 __float2half2_rn(float a) { return __half2(__half(a), __half(a)); }
KILN_HOST_DEVICE __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
KILN_HOST_DEVICE __half2 __float22half2_rn(float2 v) { return __half2(__half(v.x), __half(v.y)); }
KILN_HOST_DEVICE float2 __half22float2(__half2 h) { return make_float2(static_cast<float>(h.x), static_cast<float>(h.y)); }
KILN_HOST_DEVICE __half __low2half(__half2 h) { return h.x; }
KILN_HOST_DEVICE __half __high2half(__half2 h) { return h.y; }
KILN_HOST_DEVICE float __low2float(__half2 h) { return static_cast<float>(h.x); }
KILN_HOST_DEVICE float __high2float(__half2 h) { return static_cast<float>(h.y); }
KILN_HOST_DEVICE __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
KILN_HOST_DEVICE __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
KILN_HOST_DEVICE __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
KILN_HOST_DEVICE __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
KILN_HOST_DEVICE __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

// ---- arithmetic (Note [Half intrinsics are correctly rounded]) ----
KILN_HOST_DEVICE __half __hadd(__half a, __half b) { return a + b; }
KILN_HOST_DEVICE __half __hsub(__half a, __half b) { return a - b; }
KILN_HOST_DEVICE __half __hmul(__half a, __half b) { return a * b; }
KILN_HOST_DEVICE __half __hdiv(__half a, __half b) { return a / b; }
KILN_HOST_DEVICE __half __hadd_rn(__half a, __half b) { return a + b; }
KILN_HOST_DEVICE __half __hsub_rn(__half a, __half b) { return a - b; }
KILN_HOST_DEVICE __half __hmul_rn(__half a, __half b) { return a * b; }
KILN_HOST_DEVICE __half __hneg(__half a) { return -a; }
KILN_HOST_DEVICE __half __habs(__half a) { return __half::from_bits(static_cast<unsigned short>(a.bits() & 0x7fffu)); }
KILN_HOST_DEVICE __half __hfma(__half a, __half b, __half c) {
  return __half(static_cast<double>(kiln::fp16::f(a)) * kiln::fp16::f(b) + kiln::fp16::f(c));
}
KILN_HOST_DEVICE __half __hadd_sat(__half a, __half b) { return kiln::fp16::sat(a + b); }
KILN_HOST_DEVICE __half __hsub_sat(__half a, __half b) { return kiln::fp16::sat(a - b); }
KILN_HOST_DEVICE __half __hmul_sat(__half a, __half b) { return kiln::fp16::sat(a * b); }
KILN_HOST_DEVICE __half __hfma_sat(__half a, __half b, __half c) { return kiln::fp16::sat(__hfma(a, b, c)); }
// __hmin/__hmax: a NaN loses; the _nan forms: a NaN wins.
KILN_HOST_DEVICE __half __hmin(__half a, __half b) {
  return kiln::fp16::is_nan(a) ? b : kiln::fp16::is_nan(b) ? a : (b < a ? b : a);
}
KILN_HOST_DEVICE __half __hmax(__half a, __half b) {
  return kiln::fp16::is_nan(a) ? b : kiln::fp16::is_nan(b) ? a : (a < b ? b : a);
}
KILN_HOST_DEVICE __half __hmin_nan(__half a, __half b) { return kiln::fp16::is_nan(a) ? a : kiln::fp16::is_nan(b) ? b : __hmin(a, b); }
KILN_HOST_DEVICE __half __hmax_nan(__half a, __half b) { return kiln::fp16::is_nan(a) ? a : kiln::fp16::is_nan(b) ? b : __hmax(a, b); }

// ---- comparisons: ordered (false with a NaN) and unordered (u: true) ----
#define KILN_FP16_COMPARE(suffix, op)                                                                         \
  KILN_HOST_DEVICE bool __h##suffix(__half a, __half b) { return kiln::fp16::f(a) op kiln::fp16::f(b); }       \
  KILN_HOST_DEVICE bool __h##suffix##u(__half a, __half b) {                                                  \
    return kiln::fp16::is_nan(a) || kiln::fp16::is_nan(b) || kiln::fp16::f(a) op kiln::fp16::f(b);            \
  }                                                                                                           \
  KILN_HOST_DEVICE __half2 __h##suffix##2(__half2 a, __half2 b) {                                             \
    return __half2(__half(__h##suffix(a.x, b.x) ? 1.0f : 0.0f), __half(__h##suffix(a.y, b.y) ? 1.0f : 0.0f)); \
  }                                                                                                           \
  KILN_HOST_DEVICE bool __hb##suffix##2(__half2 a, __half2 b) { return __h##suffix(a.x, b.x) && __h##suffix(a.y, b.y); }
KILN_FP16_COMPARE(eq, ==)
KILN_FP16_COMPARE(lt, <)
KILN_FP16_COMPARE(le, <=)
KILN_FP16_COMPARE(gt, >)
KILN_FP16_COMPARE(ge, >=)
#undef KILN_FP16_COMPARE
// not-equal: ordered is false with a NaN, unordered true.
KILN_HOST_DEVICE bool __hne(__half a, __half b) {
  return !kiln::fp16::is_nan(a) && !kiln::fp16::is_nan(b) && kiln::fp16::f(a) != kiln::fp16::f(b);
}
KILN_HOST_DEVICE bool __hneu(__half a, __half b) { return kiln::fp16::f(a) != kiln::fp16::f(b); }
KILN_HOST_DEVICE __half2 __hne2(__half2 a, __half2 b) {
  return __half2(__half(__hne(a.x, b.x) ? 1.0f : 0.0f), __half(__hne(a.y, b.y) ? 1.0f : 0.0f));
}
KILN_HOST_DEVICE bool __hbne2(__half2 a, __half2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }
KILN_HOST_DEVICE bool __hisnan(__half a) { return kiln::fp16::is_nan(a); }
KILN_HOST_DEVICE int __hisinf(__half a) {
  return (a.bits() & 0x7fffu) == 0x7c00u ? ((a.bits() & 0x8000u) ? -1 : 1) : 0;
}
KILN_HOST_DEVICE __half2 __hisnan2(__half2 a) {
  return __half2(__half(__hisnan(a.x) ? 1.0f : 0.0f), __half(__hisnan(a.y) ? 1.0f : 0.0f));
}

// ---- __half2 arithmetic, lane by lane ----
#define KILN_FP16_PAIR2(name, one)                                                            \
  KILN_HOST_DEVICE __half2 name(__half2 a, __half2 b) { return __half2(one(a.x, b.x), one(a.y, b.y)); }
KILN_FP16_PAIR2(__hadd2, __hadd)
KILN_FP16_PAIR2(__hsub2, __hsub)
KILN_FP16_PAIR2(__hmul2, __hmul)
KILN_FP16_PAIR2(__h2div, __hdiv)
KILN_FP16_PAIR2(__hadd2_sat, __hadd_sat)
KILN_FP16_PAIR2(__hsub2_sat, __hsub_sat)
KILN_FP16_PAIR2(__hmul2_sat, __hmul_sat)
KILN_FP16_PAIR2(__hmin2, __hmin)
KILN_FP16_PAIR2(__hmax2, __hmax)
#undef KILN_FP16_PAIR2
KILN_HOST_DEVICE __half2 __hneg2(__half2 a) { return __half2(-a.x, -a.y); }
KILN_HOST_DEVICE __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
KILN_HOST_DEVICE __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
KILN_HOST_DEVICE __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
KILN_HOST_DEVICE __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
KILN_HOST_DEVICE __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
KILN_HOST_DEVICE __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
KILN_HOST_DEVICE bool operator==(__half2 a, __half2 b) { return __hbeq2(a, b); }
KILN_HOST_DEVICE bool operator!=(__half2 a, __half2 b) { return __hbne2(a, b); }

// ---- math (the C library's float function, rounded once) ----
#define KILN_FP16_MATH(name, name2, expr)                                           \
  KILN_HOST_DEVICE __half name(__half h) { const float x = kiln::fp16::f(h); return __half(expr); } \
  KILN_HOST_DEVICE __half2 name2(__half2 h) { return __half2(name(h.x), name(h.y)); }
KILN_FP16_MATH(hsqrt, h2sqrt, ::sqrtf(x))
KILN_FP16_MATH(hrsqrt, h2rsqrt, 1.0f / ::sqrtf(x))
KILN_FP16_MATH(hrcp, h2rcp, 1.0f / x)
KILN_FP16_MATH(hexp, h2exp, ::expf(x))
KILN_FP16_MATH(hexp2, h2exp2, ::exp2f(x))
KILN_FP16_MATH(hexp10, h2exp10, ::powf(10.0f, x))
KILN_FP16_MATH(hlog, h2log, ::logf(x))
KILN_FP16_MATH(hlog2, h2log2, ::log2f(x))
KILN_FP16_MATH(hlog10, h2log10, ::log10f(x))
KILN_FP16_MATH(hsin, h2sin, ::sinf(x))
KILN_FP16_MATH(hcos, h2cos, ::cosf(x))
KILN_FP16_MATH(htanh, h2tanh, ::tanhf(x))
KILN_FP16_MATH(hfloor, h2floor, ::floorf(x))
KILN_FP16_MATH(hceil, h2ceil, ::ceilf(x))
KILN_FP16_MATH(htrunc, h2trunc, ::truncf(x))
KILN_FP16_MATH(hrint, h2rint, ::rintf(x))
#undef KILN_FP16_MATH

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC__) && !defined(__HIPCC_RTC__) && \
    defined(__global__)
// The host backend: atomics on half (a compare-and-swap loop on the 16 bits).
inline __half atomicAdd(__half* p, __half v) {
  unsigned short* q = reinterpret_cast<unsigned short*>(p);
  unsigned short old = __atomic_load_n(q, __ATOMIC_RELAXED);
  for (;;) {
    const unsigned short desired = (__half::from_bits(old) + v).bits();
    if (__atomic_compare_exchange_n(q, &old, desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return __half::from_bits(old);
  }
}
inline __half2 atomicAdd(__half2* p, __half2 v) { return __half2(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y)); }
#endif

#endif  // !defined(__CUDA_FP16_H__)
