// The rest of CUDA's device math and integer intrinsics for the host prelude
// (host_kernel.h includes this): inverse error functions, directed-rounding
// arithmetic, saturating conversions, byte/funnel/averaging integer ops,
// cache-hinted loads and stores, and the _block/_system atomic aliases.
// Host compiler only.
#pragma once

#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <time.h>  // clock()

#include <cstdint>
#include <limits>

namespace kiln_host {

// erfc(x) = y for y in (0, 2), by Halley's method on erfc, which keeps full
// relative precision in the tail (y tiny) where erfinv(1 - y) could not.
inline double erfcinv_d(double y) {
  if (!(y > 0.0)) return y == 0.0 ? HUGE_VAL : NAN;
  if (!(y < 2.0)) return y == 2.0 ? -HUGE_VAL : NAN;
  if (y > 1.0) return -erfcinv_d(2.0 - y);
  double x;
  if (y > 0.3) {  // near 0: the series erfinv(z) = sqrt(pi)/2 (z + pi z^3 / 12 + ...)
    double z = 1.0 - y;
    x = 0.886226925452758 * z * (1.0 + 0.261799387799149 * z * z);
  } else {  // the tail: erfc(x) ~ exp(-x^2) / (x sqrt(pi))
    double t = sqrt(-log(y));
    x = sqrt(fmax(-log(y) - log(t * 1.772453850905516), 0.0));
  }
  for (int i = 0; i < 8; ++i) {
    double f = erfc(x) - y;
    double df = -1.1283791670955126 * exp(-x * x);  // d/dx erfc
    double step = f / df;
    step /= 1.0 + x * step;  // Halley: erfc'' / erfc' = -2x
    x -= step;
    if (fabs(step) <= 1e-17 * fabs(x)) break;
  }
  return x;
}

// erf(x) = z for z in (-1, 1).
inline double erfinv_d(double z) {
  if (!(z > -1.0 && z < 1.0)) {
    if (z == 1.0) return HUGE_VAL;
    if (z == -1.0) return -HUGE_VAL;
    return NAN;
  }
  if (fabs(z) >= 0.5) return z > 0 ? erfcinv_d(1.0 - z) : -erfcinv_d(1.0 + z);  // 1 -|z| is exact here
  double x = 0.886226925452758 * z * (1.0 + 0.261799387799149 * z * z);
  for (int i = 0; i < 8; ++i) {
    double f = erf(x) - z;
    double df = 1.1283791670955126 * exp(-x * x);
    double step = f / df;
    step /= 1.0 + x * step;  // erf'' / erf' = -2x
    x -= step;
    if (fabs(step) <= 1e-17 * fabs(x)) break;
  }
  return x;
}

// Runs `op` with the FPU in rounding mode `mode` (FE_TOWARDZERO, ...).
template <class T, class Op>
inline T with_rounding(int mode, Op op) {
  int saved = fegetround();
  fesetround(mode);
  volatile T r = op();  // computed before the mode is put back
  fesetround(saved);
  return r;
}

// CUDA's float-to-integer conversions saturate and map NaN to 0.
template <class I>
inline I saturate_to(double r) {
  if (r != r) return 0;
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
template <class I>
inline I saturate_to_l(long double r) {
  if (r != r) return 0;
  if (r <= static_cast<long double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<long double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

}  // namespace kiln_host

// ---- inverse error functions and friends ----
inline double erfinv(double z) { return kiln_host::erfinv_d(z); }
inline double erfcinv(double y) { return kiln_host::erfcinv_d(y); }
inline float erfinvf(float z) { return static_cast<float>(kiln_host::erfinv_d(z)); }
inline float erfcinvf(float y) { return static_cast<float>(kiln_host::erfcinv_d(y)); }
inline double normcdfinv(double p) { return -1.4142135623730951 * kiln_host::erfcinv_d(2.0 * p); }
inline float normcdfinvf(float p) { return static_cast<float>(normcdfinv(p)); }
inline void sincospi(double x, double* s, double* c) { sincos(M_PI * x, s, c); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline float fdividef(float a, float b) { return a / b; }
inline int __finitef(float x) { return isfinite(x); }
inline int __isinff(float x) { return isinf(x); }
inline int __isnanf(float x) { return isnan(x); }
inline int __finite(double x) { return isfinite(x); }
inline int __isinf(double x) { return isinf(x); }
inline int __isnan(double x) { return isnan(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }

// ---- arithmetic with an explicit rounding mode ----
#define KILN_HOST_ROUNDED(suffix, mode)                                                                 \
  inline float __fadd_##suffix(float a, float b) {                                                      \
    return kiln_host::with_rounding<float>(mode, [&] { volatile float x = a; return x + b; });          \
  }                                                                                                     \
  inline float __fsub_##suffix(float a, float b) {                                                      \
    return kiln_host::with_rounding<float>(mode, [&] { volatile float x = a; return x - b; });          \
  }                                                                                                     \
  inline float __fmul_##suffix(float a, float b) {                                                      \
    return kiln_host::with_rounding<float>(mode, [&] { volatile float x = a; return x * b; });          \
  }                                                                                                     \
  inline float __fdiv_##suffix(float a, float b) {                                                      \
    return kiln_host::with_rounding<float>(mode, [&] { volatile float x = a; return x / b; });          \
  }                                                                                                     \
  inline float __fmaf_##suffix(float a, float b, float c) {                                             \
    return kiln_host::with_rounding<float>(mode, [&] { volatile float x = a; return fmaf(x, b, c); });  \
  }                                                                                                     \
  inline double __dadd_##suffix(double a, double b) {                                                   \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = a; return x + b; });        \
  }                                                                                                     \
  inline double __dsub_##suffix(double a, double b) {                                                   \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = a; return x - b; });        \
  }                                                                                                     \
  inline double __dmul_##suffix(double a, double b) {                                                   \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = a; return x * b; });        \
  }                                                                                                     \
  inline double __ddiv_##suffix(double a, double b) {                                                   \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = a; return x / b; });        \
  }                                                                                                     \
  inline double __drcp_##suffix(double a) {                                                             \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = 1.0; return x / a; });      \
  }                                                                                                     \
  inline double __dsqrt_##suffix(double a) {                                                            \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = a; return sqrt(x); });      \
  }                                                                                                     \
  inline double __fma_##suffix(double a, double b, double c) {                                          \
    return kiln_host::with_rounding<double>(mode, [&] { volatile double x = a; return fma(x, b, c); }); \
  }
