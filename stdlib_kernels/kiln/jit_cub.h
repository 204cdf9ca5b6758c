// What kernels using kiln.jit.cub include (Note [kiln.jit.cub] in
// transpiler/cub.h): on CUDA, CUB's own collectives from the CCCL headers
// (runtime/cuda/cccl_include.h says where NVRTC finds them); on the host
// backend, a cub::WarpReduce and cub::BlockReduce with CUB's interface and
// CUB's order of operations, over shared memory and barriers; and on both the
// reduction operators kiln.jit.cub.Sum/Max/Min stand for.
//
//   __shared__ cub::WarpReduce<float>::TempStorage storage[1];
//   float total = cub::WarpReduce<float>(storage[0]).Sum(v);            // lane 0 holds the sum
//   int top = cub::BlockReduce<int, 256>(s[0]).Reduce(v, kiln::jit::CubMax{});  // thread 0 holds the max
#pragma once

#include "kiln/jit.h"
#include "kiln/ufunc_arith.h"

#if defined(__HIPCC__) || defined(__HIPCC_RTC__)
#include <hipcub/hipcub.hpp>
namespace cub = hipcub;
#elif defined(KILN_JIT_ON_DEVICE)
#if !__has_include(<cub/block/block_reduce.cuh>)
#error "kiln.jit.cub needs CUB (the CCCL headers), which kiln did not find: set KILN_CCCL_INCLUDE to the folder holding cub/ (Note [CCCL headers] in runtime/cuda/cccl_include.h)"
#endif
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#endif

namespace kiln {
namespace jit {

// The operators of jit.cub's Reduce: a + b in T (integers wrap, as NumPy's
// sums), and NumPy's maximum and minimum (NaN wins; complex numbers in
// NumPy's order), the same functors on every backend.
struct CubSum {
  template <class T> KILN_JIT_FN T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
struct CubMax {
  template <class T> KILN_JIT_FN T operator()(const T& a, const T& b) const { return kiln::ufn::maximum(a, b); }
};
struct CubMin {
  template <class T> KILN_JIT_FN T operator()(const T& a, const T& b) const { return kiln::ufn::minimum(a, b); }
};

}  // namespace jit
}  // namespace kiln

#if !defined(KILN_JIT_ON_DEVICE)
// Note [Host CUB collectives]
// Each thread stores its value in the TempStorage, a barrier (the warp's, or
// the block's) makes them visible, the first thread combines them in the
// order CUB's default algorithms do on the GPU (a warp: lane i takes lane
// i + d for d = 1, 2, 4, ..., CUB's shuffle-down tree; a block: that tree in
// each warp of 32, then the warps' totals from the first to the last, CUB's
// BLOCK_REDUCE_WARP_REDUCTIONS), so floating-point results match the GPU's,
// and a second barrier lets the storage be reused at once. The result is
// the aggregate in the first thread and the thread's own value elsewhere
// (CUB leaves those undefined). Every thread of the warp (block) must call.
namespace cub {
namespace kiln_host_detail {
inline unsigned linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
template <class T, class Op>
inline T tree(T* v, int n, Op op) {
  for (int d = 1; d < n; d *= 2)
    for (int i = 0; i + d < n; i += 2 * d) v[i] = op(v[i], v[i + d]);
  return v[0];
}
}  // namespace kiln_host_detail

template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "the host backend's WarpReduce takes logical warps of 1, 2, 4, ... 32 threads");

 public:
  struct TempStorage {
    T slot[LOGICAL_WARP_THREADS];
  };
  explicit WarpReduce(TempStorage& storage) : storage_(storage) {}
  T Sum(T input) { return Reduce(input, kiln::jit::CubSum{}); }
  template <class Op>
  T Reduce(T input, Op op) {
    const unsigned lane = kiln_host_detail::linear_tid() % LOGICAL_WARP_THREADS;
    const unsigned first = (kiln_host_detail::linear_tid() % 32u) - lane;  // the logical warp's first lane
    const unsigned mask = static_cast<unsigned>((1ull << LOGICAL_WARP_THREADS) - 1ull) << first;
    storage_.slot[lane] = input;
    __syncwarp(mask);
    T result = lane == 0 ? kiln_host_detail::tree(storage_.slot, LOGICAL_WARP_THREADS, op) : input;
    __syncwarp(mask);
    return result;
  }

 private:
  TempStorage& storage_;
};

template <class T, int BLOCK_DIM_X, int ALGORITHM = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {
    T slot[kThreads];
  };
  explicit BlockReduce(TempStorage& storage) : storage_(storage) {}
  T Sum(T input) { return Reduce(input, kiln::jit::CubSum{}); }
  template <class Op>
  T Reduce(T input, Op op) {
    const unsigned tid = kiln_host_detail::linear_tid();
    storage_.slot[tid] = input;
    __syncthreads();
    T result = input;
    if (tid == 0) {
      for (int w = 0; w < kThreads; w += 32) {
        const int n = kThreads - w < 32 ? kThreads - w : 32;
        const T warp_total = kiln_host_detail::tree(storage_.slot + w, n, op);
        result = w == 0 ? warp_total : op(result, warp_total);
      }
    }
    __syncthreads();
    return result;
  }

 private:
  TempStorage& storage_;
};

}  // namespace cub
#endif
