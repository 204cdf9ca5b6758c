// The host prelude: what CUDA C++ needs to compile and run on the CPU. The
// host backend force-includes it (-include kiln/host_kernel.h) before the
// user's source; NVRTC and hiprtc never see it.
//
// Note [Threads as fibers]
// Each GPU thread of a block is a fiber of one worker thread. threadIdx and
// friends read the current fiber's ThreadInfo through `kiln_host::tls_thread`;
// every call that can switch fibers (barriers, warp operations) re-reads it
// afterwards. __shared__ variables are `static thread_local`: a worker runs
// one block at a time, so that is one copy per block in flight.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__)
#error "kiln/host_kernel.h is for the host C++ compiler only"
#endif

#include "kiln/host_libc.h"  // the C library without its integer typedefs (Note [Host prelude names])

#include "kiln/host_abi.h"

// ---- qualifiers ----
#define __global__
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

namespace kiln_host {
static const Services* services = nullptr;
static thread_local ThreadInfo* tls_thread = nullptr;
inline void refresh() { tls_thread = services->current_thread(); }
}  // namespace kiln_host

extern "C" __attribute__((used, visibility("default"))) int kiln_host_abi_version() {
  return kiln_host::kAbiVersion;
}
extern "C" __attribute__((used, visibility("default"))) void kiln_host_attach(const kiln_host::Services* s) {
  kiln_host::services = s;
}

// ---- indices ----
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
#include "kiln/host_vector_types.h"  // char1 ... double4, make_float2, ...
#define threadIdx (reinterpret_cast<const uint3&>(kiln_host::tls_thread->thread_idx))
#define blockIdx (reinterpret_cast<const uint3&>(kiln_host::tls_thread->block->block_idx))
#define blockDim (reinterpret_cast<const uint3&>(kiln_host::tls_thread->block->block_dim))
#define gridDim (reinterpret_cast<const uint3&>(kiln_host::tls_thread->block->grid_dim))
static constexpr int warpSize = kiln_host::kWarpSize;

// ---- barriers and warp operations ----
inline void __syncthreads() {
  kiln_host::services->sync_threads();
  kiln_host::refresh();
}
inline int __syncthreads_count(int p) {
  int r = kiln_host::services->sync_threads_reduce(p != 0, 0);
  kiln_host::refresh();
  return r;
}
inline int __syncthreads_and(int p) {
  int r = kiln_host::services->sync_threads_reduce(p != 0, 1);
  kiln_host::refresh();
  return r;
}
inline int __syncthreads_or(int p) {
  int r = kiln_host::services->sync_threads_reduce(p != 0, 2);
  kiln_host::refresh();
  return r;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  kiln_host::services->sync_warp(mask);
  kiln_host::refresh();
}
namespace kiln_host {
// cooperative_groups' grid.sync() (Note [Host grid barrier], runtime/host/cpu_scheduler.h).
inline void sync_grid() {
  services->sync_grid();
  refresh();
}
}  // namespace kiln_host
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

