// What kernels transpiled by kiln.jit.rawkernel use: the array parameters,
// tuples, Python's arithmetic (floor division, modulo, powers, min/max/abs,
// round), the math functions per float type, atomics over every dtype the
// transpiler allows, and a few thread helpers. Compiles under NVRTC, hiprtc
// and the host compiler (through the host prelude); no SDK includes.
//
//   kiln::jit::Array<float, 2> a;      // data, shape, byte strides (any layout)
//   a(i, j) = 1.0f;                    // element (i, j); no wrap of negative indices
//   kiln::jit::CArray<float, 1> c;     // C-contiguous: data, shape
//   long long q = kiln::jit::floordiv(-7LL, 2LL);   // -4, as Python
#pragma once

#include "kiln/cast.h"

#if !(defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__))
#include <unistd.h>  // sysconf: the host backend's worker count
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__)
#define KILN_JIT_ON_DEVICE 1
#endif
#define KILN_JIT_FN __device__ inline

namespace kiln {
namespace jit {

// Note [Kernel array parameters]
// The launcher (pyfrontend/jit_launch.cpp) writes these structs byte for
// byte: an 8-byte data pointer, then max(N, 1) int64 extents, then (Array
// only) max(N, 1) int64 byte strides. Indices are not wrapped: a negative
// index addresses memory before the element, as in CUDA C++ (and CuPy).
template <class T, int N>
struct Array {
  T* data;
  long long shape[N > 0 ? N : 1];
  long long strides[N > 0 ? N : 1];
  KILN_JIT_FN T& operator()() const { return *data; }
  template <class... I>
  KILN_JIT_FN T& operator()(I... i) const {
    const long long idx[] = {static_cast<long long>(i)...};
    long long off = 0;
#pragma unroll
    for (int d = 0; d < N; ++d) off += idx[d] * strides[d];
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(data) + off);
  }
};

template <class T, int N>
struct CArray {
  T* data;
  long long shape[N > 0 ? N : 1];
  KILN_JIT_FN T& operator()() const { return *data; }
  template <class... I>
  KILN_JIT_FN T& operator()(I... i) const {
    const long long idx[] = {static_cast<long long>(i)...};
    long long off = idx[0];
#pragma unroll
    for (int d = 1; d < N; ++d) off = off * shape[d] + idx[d];
    return data[off];
  }
};

// x[i] of an array of more dimensions: the view of the remaining axes.
template <class T, int N>
KILN_JIT_FN Array<T, N - 1> take(const Array<T, N>& a, long long i) {
  Array<T, N - 1> r;
  r.data = reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + i * a.strides[0]);
  for (int d = 1; d < N; ++d) {
    r.shape[d - 1] = a.shape[d];
    r.strides[d - 1] = a.strides[d];
  }
  return r;
}
template <class T, int N>
KILN_JIT_FN CArray<T, N - 1> take(const CArray<T, N>& a, long long i) {
  CArray<T, N - 1> r;
  long long row = 1;
  for (int d = 1; d < N; ++d) {
    r.shape[d - 1] = a.shape[d];
    row *= a.shape[d];
  }
  r.data = a.data + i * row;
  return r;
}

template <class A> struct Tuple1 { A e0; };
template <class A, class B> struct Tuple2 { A e0; B e1; };
template <class A, class B, class C> struct Tuple3 { A e0; B e1; C e2; };
template <class A, class B, class C, class D> struct Tuple4 { A e0; B e1; C e2; D e3; };
template <class A, class B, class C, class D, class E> struct Tuple5 { A e0; B e1; C e2; D e3; E e4; };
template <class A, class B, class C, class D, class E, class F> struct Tuple6 { A e0; B e1; C e2; D e3; E e4; F e5; };

template <class T> KILN_JIT_FN bool truth(const T& x) { return static_cast<bool>(x); }
KILN_JIT_FN bool truth(kiln::half x) { return static_cast<float>(x) != 0.0f; }

