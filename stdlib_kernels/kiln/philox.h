// The Philox4x32-10 counter-based generator (Salmon, Moraes, Dror, Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11) and the draws built
// on it that kiln.random's generated kernels use. Integer arithmetic only up
// to the conversion to floating point, so every backend gives the same bits
// for the same (key, counter). Compiles under NVRTC, hiprtc and the host
// prelude (no SDK includes).
//
//   unsigned x[4] = {0, 0, 0, 0};
//   kiln::random::philox4x32_10(x, 0u, 0u);   // x = 6627e8d5 e169c58d bc57ac4c 9b00dbd8
//   kiln::random::Stream s(k0, k1, ctr_lo, ctr_hi, i);   // element i's own draws
//   double g = s.uniform_oo<double>();
//
// Note [Random counters]
// A generator's state is a 64-bit key and a 128-bit counter C (pyfrontend/
// kiln/random/_philox.py). A call that draws for U units (blocks of up to 4
// outputs, or single elements) gives unit e the counters C + e + d * 2^64,
// d = 0, 1, 2, ... (mod 2^128): d = 0 is its first block of 4 words, and a
// unit that needs more (rejection sampling) goes on to d = 1, 2, ... Then C
// advances by U. Units of one call never share a counter, and neither do
// calls, until 2^64 units have been drawn. Distributions that are a fixed
// map of their uniforms take 4 float or 2 double uniforms (2 or 1 pairs for
// Box-Muller normals) from one block: 4 outputs per Philox call.
#pragma once

#include "kiln/strided_index.h"  // KILN_DEVICE

