// CUB's block and warp collectives for the host backend: what
// <cub/block/block_reduce.cuh>, <cub/block/block_scan.cuh>,
// <cub/warp/warp_reduce.cuh> and <cub/warp/warp_scan.cuh> give a host
// kernel (stdlib_kernels/host_cuda/cub/; NVRTC reads the CCCL headers).
// cub::WarpReduce and cub::BlockReduce are kiln.jit.cub's host collectives
// (kiln/jit_cub.h, Note [Host CUB collectives]); this adds cub::WarpScan and
// cub::BlockScan with CUB's interface, CUB's algorithm enums (any choice runs
// the same code here) and CUB's operator names.
//
//   typedef cub::BlockScan<int, 128> Scan;
//   __shared__ Scan::TempStorage storage;
//   int prefix, total;
//   Scan(storage).ExclusiveSum(x[threadIdx.x], prefix, total);   // total: the block's sum, in every thread
//
// Note [Host CUB scans]
// Every thread stores its item in the TempStorage, a barrier (the logical
// warp's, or the block's) makes them visible, the first thread scans them in
// place, and after a second barrier each thread reads its result; a third
// lets the storage be reused at once. The warp scan combines in the order of
// CUB's shuffle scan on the GPU (Kogge-Stone: lane i takes lane i - d for
// d = 1, 2, 4, ...), so its floating-point results are the GPU's; the block
// scan combines from the first thread to the last, which for floating-point
// sums may differ from the GPU's raking order in the last bits (integers are
// exact). An exclusive scan with an initial value gives init in the first
// thread and op(init, inclusive of the thread before) elsewhere, as CUB
// computes it; without one, the first thread's output is its own input (CUB
// leaves it undefined). Aggregates leave the initial value out, as CUB's.
// Every thread of the warp (block) must call.
#pragma once

#include "kiln/jit_cub.h"

namespace cub {

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

// CUB 2's operator functors (CCCL 3 spells them cuda::std::plus<>,
// cuda::maximum<>, cuda::minimum<>: below).
struct Sum {
  template <class T> T operator()(const T& a, const T& b) const { return a + b; }
};
struct Max {
  template <class T> T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <class T> T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

namespace kiln_host_detail {

// Inclusive scan of n values in place, Kogge-Stone (CUB's warp order).
template <class T, class Op>
inline void kogge_stone(T* v, int n, Op op) {
  for (int d = 1; d < n; d *= 2)
    for (int i = n - 1; i >= d; --i) v[i] = op(v[i - d], v[i]);
}
// Inclusive scan of n values in place, from the first to the last.
template <class T, class Op>
inline void sequential(T* v, int n, Op op) {
  for (int i = 1; i < n; ++i) v[i] = op(v[i - 1], v[i]);
}

// One scan of a group of n threads over `slot` (Note [Host CUB scans]);
// `barrier` is the group's. The thread's inclusive result, its exclusive one
// (with init if has_init) and the aggregate.
template <class T, class Op, class Barrier, class Scan>
inline void group_scan(T* slot, int n, int me, T input, Op op, bool has_init, const T& init, T* inclusive,
                       T* exclusive, T* aggregate, Barrier barrier, Scan scan) {
  slot[me] = input;
  barrier();
  if (me == 0) scan(slot, n, op);
  barrier();
  const T incl = slot[me];
  if (inclusive) *inclusive = incl;
  if (exclusive) *exclusive = me == 0 ? (has_init ? init : input) : (has_init ? op(init, slot[me - 1]) : slot[me - 1]);
  if (aggregate) *aggregate = slot[n - 1];
  barrier();
}

}  // namespace kiln_host_detail

#define KILN_CUB_SCAN_METHODS                                                                                \
  void InclusiveSum(T input, T& output) { run(input, Sum{}, false, T(), &output, nullptr, nullptr); }       \
  void InclusiveSum(T input, T& output, T& aggregate) { run(input, Sum{}, false, T(), &output, nullptr, &aggregate); } \
  void ExclusiveSum(T input, T& output) { run(input, Sum{}, true, T(0), nullptr, &output, nullptr); }       \
  void ExclusiveSum(T input, T& output, T& aggregate) { run(input, Sum{}, true, T(0), nullptr, &output, &aggregate); } \
  template <class Op> void InclusiveScan(T input, T& output, Op op) { run(input, op, false, T(), &output, nullptr, nullptr); } \
  template <class Op> void InclusiveScan(T input, T& output, Op op, T& aggregate) {                           \
    run(input, op, false, T(), &output, nullptr, &aggregate);                                                 \
  }                                                                                                           \
  template <class Op> void ExclusiveScan(T input, T& output, T init, Op op) {                                 \
    run(input, op, true, init, nullptr, &output, nullptr);                                                    \
  }                                                                                                           \
  template <class Op> void ExclusiveScan(T input, T& output, T init, Op op, T& aggregate) {                   \
    run(input, op, true, init, nullptr, &output, &aggregate);                                                 \
  }                                                                                                           \
  template <class Op> void ExclusiveScan(T input, T& output, Op op) { run(input, op, false, T(), nullptr, &output, nullptr); } \
  template <class Op> void ExclusiveScan(T input, T& output, Op op, T& aggregate) {                           \
    run(input, op, false, T(), nullptr, &output, &aggregate);                                                 \
  }

template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpScan {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "the host backend's WarpScan takes logical warps of 1, 2, 4, ... 32 threads");