// ---- Python arithmetic ----
// Integers: floor division and modulo round toward -inf; by zero they give 0
// (NumPy's result; Python raises).
template <class T> KILN_JIT_FN T floordiv(T a, T b) {
  if (b == T(0)) return T(0);
  T q = static_cast<T>(a / b);
  if (static_cast<T>(a % b) != T(0) && ((a < T(0)) != (b < T(0)))) q = static_cast<T>(q - T(1));
  return q;
}
template <class T> KILN_JIT_FN T pymod(T a, T b) {
  if (b == T(0)) return T(0);
  T r = static_cast<T>(a % b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
  return r;
}
// Floats: NumPy's floor_divide/remainder (remainder takes the divisor's sign;
// by zero: inf/nan as IEEE division).
#define KILN_JIT_FLOAT_DIVMOD(F, FMOD, FLOOR, COPYSIGN)                   \
  KILN_JIT_FN F pymod(F a, F b) {                                         \
    if (b == F(0)) return FMOD(a, b);                                     \
    F m = FMOD(a, b);                                                     \
    if (m != F(0)) {                                                      \
      if ((b < F(0)) != (m < F(0))) m += b;                               \
    } else {                                                              \
      m = COPYSIGN(F(0), b);                                              \
    }                                                                     \
    return m;                                                             \
  }                                                                       \
  KILN_JIT_FN F floordiv(F a, F b) {                                      \
    if (b == F(0)) return a / b;                                          \
    F m = FMOD(a, b);                                                     \
    F d = (a - m) / b;                                                    \
    if (m != F(0) && ((b < F(0)) != (m < F(0)))) d -= F(1);               \
    if (d == F(0)) return COPYSIGN(F(0), a / b);                          \
    F f = FLOOR(d);                                                       \
    if (d - f > F(0.5)) f += F(1);                                        \
    return f;                                                             \
  }
KILN_JIT_FLOAT_DIVMOD(float, ::fmodf, ::floorf, ::copysignf)
KILN_JIT_FLOAT_DIVMOD(double, ::fmod, ::floor, ::copysign)
#undef KILN_JIT_FLOAT_DIVMOD
KILN_JIT_FN kiln::half floordiv(kiln::half a, kiln::half b) { return kiln::half(floordiv(float(a), float(b))); }
KILN_JIT_FN kiln::half pymod(kiln::half a, kiln::half b) { return kiln::half(pymod(float(a), float(b))); }

// Integer powers by squaring; a negative exponent gives 1/a truncated (0
// unless |a| is 1), where NumPy raises.
template <class T> KILN_JIT_FN T ipow(T a, T b) {
  if (b < T(0)) return a == T(1) ? T(1) : (a == T(-1) ? ((b & T(1)) ? T(-1) : T(1)) : T(0));
  T r = T(1);
  while (b != T(0)) {
    if (b & T(1)) r = static_cast<T>(r * a);
    a = static_cast<T>(a * a);
    b = static_cast<T>(b >> 1);
  }
  return r;
}
KILN_JIT_FN bool ipow(bool a, bool b) { return a || !b; }

// ---- math per float type ----
#define KILN_JIT_MATH1(NAME, F32, F64)                                                   \
  KILN_JIT_FN float NAME(float x) { return ::F32(x); }                                   \
  KILN_JIT_FN double NAME(double x) { return ::F64(x); }                                 \
  KILN_JIT_FN kiln::half NAME(kiln::half x) { return kiln::half(::F32(static_cast<float>(x))); }
#define KILN_JIT_MATH2(NAME, F32, F64)                                                   \
  KILN_JIT_FN float NAME(float x, float y) { return ::F32(x, y); }                       \
  KILN_JIT_FN double NAME(double x, double y) { return ::F64(x, y); }                    \
  KILN_JIT_FN kiln::half NAME(kiln::half x, kiln::half y) {                              \
    return kiln::half(::F32(static_cast<float>(x), static_cast<float>(y)));              \
  }
KILN_JIT_MATH1(sqrt, sqrtf, sqrt)
KILN_JIT_MATH1(exp, expf, exp)
KILN_JIT_MATH1(expm1, expm1f, expm1)
KILN_JIT_MATH1(exp2, exp2f, exp2)
KILN_JIT_MATH1(log, logf, log)
KILN_JIT_MATH1(log2, log2f, log2)
KILN_JIT_MATH1(log10, log10f, log10)
KILN_JIT_MATH1(log1p, log1pf, log1p)
KILN_JIT_MATH1(sin, sinf, sin)
KILN_JIT_MATH1(cos, cosf, cos)
KILN_JIT_MATH1(tan, tanf, tan)
KILN_JIT_MATH1(asin, asinf, asin)
KILN_JIT_MATH1(acos, acosf, acos)
KILN_JIT_MATH1(atan, atanf, atan)
KILN_JIT_MATH1(sinh, sinhf, sinh)
KILN_JIT_MATH1(cosh, coshf, cosh)
KILN_JIT_MATH1(tanh, tanhf, tanh)
KILN_JIT_MATH1(asinh, asinhf, asinh)
KILN_JIT_MATH1(acosh, acoshf, acosh)
KILN_JIT_MATH1(atanh, atanhf, atanh)
KILN_JIT_MATH1(erf, erff, erf)
KILN_JIT_MATH1(erfc, erfcf, erfc)
KILN_JIT_MATH1(tgamma, tgammaf, tgamma)
KILN_JIT_MATH1(lgamma, lgammaf, lgamma)
KILN_JIT_MATH1(fabs, fabsf, fabs)
KILN_JIT_MATH1(cbrt, cbrtf, cbrt)
KILN_JIT_MATH1(floor, floorf, floor)
KILN_JIT_MATH1(ceil, ceilf, ceil)
KILN_JIT_MATH1(trunc, truncf, trunc)
KILN_JIT_MATH1(rint, rintf, rint)
KILN_JIT_MATH2(atan2, atan2f, atan2)
KILN_JIT_MATH2(pow, powf, pow)
KILN_JIT_MATH2(hypot, hypotf, hypot)
KILN_JIT_MATH2(fmod, fmodf, fmod)
KILN_JIT_MATH2(copysign, copysignf, copysign)
#undef KILN_JIT_MATH1
#undef KILN_JIT_MATH2

template <class F> KILN_JIT_FN bool isnan(F x) { return !(x == x); }
template <class F> KILN_JIT_FN bool isinf(F x) { return x == x && (x - x) != (x - x); }
template <class F> KILN_JIT_FN bool isfinite(F x) { return (x - x) == (x - x); }
KILN_JIT_FN bool isnan(kiln::half x) { return isnan(static_cast<float>(x)); }
KILN_JIT_FN bool isinf(kiln::half x) { return isinf(static_cast<float>(x)); }
KILN_JIT_FN bool isfinite(kiln::half x) { return isfinite(static_cast<float>(x)); }

// math.floor/ceil/trunc return Python ints.
template <class F> KILN_JIT_FN long long floor_int(F x) { return kiln::numpy_cast<long long>(floor(x)); }
template <class F> KILN_JIT_FN long long ceil_int(F x) { return kiln::numpy_cast<long long>(ceil(x)); }
template <class F> KILN_JIT_FN long long trunc_int(F x) { return kiln::numpy_cast<long long>(trunc(x)); }
// round(x): half to even, an int; round(x, n): a float, rounded at 10**-n
// (computed in floating point, so it may differ from Python's exact
// decimal rounding in the last place).
template <class F> KILN_JIT_FN long long round_int(F x) { return kiln::numpy_cast<long long>(rint(x)); }
KILN_JIT_FN long long round_int(long long x) { return x; }
template <class F> KILN_JIT_FN F round_n(F x, long long n) {
  F p = F(1);
  for (long long k = 0; k < (n < 0 ? -n : n); ++k) p = p * F(10);
  return n >= 0 ? rint(x * p) / p : rint(x / p) * p;
}

// ---- abs, min, max ----
template <class T> KILN_JIT_FN T py_abs(T x) { return x < T(0) ? static_cast<T>(-x) : x; }
KILN_JIT_FN float py_abs(float x) { return ::fabsf(x); }
KILN_JIT_FN double py_abs(double x) { return ::fabs(x); }
KILN_JIT_FN kiln::half py_abs(kiln::half x) { return kiln::half(::fabsf(static_cast<float>(x))); }
KILN_JIT_FN float py_abs(kiln::complex<float> z) { return ::hypotf(z.real(), z.imag()); }
KILN_JIT_FN double py_abs(kiln::complex<double> z) { return ::hypot(z.real(), z.imag()); }
// Python's min/max keep the first argument unless a later one is strictly
// smaller/larger (so NaN first wins, NaN later loses).
template <class T> KILN_JIT_FN T py_min(T a, T b) { return b < a ? b : a; }
template <class T> KILN_JIT_FN T py_max(T a, T b) { return b > a ? b : a; }
// NumPy's minimum/maximum propagate NaN.
template <class T> KILN_JIT_FN T np_minimum(T a, T b) { return !(a == a) ? a : (!(b == b) ? b : (b < a ? b : a)); }
template <class T> KILN_JIT_FN T np_maximum(T a, T b) { return !(a == a) ? a : (!(b == b) ? b : (b > a ? b : a)); }

// ---- threads ----
KILN_JIT_FN unsigned int laneid() {
#if defined(__HIPCC__) || defined(__HIPCC_RTC__)
  return __lane_id();
#elif defined(KILN_JIT_ON_DEVICE)
  unsigned int r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
#else
  return kiln_host::lane_id();
#endif
}

KILN_JIT_FN void assert_fail(const char* what, const char* file, unsigned line) {
#if defined(KILN_JIT_ON_DEVICE)
  printf("%s:%u: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, blockIdx.x, blockIdx.y,
         blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, what);
  __trap();
  while (true) {
  }
#else
  char message[320];
  snprintf(message, sizeof message, "Assertion `%s` failed.", what);
  kiln_host::fail_with(message, file, line, "kernel");
#endif
}

// Note [Grid barrier]
// cg.this_grid().sync() is a barrier over every thread of the grid: a global
// arrival counter and generation word, with fences. It needs every block of
// the grid resident at once (a grid no larger than the device runs at a
// time, as a cooperative launch would ensure). The host backend runs one
// block per worker thread at a time (KILN_HOST_THREADS, else one worker per
// CPU, as runtime/host/cpu_backend.cpp decides), so there the barrier works
// for grids of at most that many blocks and fails the launch with a message
// for larger ones, rather than waiting forever.
__device__ unsigned int kiln_jit_grid_barrier[2];
#if !defined(KILN_JIT_ON_DEVICE)
// The host backend's worker count (Note [Grid barrier]).
inline unsigned host_workers() {
  if (const char* env = getenv("KILN_HOST_THREADS")) {
    int n = atoi(env);
    if (n > 0) return static_cast<unsigned>(n);
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}
#endif

KILN_JIT_FN void grid_sync() {
  const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
#if !defined(KILN_JIT_ON_DEVICE)
  if (blocks > host_workers()) {
    char message[320];
    snprintf(message, sizeof message,
             "cg.this_grid().sync() needs every block of the grid running at once; the host backend runs %u "
             "blocks at a time (KILN_HOST_THREADS) and this grid has %u",
             host_workers(), blocks);
    kiln_host::fail_with(message, "kiln/jit.h", __LINE__, "grid_sync");
  }
#endif
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    volatile unsigned int* generation = &kiln_jit_grid_barrier[1];
    const unsigned int g = *generation;
    __threadfence();
    if (atomicAdd(&kiln_jit_grid_barrier[0], 1u) == blocks - 1u) {
      kiln_jit_grid_barrier[0] = 0u;
      __threadfence();
      atomicAdd(&kiln_jit_grid_barrier[1], 1u);
    } else {
      while (*generation == g) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// Note [kiln.jit.cg]
// Cooperative groups as cupyx.jit.cg has them: the block and the grid, their
// ranks, sizes and dim3 extents (Tuple3 of unsigned, read as .x .y .z), the
// block barrier and the grid barrier (Note [Grid barrier]). memcpy_async is
// a copy the block's threads share (each copies every size-th word from its
// rank on), finished when it returns; wait and wait_prior are the block
// barrier that makes every thread's part visible to all. The same code runs
// on every backend: CUDA's asynchronous copy engine is not used.
typedef Tuple3<unsigned int, unsigned int, unsigned int> Dim3;
KILN_JIT_FN unsigned int cg_block_thread_rank() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
KILN_JIT_FN unsigned int cg_block_size() { return blockDim.x * blockDim.y * blockDim.z; }
KILN_JIT_FN Dim3 cg_thread_index() { return Dim3{threadIdx.x, threadIdx.y, threadIdx.z}; }
KILN_JIT_FN Dim3 cg_block_index() { return Dim3{blockIdx.x, blockIdx.y, blockIdx.z}; }
KILN_JIT_FN Dim3 cg_block_dim() { return Dim3{blockDim.x, blockDim.y, blockDim.z}; }
KILN_JIT_FN Dim3 cg_grid_dim() { return Dim3{gridDim.x, gridDim.y, gridDim.z}; }
KILN_JIT_FN unsigned int cg_grid_block_rank() { return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x; }
KILN_JIT_FN unsigned int cg_grid_num_blocks() { return gridDim.x * gridDim.y * gridDim.z; }
KILN_JIT_FN unsigned long long cg_grid_thread_rank() {
  return static_cast<unsigned long long>(cg_grid_block_rank()) * cg_block_size() + cg_block_thread_rank();
}
KILN_JIT_FN unsigned long long cg_grid_size() { return static_cast<unsigned long long>(cg_grid_num_blocks()) * cg_block_size(); }
KILN_JIT_FN bool cg_grid_is_valid() { return true; }
KILN_JIT_FN void cg_memcpy_async(void* dst, const void* src, unsigned long long nbytes) {
  const unsigned long long rank = cg_block_thread_rank(), size = cg_block_size();
  if (((reinterpret_cast<unsigned long long>(dst) | reinterpret_cast<unsigned long long>(src) | nbytes) & 3ULL) == 0) {
    unsigned int* d = static_cast<unsigned int*>(dst);
    const unsigned int* s = static_cast<const unsigned int*>(src);
    for (unsigned long long i = rank; i < nbytes / 4; i += size) d[i] = s[i];
    return;
  }
  unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  for (unsigned long long i = rank; i < nbytes; i += size) d[i] = s[i];
}

// ---- warp shuffles (Note [Builtin dtypes]): CUDA's for its own types; a
// float16 moves its 16 bits, a complex its two parts ----
#define KILN_JIT_SHUFFLE(NAME, CUDA, LANE)                                                              \
  template <class T>                                                                                    \
  KILN_JIT_FN T NAME(unsigned mask, T v, LANE lane, int width) { return CUDA(mask, v, lane, width); }   \
  KILN_JIT_FN kiln::half NAME(unsigned mask, kiln::half v, LANE lane, int width) {                      \
    return kiln::half::from_bits(static_cast<unsigned short>(CUDA(mask, static_cast<unsigned>(v.bits()), lane, width))); \
  }                                                                                                     \
  template <class T>                                                                                    \
  KILN_JIT_FN kiln::complex<T> NAME(unsigned mask, kiln::complex<T> v, LANE lane, int width) {          \
    return kiln::complex<T>(CUDA(mask, v.real(), lane, width), CUDA(mask, v.imag(), lane, width));      \
  }
KILN_JIT_SHUFFLE(shfl_sync, __shfl_sync, int)
KILN_JIT_SHUFFLE(shfl_up_sync, __shfl_up_sync, unsigned)
KILN_JIT_SHUFFLE(shfl_down_sync, __shfl_down_sync, unsigned)
KILN_JIT_SHUFFLE(shfl_xor_sync, __shfl_xor_sync, int)
#undef KILN_JIT_SHUFFLE

// ---- atomics: every dtype the transpiler allows (Note [Builtin dtypes]) ----
#define KILN_JIT_ATOMIC(NAME, CUDA, T) \
  KILN_JIT_FN T NAME(T* p, T v) { return CUDA(p, v); }
#define KILN_JIT_ATOMIC_VIA_U64(NAME, CUDA)                                                            \
  KILN_JIT_FN long long NAME(long long* p, long long v) {                                              \
    return static_cast<long long>(CUDA(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v))); \
  }
KILN_JIT_ATOMIC(atomic_add, atomicAdd, int)
KILN_JIT_ATOMIC(atomic_add, atomicAdd, unsigned int)
KILN_JIT_ATOMIC(atomic_add, atomicAdd, unsigned long long)
KILN_JIT_ATOMIC(atomic_add, atomicAdd, float)
KILN_JIT_ATOMIC(atomic_add, atomicAdd, double)
KILN_JIT_ATOMIC_VIA_U64(atomic_add, atomicAdd)
// float16, complex and float64-exchange atomics (Note [Builtin dtypes]).
template <class Op>
KILN_JIT_FN kiln::half atomic_half_update(kiln::half* p, Op op) {
  unsigned short* word = reinterpret_cast<unsigned short*>(p);
  unsigned short old = *reinterpret_cast<volatile unsigned short*>(word), assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, op(kiln::half::from_bits(assumed)).bits());
  } while (old != assumed);
  return kiln::half::from_bits(old);
}
struct HalfAdd {
  kiln::half v;
  KILN_JIT_FN kiln::half operator()(kiln::half h) const { return kiln::half(static_cast<float>(h) + static_cast<float>(v)); }
};
struct HalfSet {
  kiln::half v;
  KILN_JIT_FN kiln::half operator()(kiln::half) const { return v; }
};
KILN_JIT_FN kiln::half atomic_add(kiln::half* p, kiln::half v) { return atomic_half_update(p, HalfAdd{v}); }
KILN_JIT_FN kiln::half atomic_exch(kiln::half* p, kiln::half v) { return atomic_half_update(p, HalfSet{v}); }
template <class T>
KILN_JIT_FN kiln::complex<T> atomic_add(kiln::complex<T>* p, kiln::complex<T> v) {
  T* parts = reinterpret_cast<T*>(p);
  const T re = atomicAdd(parts, v.real());
  const T im = atomicAdd(parts + 1, v.imag());
  return kiln::complex<T>(re, im);
}
KILN_JIT_FN double atomic_exch(double* p, double v) {
  return __longlong_as_double(static_cast<long long>(
      atomicExch(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(__double_as_longlong(v)))));
}
KILN_JIT_ATOMIC(atomic_sub, atomicSub, int)
KILN_JIT_ATOMIC(atomic_sub, atomicSub, unsigned int)
KILN_JIT_ATOMIC(atomic_exch, atomicExch, int)
KILN_JIT_ATOMIC(atomic_exch, atomicExch, unsigned int)
KILN_JIT_ATOMIC(atomic_exch, atomicExch, unsigned long long)
KILN_JIT_ATOMIC(atomic_exch, atomicExch, float)
KILN_JIT_ATOMIC_VIA_U64(atomic_exch, atomicExch)
KILN_JIT_ATOMIC(atomic_min, atomicMin, int)
KILN_JIT_ATOMIC(atomic_min, atomicMin, unsigned int)
KILN_JIT_ATOMIC(atomic_min, atomicMin, long long)
KILN_JIT_ATOMIC(atomic_min, atomicMin, unsigned long long)
KILN_JIT_ATOMIC(atomic_max, atomicMax, int)
KILN_JIT_ATOMIC(atomic_max, atomicMax, unsigned int)
KILN_JIT_ATOMIC(atomic_max, atomicMax, long long)
KILN_JIT_ATOMIC(atomic_max, atomicMax, unsigned long long)
KILN_JIT_ATOMIC(atomic_inc, atomicInc, unsigned int)
KILN_JIT_ATOMIC(atomic_dec, atomicDec, unsigned int)
KILN_JIT_ATOMIC(atomic_and, atomicAnd, int)
KILN_JIT_ATOMIC(atomic_and, atomicAnd, unsigned int)
KILN_JIT_ATOMIC(atomic_and, atomicAnd, unsigned long long)
KILN_JIT_ATOMIC_VIA_U64(atomic_and, atomicAnd)
KILN_JIT_ATOMIC(atomic_or, atomicOr, int)
KILN_JIT_ATOMIC(atomic_or, atomicOr, unsigned int)
KILN_JIT_ATOMIC(atomic_or, atomicOr, unsigned long long)
KILN_JIT_ATOMIC_VIA_U64(atomic_or, atomicOr)
KILN_JIT_ATOMIC(atomic_xor, atomicXor, int)
KILN_JIT_ATOMIC(atomic_xor, atomicXor, unsigned int)
KILN_JIT_ATOMIC(atomic_xor, atomicXor, unsigned long long)
KILN_JIT_ATOMIC_VIA_U64(atomic_xor, atomicXor)
#undef KILN_JIT_ATOMIC
#undef KILN_JIT_ATOMIC_VIA_U64
template <class T> KILN_JIT_FN T atomic_cas(T* p, T compare, T value) { return atomicCAS(p, compare, value); }
KILN_JIT_FN long long atomic_cas(long long* p, long long compare, long long value) {
  return static_cast<long long>(atomicCAS(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(compare),
                                          static_cast<unsigned long long>(value)));
}

}  // namespace jit
}  // namespace kiln
