// Device-side helpers of the reduction engine (arraycore/reduction.cpp writes
// the kernels): order-preserving warp and block reductions over any
// trivially copyable accumulator type, through 32-bit warp shuffles.
//
//   struct Op { typedef float T; static KILN_DEVICE T identity(); static KILN_DEVICE T combine(const T&, const T&); };
//   float v = kiln::warp_reduce<Op>(x);    // lane 0: x0 op x1 op ... op x31, in lane order
//   float w = kiln::block_reduce<Op>(x);   // thread 0: the same over the block (blockDim.x % 32 == 0)
//
// Both keep the operands in thread order (combine(a, b): a from the lower
// threads), so an order-sensitive combine such as maximum, which returns its
// first argument when it is NaN, gives the first NaN.
#pragma once

#include "kiln/strided_index.h"

namespace kiln {

// The accumulator of argmax-style reductions: a value and its position (`_j`
// of the map expression, Note [Reduction kernels]).
template <class T>
struct ValueIndex {
  T value;
  long long index;
};

// Sixteen bytes loaded as one (an LDG.128 on a GPU): the vector loads of
// Note [Reduction vector loads] (arraycore/reduction.cpp).
struct alignas(16) Vec16 {
  unsigned long long w[2];
};

// Element v of a Vec16 read as T (sizeof(T) * (v + 1) <= 16). Host
// compilers turn a byte copy into a register move; NVCC and NVRTC do not
// (they assembled each float from its four bytes: 6 instructions an element
// of a float sum), so on GPUs the copy goes in the widest units that divide
// sizeof(T).
template <class T>
KILN_DEVICE T vec_element(const Vec16& w, int v) {
  T r;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  if constexpr (sizeof(T) % 4 == 0) {
    const unsigned* src = reinterpret_cast<const unsigned*>(&w) + v * (sizeof(T) / 4);
    unsigned* dst = reinterpret_cast<unsigned*>(&r);
    for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k) dst[k] = src[k];
    return r;
  } else if constexpr (sizeof(T) == 2) {
    *reinterpret_cast<unsigned short*>(&r) = reinterpret_cast<const unsigned short*>(&w)[v];
    return r;
  }
#endif
  const unsigned char* src = reinterpret_cast<const unsigned char*>(&w) + v * sizeof(T);
  unsigned char* dst = reinterpret_cast<unsigned char*>(&r);
  for (int k = 0; k < static_cast<int>(sizeof(T)); ++k) dst[k] = src[k];
  return r;
}

// Element v of a Vec16 set to x: vec_element's inverse, in the same units.
template <class T>
KILN_DEVICE void vec_set(Vec16& w, int v, const T& x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  if constexpr (sizeof(T) % 4 == 0) {
    const unsigned* src = reinterpret_cast<const unsigned*>(&x);
    unsigned* dst = reinterpret_cast<unsigned*>(&w) + v * (sizeof(T) / 4);
    for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k) dst[k] = src[k];
    return;
  } else if constexpr (sizeof(T) == 2) {
    reinterpret_cast<unsigned short*>(&w)[v] = *reinterpret_cast<const unsigned short*>(&x);
    return;
  }
#endif
  const unsigned char* src = reinterpret_cast<const unsigned char*>(&x);
  unsigned char* dst = reinterpret_cast<unsigned char*>(&w) + v * sizeof(T);
  for (int k = 0; k < static_cast<int>(sizeof(T)); ++k) dst[k] = src[k];
}

// __shfl_down_sync for any trivially copyable T (half, complex<double>, bool):
// the value moves as 32-bit words.
template <class T>
KILN_DEVICE T shfl_down_any(const T& v, unsigned delta) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned words[kWords] = {};   // every byte defined: an undefined one may poison the word (Note [Row-fused plans])
  unsigned char* w = reinterpret_cast<unsigned char*>(words);
  const unsigned char* src = reinterpret_cast<const unsigned char*>(&v);
  for (int k = 0; k < static_cast<int>(sizeof(T)); ++k) w[k] = src[k];
  for (int k = 0; k < kWords; ++k) words[k] = __shfl_down_sync(0xffffffffu, words[k], delta);
  T r = v;
  unsigned char* dst = reinterpret_cast<unsigned char*>(&r);
  for (int k = 0; k < static_cast<int>(sizeof(T)); ++k) dst[k] = w[k];
  return r;
}

// Lane 0 gets v0 op v1 op ... op v31 bracketed as a balanced tree in lane
// order: step d combines lane l (a multiple of 2d) with lane l + d. Every
// lane of the warp must call it. Other lanes' results are unspecified.
template <class Op>
KILN_DEVICE typename Op::T warp_reduce(typename Op::T v) {
  for (unsigned d = 1; d < 32; d <<= 1) {
    typename Op::T other = shfl_down_any(v, d);
    v = Op::combine(v, other);
  }
  return v;
}

// Thread 0 gets the block's values combined in thread order: each warp
// reduces, warp 0 reduces the warps' results. Every thread of the block must
// call it; blockDim.x is a multiple of 32, at most 1024. Safe to call
// repeatedly in one kernel (the shared buffer is fenced on entry).
template <class Op>
KILN_DEVICE typename Op::T block_reduce(typename Op::T v) {
  typedef typename Op::T T;
  __shared__ __align__(16) unsigned char buffer[32 * sizeof(T)];
  T* partial = reinterpret_cast<T*>(buffer);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = warp_reduce<Op>(v);
  __syncthreads();   // an earlier call's readers are done with the buffer
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? partial[lane] : Op::identity();
    v = warp_reduce<Op>(v);
  }
  return v;
}

// Byte offsets of element j of the reduced dimensions in each operand; one
// multiplication when they collapsed to one dimension (the common case).
template <int N>
KILN_DEVICE void reduced_offsets(const Layout<N>& r, long long j, long long (&off)[N]) {
  if (r.ndim == 1) {
    for (int k = 0; k < N; ++k) off[k] = j * r.strides[k][0];
  } else {
    r.offsets(j, off);
  }
}

}  // namespace kiln