 public:
  struct TempStorage {
    T slot[LOGICAL_WARP_THREADS];
  };
  explicit WarpScan(TempStorage& storage) : storage_(storage) {}
  KILN_CUB_SCAN_METHODS

 private:
  template <class Op>
  void run(T input, Op op, bool has_init, const T& init, T* inclusive, T* exclusive, T* aggregate) {
    const unsigned lane = kiln_host_detail::linear_tid() % LOGICAL_WARP_THREADS;
    const unsigned first = (kiln_host_detail::linear_tid() % 32u) - lane;
    const unsigned mask = static_cast<unsigned>((1ull << LOGICAL_WARP_THREADS) - 1ull) << first;
    kiln_host_detail::group_scan(storage_.slot, LOGICAL_WARP_THREADS, static_cast<int>(lane), input, op, has_init, init,
                                 inclusive, exclusive, aggregate, [mask] { __syncwarp(mask); },
                                 [](T* v, int n, Op o) { kiln_host_detail::kogge_stone(v, n, o); });
  }
  TempStorage& storage_;
};

template <class T, int BLOCK_DIM_X, int ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockScan {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {
    T slot[kThreads];
  };
  explicit BlockScan(TempStorage& storage) : storage_(storage) {}
  KILN_CUB_SCAN_METHODS

  // ITEMS_PER_THREAD consecutive items per thread (thread t holds items
  // t * ITEMS_PER_THREAD ...): scanned as one sequence.
  template <int N> void InclusiveSum(T (&input)[N], T (&output)[N]) { InclusiveScan(input, output, Sum{}); }
  template <int N> void ExclusiveSum(T (&input)[N], T (&output)[N]) { ExclusiveScan(input, output, T(0), Sum{}); }
  template <int N, class Op>
  void InclusiveScan(T (&input)[N], T (&output)[N], Op op) {
    T partial = input[0];
    for (int i = 1; i < N; ++i) partial = op(partial, input[i]);
    T prefix;
    run(partial, op, false, T(), nullptr, &prefix, nullptr);
    const bool first = kiln_host_detail::linear_tid() == 0;
    for (int i = 0; i < N; ++i) output[i] = i == 0 ? (first ? input[0] : op(prefix, input[0])) : op(output[i - 1], input[i]);
  }
  template <int N, class Op>
  void ExclusiveScan(T (&input)[N], T (&output)[N], T init, Op op) {
    T partial = input[0];
    for (int i = 1; i < N; ++i) partial = op(partial, input[i]);
    T prefix;
    run(partial, op, true, init, nullptr, &prefix, nullptr);
    for (int i = 0; i < N; ++i) {
      const T item = input[i];
      output[i] = prefix;
      prefix = op(prefix, item);
    }
  }

 private:
  template <class Op>
  void run(T input, Op op, bool has_init, const T& init, T* inclusive, T* exclusive, T* aggregate) {
    kiln_host_detail::group_scan(storage_.slot, kThreads, static_cast<int>(kiln_host_detail::linear_tid()), input, op,
                                 has_init, init, inclusive, exclusive, aggregate, [] { __syncthreads(); },
                                 [](T* v, int n, Op o) { kiln_host_detail::sequential(v, n, o); });
  }
  TempStorage& storage_;
};

#undef KILN_CUB_SCAN_METHODS

}  // namespace cub

// CCCL 3's spellings of the operators.
namespace cuda {
namespace std {
template <class T = void> struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
template <> struct plus<void> {
  template <class T> T operator()(const T& a, const T& b) const { return a + b; }
};
}  // namespace std
template <class T = void> struct maximum {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <> struct maximum<void> {
  template <class T> T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T = void> struct minimum {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <> struct minimum<void> {
  template <class T> T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
}  // namespace cuda