namespace kiln_host {
// Every lane's value after a warp barrier over `mask`; returns the lanes that
// took part (the live lanes of `mask`, the caller included).
inline unsigned gather(unsigned mask, unsigned long long v, unsigned long long* all) {
  unsigned participants = services->warp_gather(mask, v, all);
  refresh();
  return participants;
}
template <class T>
inline unsigned long long to_bits(T v) {
  static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(unsigned long long b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}
// src_lane: the lane to read within the caller's `width` segment.
template <class T>
inline T shuffle(unsigned mask, T v, int src_lane, int width) {
  unsigned long long all[kWarpSize];
  unsigned lane = tls_thread->lane;
  gather(mask, to_bits(v), all);
  unsigned base = lane & ~static_cast<unsigned>(width - 1);
  return from_bits<T>(all[base + (static_cast<unsigned>(src_lane) & (width - 1))]);
}
inline unsigned lane_id() { return tls_thread->lane; }
}  // namespace kiln_host

template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = warpSize) {
  return kiln_host::shuffle(mask, v, src, width);
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
  int lane = static_cast<int>(kiln_host::lane_id()) & (width - 1);
  int src = lane - static_cast<int>(delta);
  return kiln_host::shuffle(mask, v, src < 0 ? lane : src, width);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
  int lane = static_cast<int>(kiln_host::lane_id()) & (width - 1);
  int src = lane + static_cast<int>(delta);
  return kiln_host::shuffle(mask, v, src >= width ? lane : src, width);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = warpSize) {
  int lane = static_cast<int>(kiln_host::lane_id()) & (width - 1);
  int src = lane ^ lane_mask;
  return kiln_host::shuffle(mask, v, src >= width ? lane : src, width);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  unsigned long long all[kiln_host::kWarpSize];
  unsigned took_part = kiln_host::gather(mask, predicate != 0, all);
  unsigned bits = 0;
  for (int i = 0; i < kiln_host::kWarpSize; ++i)
    if ((took_part >> i & 1u) && all[i] != 0) bits |= 1u << i;
  return bits;
}
inline int __all_sync(unsigned mask, int p) {
  unsigned long long all[kiln_host::kWarpSize];
  unsigned took_part = kiln_host::gather(mask, p != 0, all);
  for (int i = 0; i < kiln_host::kWarpSize; ++i)
    if ((took_part >> i & 1u) && all[i] == 0) return 0;
  return 1;
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __uni_sync(unsigned mask, int p) {
  unsigned b = __ballot_sync(mask, p);
  return b == 0 || b == (mask & kiln_host::services->warp_live_mask());
}
// The lanes not exited: fibers cannot tell which lanes run converged.
inline unsigned __activemask() { return kiln_host::services->warp_live_mask(); }
inline unsigned __lanemask_lt() { return (1u << kiln_host::lane_id()) - 1u; }
inline unsigned __lanemask_le() { return (2u << kiln_host::lane_id()) - 1u; }
inline unsigned __lanemask_eq() { return 1u << kiln_host::lane_id(); }
inline unsigned __lanemask_gt() { return ~__lanemask_le(); }
inline unsigned __lanemask_ge() { return ~__lanemask_lt(); }
template <class T>
inline unsigned __match_any_sync(unsigned mask, T v) {
  unsigned long long all[kiln_host::kWarpSize];
  unsigned long long mine = kiln_host::to_bits(v);
  unsigned took_part = kiln_host::gather(mask, mine, all);
  unsigned bits = 0;
  for (int i = 0; i < kiln_host::kWarpSize; ++i)
    if ((took_part >> i & 1u) && all[i] == mine) bits |= 1u << i;
  return bits;
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T v, int* pred) {
  unsigned long long all[kiln_host::kWarpSize];
  unsigned long long mine = kiln_host::to_bits(v);
  unsigned took_part = kiln_host::gather(mask, mine, all);
  for (int i = 0; i < kiln_host::kWarpSize; ++i)
    if ((took_part >> i & 1u) && all[i] != mine) {
      *pred = 0;
      return 0;
    }
  *pred = 1;
  return took_part;
}
namespace kiln_host {
template <class T, class Op>
inline T warp_reduce(unsigned mask, T v, Op op) {
  unsigned long long all[kWarpSize];
  unsigned took_part = gather(mask, to_bits(v), all);
  bool first = true;
  T acc{};
  for (int i = 0; i < kWarpSize; ++i) {
    if (!(took_part >> i & 1u)) continue;
    T x = from_bits<T>(all[i]);
    acc = first ? x : op(acc, x);
    first = false;
  }
  return acc;
}
}  // namespace kiln_host
#define KILN_HOST_WARP_REDUCE(name, T, expr) \
  inline T name(unsigned mask, T v) { return kiln_host::warp_reduce(mask, v, [](T a, T b) { return expr; }); }
KILN_HOST_WARP_REDUCE(__reduce_add_sync, int, a + b)
KILN_HOST_WARP_REDUCE(__reduce_add_sync, unsigned, a + b)
KILN_HOST_WARP_REDUCE(__reduce_min_sync, int, b < a ? b : a)
KILN_HOST_WARP_REDUCE(__reduce_min_sync, unsigned, b < a ? b : a)
KILN_HOST_WARP_REDUCE(__reduce_max_sync, int, a < b ? b : a)
KILN_HOST_WARP_REDUCE(__reduce_max_sync, unsigned, a < b ? b : a)
KILN_HOST_WARP_REDUCE(__reduce_and_sync, unsigned, a & b)
KILN_HOST_WARP_REDUCE(__reduce_or_sync, unsigned, a | b)
KILN_HOST_WARP_REDUCE(__reduce_xor_sync, unsigned, a ^ b)
#undef KILN_HOST_WARP_REDUCE

// ---- atomics (real across worker threads) ----
#define KILN_HOST_INT_ATOMICS(T)                                                               \
  inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }          \
  inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }          \
  inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }        \
  inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }          \
  inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }            \
  inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }          \
  inline T atomicCAS(T* p, T expected, T desired) {                                             \
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return expected;                                                                            \
  }                                                                                             \
  inline T atomicMin(T* p, T v) {                                                               \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                               \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
    }                                                                                           \
    return old;                                                                                 \
  }                                                                                             \
  inline T atomicMax(T* p, T v) {                                                               \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                               \
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
    }                                                                                           \
    return old;                                                                                 \
  }