namespace kiln {
namespace random {

// Philox4x32 with 10 rounds: x (the counter) becomes the 4 output words.
// __umulhi is the device's instruction, and the host prelude's 64-bit product.
KILN_DEVICE void philox4x32_10(unsigned x[4], unsigned k0, unsigned k1) {
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const unsigned hi0 = __umulhi(0xD2511F53u, x[0]), lo0 = 0xD2511F53u * x[0];
    const unsigned hi1 = __umulhi(0xCD9E8D57u, x[2]), lo1 = 0xCD9E8D57u * x[2];
    const unsigned y0 = hi1 ^ x[1] ^ k0, y2 = hi0 ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = lo1;
    x[2] = y2;
    x[3] = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

// The 4 words of block d of unit e (Note [Random counters]).
KILN_DEVICE void block(unsigned x[4], unsigned k0, unsigned k1, unsigned long long ctr_lo,
                       unsigned long long ctr_hi, unsigned long long e, unsigned long long d) {
  const unsigned long long lo = ctr_lo + e;
  const unsigned long long hi = ctr_hi + (lo < ctr_lo ? 1ull : 0ull) + d;
  x[0] = static_cast<unsigned>(lo);
  x[1] = static_cast<unsigned>(lo >> 32);
  x[2] = static_cast<unsigned>(hi);
  x[3] = static_cast<unsigned>(hi >> 32);
  philox4x32_10(x, k0, k1);
}

// Uniforms from words, exactly (the same bits on every backend):
// [0, 1) from the top 24 (float) or 53 (double) bits, and (0, 1) from the
// top 23 or 52 bits plus half a step, symmetric about 1/2.
template <class F> struct Uniform;
template <> struct Uniform<float> {
  static constexpr int kPerBlock = 4;   // uniforms per block of 4 words
  static KILN_DEVICE float co(const unsigned* w) { return static_cast<float>(w[0] >> 8) * 5.9604644775390625e-08f; }
  static KILN_DEVICE float oo(const unsigned* w) {
    return (static_cast<float>(w[0] >> 9) + 0.5f) * 1.1920928955078125e-07f;
  }
};
template <> struct Uniform<double> {
  static constexpr int kPerBlock = 2;
  static KILN_DEVICE unsigned long long bits(const unsigned* w) {
    return (static_cast<unsigned long long>(w[0]) << 32) | w[1];
  }
  static KILN_DEVICE double co(const unsigned* w) {
    return static_cast<double>(bits(w) >> 11) * 1.1102230246251565e-16;
  }
  static KILN_DEVICE double oo(const unsigned* w) {
    return (static_cast<double>(bits(w) >> 12) + 0.5) * 2.220446049250313e-16;
  }
};

// Fast math where the compiler has it (float), the accurate functions for
// double. Box-Muller angle in [-pi, pi): where __sincosf is accurate.
KILN_DEVICE float log_fast(float x) { return __logf(x); }
KILN_DEVICE double log_fast(double x) { return ::log(x); }
KILN_DEVICE void sincos_2pi(float u, float* s, float* c) { __sincosf(6.2831853071795865f * (u - 0.5f), s, c); }
KILN_DEVICE void sincos_2pi(double u, double* s, double* c) { ::sincospi(2.0 * u - 1.0, s, c); }

// Two standard normals from two (0, 1) uniforms (Box-Muller).
template <class F>
KILN_DEVICE void box_muller(F u1, F u2, F* z0, F* z1) {
  const F t = F(-2) * log_fast(u1);   // __logf's absolute error could make it negative near u1 = 1
  const F r = ::sqrt(t > F(0) ? t : F(0));
  F s, c;
  sincos_2pi(u2, &s, &c);
  *z0 = r * c;
  *z1 = r * s;
}

// Uniforms or normals of one block: kPerBlock of them.
template <class F>
KILN_DEVICE void uniforms_co(const unsigned x[4], F* u) {
#pragma unroll
  for (int k = 0; k < Uniform<F>::kPerBlock; ++k) u[k] = Uniform<F>::co(x + k * (4 / Uniform<F>::kPerBlock));
}
template <class F>
KILN_DEVICE void uniforms_oo(const unsigned x[4], F* u) {
#pragma unroll
  for (int k = 0; k < Uniform<F>::kPerBlock; ++k) u[k] = Uniform<F>::oo(x + k * (4 / Uniform<F>::kPerBlock));
}
template <class F>
KILN_DEVICE void normals(const unsigned x[4], F* z) {
  F u[Uniform<F>::kPerBlock];
  uniforms_oo<F>(x, u);
#pragma unroll
  for (int k = 0; k < Uniform<F>::kPerBlock; k += 2) box_muller(u[k], u[k + 1], &z[k], &z[k + 1]);
}

// Stores K outputs of unit `unit` at out[unit * K ...], clipped to n; one
// vector store when all K fit and the address is aligned.
template <class T, int K>
struct alignas(sizeof(T) * K > 16 ? 16 : sizeof(T) * K) Pack {
  T v[K];
};
template <class T, int K>
KILN_DEVICE void store(T* out, long long n, long long unit, const T* v) {
  const long long first = unit * K;
  T* p = out + first;
  if (first + K <= n && reinterpret_cast<unsigned long long>(p) % alignof(Pack<T, K>) == 0) {
    Pack<T, K> pack;
#pragma unroll
    for (int k = 0; k < K; ++k) pack.v[k] = v[k];
    *reinterpret_cast<Pack<T, K>*>(p) = pack;
    return;
  }
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (first + k < n) p[k] = v[k];
}

// One unit's sequence of words: block d = 0, 1, 2, ... of its counter.
struct Stream {
  unsigned k0, k1;
  unsigned long long ctr_lo, ctr_hi, unit, next_block;
  unsigned buf[4];
  int used;

  KILN_DEVICE Stream(unsigned key0, unsigned key1, unsigned long long lo, unsigned long long hi,
                     unsigned long long e)
      : k0(key0), k1(key1), ctr_lo(lo), ctr_hi(hi), unit(e), next_block(0), used(4) {}

  KILN_DEVICE unsigned next32() {
    if (used == 4) {
      block(buf, k0, k1, ctr_lo, ctr_hi, unit, next_block++);
      used = 0;
    }
    return buf[used++];
  }
  KILN_DEVICE unsigned long long next64() {
    const unsigned long long hi = next32();
    return (hi << 32) | next32();
  }
  // The words one uniform of F takes (one for float, two for double).
  template <class F>
  KILN_DEVICE void uniform_words(unsigned (&w)[2]) {
    w[0] = next32();
    if (Uniform<F>::kPerBlock == 2) w[1] = next32();
  }
  template <class F>
  KILN_DEVICE F uniform_co() {
    unsigned w[2];
    uniform_words<F>(w);
    return Uniform<F>::co(w);
  }
  template <class F>
  KILN_DEVICE F uniform_oo() {
    unsigned w[2];
    uniform_words<F>(w);
    return Uniform<F>::oo(w);
  }
  template <class F>
  KILN_DEVICE F normal() {
    const F u1 = uniform_oo<F>(), u2 = uniform_oo<F>();
    F z0, z1;
    box_muller(u1, u2, &z0, &z1);
    return z0;
  }
};

// A uniform integer in [0, m] (m + 1 values), without bias: Lemire's
// multiply-and-reject ("Fast random integer generation in an interval",
// 2019), 32-bit words when m < 2^32 - 1.
KILN_DEVICE unsigned long long bounded(Stream& s, unsigned long long m) {
  if (m == 0xFFFFFFFFFFFFFFFFull) return s.next64();
  if (m == 0xFFFFFFFFull) return s.next32();
  if (m < 0xFFFFFFFFull) {
    const unsigned r = static_cast<unsigned>(m) + 1u;
    unsigned long long prod = static_cast<unsigned long long>(s.next32()) * r;
    unsigned low = static_cast<unsigned>(prod);
    if (low < r) {
      const unsigned threshold = (0u - r) % r;   // 2^32 mod r
      while (low < threshold) {
        prod = static_cast<unsigned long long>(s.next32()) * r;
        low = static_cast<unsigned>(prod);
      }
    }
    return prod >> 32;
  }
  const unsigned long long r = m + 1ull;
  unsigned long long x = s.next64();
  unsigned long long low = x * r;
  if (low < r) {
    const unsigned long long threshold = (0ull - r) % r;   // 2^64 mod r
    while (low < threshold) {
      x = s.next64();
      low = x * r;
    }
  }
  return __umul64hi(x, r);
}

}  // namespace random
}  // namespace kiln