KILN_HOST_ROUNDED(rz, FE_TOWARDZERO)
KILN_HOST_ROUNDED(ru, FE_UPWARD)
KILN_HOST_ROUNDED(rd, FE_DOWNWARD)
#undef KILN_HOST_ROUNDED
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double a) { return 1.0 / a; }
inline double __dsqrt_rn(double a) { return sqrt(a); }
inline float __fsqrt_rz(float a) {
  return kiln_host::with_rounding<float>(FE_TOWARDZERO, [&] { volatile float x = a; return sqrtf(x); });
}

// ---- conversions (saturating, NaN -> 0, as on the GPU) ----
#define KILN_HOST_F2I(from, F, to, I)                                                                    \
  inline I __##from##2##to##_rn(F x) { return kiln_host::saturate_to<I>(nearbyint(static_cast<double>(x))); } \
  inline I __##from##2##to##_rz(F x) { return kiln_host::saturate_to<I>(trunc(static_cast<double>(x))); }     \
  inline I __##from##2##to##_rd(F x) { return kiln_host::saturate_to<I>(floor(static_cast<double>(x))); }     \
  inline I __##from##2##to##_ru(F x) { return kiln_host::saturate_to<I>(ceil(static_cast<double>(x))); }
KILN_HOST_F2I(float, float, uint, unsigned int)
KILN_HOST_F2I(double, double, uint, unsigned int)
#undef KILN_HOST_F2I
#define KILN_HOST_F2L(from, F, to, I)                                                                          \
  inline I __##from##2##to##_rn(F x) { return kiln_host::saturate_to_l<I>(nearbyintl(static_cast<long double>(x))); } \
  inline I __##from##2##to##_rz(F x) { return kiln_host::saturate_to_l<I>(truncl(static_cast<long double>(x))); }     \
  inline I __##from##2##to##_rd(F x) { return kiln_host::saturate_to_l<I>(floorl(static_cast<long double>(x))); }     \
  inline I __##from##2##to##_ru(F x) { return kiln_host::saturate_to_l<I>(ceill(static_cast<long double>(x))); }
KILN_HOST_F2L(float, float, ll, long long)
KILN_HOST_F2L(float, float, ull, unsigned long long)
KILN_HOST_F2L(double, double, ll, long long)
KILN_HOST_F2L(double, double, ull, unsigned long long)
#undef KILN_HOST_F2L
inline int __double2int_rz(double x) { return kiln_host::saturate_to<int>(trunc(x)); }
inline int __double2int_rd(double x) { return kiln_host::saturate_to<int>(floor(x)); }
inline int __double2int_ru(double x) { return kiln_host::saturate_to<int>(ceil(x)); }
inline float __uint2float_rn(unsigned x) { return static_cast<float>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline float __ull2float_rn(unsigned long long x) { return static_cast<float>(x); }
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned x) { return x; }
inline double __ll2double_rn(long long x) { return static_cast<double>(x); }
inline double __ull2double_rn(unsigned long long x) { return static_cast<double>(x); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline float __double2float_rz(double x) {
  return kiln_host::with_rounding<float>(FE_TOWARDZERO, [&] { volatile double v = x; return static_cast<float>(v); });
}
inline int __double2hiint(double x) {
  long long b;
  memcpy(&b, &x, 8);
  return static_cast<int>(b >> 32);
}
inline int __double2loint(double x) {
  long long b;
  memcpy(&b, &x, 8);
  return static_cast<int>(b);
}
inline double __hiloint2double(int hi, int lo) {
  unsigned long long b = (static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) | static_cast<unsigned>(lo);
  double x;
  memcpy(&x, &b, 8);
  return x;
}

// ---- integer intrinsics ----
inline unsigned __sad(int x, int y, unsigned z) {
  return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x);
}
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
inline unsigned __uhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
inline unsigned __urhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned sel = (s >> (4 * i)) & 7u;
    r |= static_cast<unsigned>((bytes >> (8 * sel)) & 0xffu) << (8 * i);
  }
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift < 32u ? shift : 32u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift < 32u ? shift : 32u));
}
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

// ---- cache-hinted loads and stores (plain memory on the host) ----
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline T __ldca(const T* p) { return *p; }
template <class T>
inline T __ldcs(const T* p) { return *p; }
template <class T>
inline T __ldlu(const T* p) { return *p; }
template <class T>
inline T __ldcv(const T* p) { return *p; }
template <class T>
inline void __stwb(T* p, T v) { *p = v; }
template <class T>
inline void __stcg(T* p, T v) { *p = v; }
template <class T>
inline void __stcs(T* p, T v) { *p = v; }
template <class T>
inline void __stwt(T* p, T v) { *p = v; }

// ---- scoped atomics: one memory, so every scope is the same atomic ----
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