KILN_HOST_INT_ATOMICS(int)
KILN_HOST_INT_ATOMICS(unsigned int)
KILN_HOST_INT_ATOMICS(unsigned long long)
KILN_HOST_INT_ATOMICS(long long)
#undef KILN_HOST_INT_ATOMICS
inline unsigned short atomicCAS(unsigned short* p, unsigned short expected, unsigned short desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}

namespace kiln_host {
template <class F, class Op>
inline F atomic_float_update(F* p, Op op) {
  using Bits = std::conditional_t<sizeof(F) == 4, unsigned int, unsigned long long>;
  Bits* q = reinterpret_cast<Bits*>(p);
  Bits old = __atomic_load_n(q, __ATOMIC_RELAXED);
  for (;;) {
    F f;
    memcpy(&f, &old, sizeof(F));
    F g = op(f);
    Bits desired;
    memcpy(&desired, &g, sizeof(F));
    if (__atomic_compare_exchange_n(q, &old, desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return f;
  }
}
}  // namespace kiln_host
inline float atomicAdd(float* p, float v) {
  return kiln_host::atomic_float_update(p, [v](float f) { return f + v; });
}
inline double atomicAdd(double* p, double v) {
  return kiln_host::atomic_float_update(p, [v](double f) { return f + v; });
}
inline float atomicExch(float* p, float v) {
  return kiln_host::atomic_float_update(p, [v](float) { return v; });
}
inline float atomicMin(float* p, float v) {
  return kiln_host::atomic_float_update(p, [v](float f) { return fminf(f, v); });
}
inline float atomicMax(float* p, float v) {
  return kiln_host::atomic_float_update(p, [v](float f) { return fmaxf(f, v); });
}
inline unsigned int atomicInc(unsigned int* p, unsigned int limit) {
  unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1u, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}
inline unsigned int atomicDec(unsigned int* p, unsigned int limit) {
  unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0u || old > limit) ? limit : old - 1u, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch

// ---- math and bit intrinsics (CUDA's names over the C library) ----
template <class A, class B>
inline auto min(A a, B b) -> std::common_type_t<A, B> {
  return b < a ? b : a;
}
template <class A, class B>
inline auto max(A a, B b) -> std::common_type_t<A, B> {
  return a < b ? b : a;
}
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float sinpif(float x) { return sinf(static_cast<float>(M_PI) * x); }
inline float cospif(float x) { return cosf(static_cast<float>(M_PI) * x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
inline void sincospif(float x, float* s, float* c) { sincosf(static_cast<float>(M_PI) * x, s, c); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * static_cast<float>(M_SQRT1_2)); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; memcpy(&x, &f, 4); return x; }
inline float __uint_as_float(unsigned x) { float f; memcpy(&f, &x, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned x; memcpy(&x, &f, 4); return x; }
inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double d) { long long x; memcpy(&x, &d, 8); return x; }
inline int __float2int_rn(float x) { return static_cast<int>(nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(ceilf(x)); }
inline int __double2int_rn(double x) { return static_cast<int>(nearbyint(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
inline int __mul24(int a, int b) { return (a << 8 >> 8) * (b << 8 >> 8); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return static_cast<long long>((static_cast<__int128>(a) * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
template <class T>
inline T __ldg(const T* p) { return *p; }
#if defined(__x86_64__) || defined(__i386__)
inline long long clock64() { return static_cast<long long>(__builtin_ia32_rdtsc()); }
#else
inline long long clock64() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}
#endif
inline void __nanosleep(unsigned) {}

#include "kiln/host_math.h"  // the rest of the math and integer intrinsics

// ---- failures: assert() and __trap() end the launch with a message ----
namespace kiln_host {
[[noreturn]] inline void fail_with(const char* what, const char* file, unsigned line, const char* func) {
  char message[512];
  const ThreadInfo* t = tls_thread;
  snprintf(message, sizeof message, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] %s", file, line,
           func, t->block->block_idx.x, t->block->block_idx.y, t->block->block_idx.z, t->thread_idx.x,
           t->thread_idx.y, t->thread_idx.z, what);
  services->fail(message);
  __builtin_unreachable();
}
}  // namespace kiln_host
// glibc's assert() calls __assert_fail; the module is linked -Bsymbolic so
// this definition, not libc's abort, is the one its asserts reach.
extern "C" __attribute__((used, visibility("default"))) void __assert_fail(
    const char* expr, const char* file, unsigned int line, const char* func) noexcept {
  char what[320];
  snprintf(what, sizeof what, "Assertion `%s` failed.", expr);
  kiln_host::fail_with(what, file, line, func);
}
#define __trap() kiln_host::fail_with("trap: __trap() called", __FILE__, __LINE__, __func__)
#define __brkpt() __trap()

// ---- kernel registration (the backend appends a table of these) ----
namespace kiln_host {
// What param_info reports for a class type: kUnknown unless a header
// specialises this, e.g. kiln's complex and half types:
//   template <> struct param_kind<complex<float>> { static constexpr unsigned char value = kComplex; };
// (the kernel table is generated after the user's source, so any header the
// source includes can do this).
template <class T>
struct param_kind {
  static constexpr unsigned char value = kUnknown;
};
template <class T>
constexpr unsigned char kind_of() {
  using U = std::remove_cv_t<std::remove_reference_t<T>>;
  if constexpr (std::is_pointer_v<U>) return kPointer;
  else if constexpr (std::is_same_v<U, bool>) return kBool;
  else if constexpr (std::is_floating_point_v<U>) return kFloat;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return kSigned;
  else if constexpr (std::is_integral_v<U>) return kUnsigned;
  else return param_kind<U>::value;
}
template <class... A>
struct Signature {
  static constexpr unsigned sizes[sizeof...(A) + 1] = {static_cast<unsigned>(sizeof(A))..., 0u};
  static constexpr unsigned char kinds[sizeof...(A) + 1] = {kind_of<A>()..., 0};
  template <size_t... I>
  static void call(void (*f)(A...), void** args, std::index_sequence<I...>) {
    f(*static_cast<std::remove_reference_t<A>*>(args[I])...);
  }
  static void invoke(void* fn, void** args) {
    call(reinterpret_cast<void (*)(A...)>(fn), args, std::index_sequence_for<A...>{});
  }
};
template <class... A>
KernelEntry make_entry(const char* name, void (*f)(A...)) {
  using S = Signature<A...>;
  return KernelEntry{name, reinterpret_cast<void*>(f), &S::invoke, sizeof...(A), S::sizes, S::kinds};
}
inline void* dynamic_shared() { return services->dynamic_shared(); }
}  // namespace kiln_host

// Runs one GPU thread of `entry` (a fiber's whole life).
extern "C" __attribute__((used, visibility("default"))) void kiln_host_run_thread(
    const kiln_host::KernelEntry* entry, void** args) {
  kiln_host::refresh();
  entry->invoke(entry->fn, args);
}
