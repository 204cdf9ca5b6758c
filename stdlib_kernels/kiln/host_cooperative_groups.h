// cooperative_groups for the host backend (what <cooperative_groups.h> and
// <cooperative_groups/reduce.h> give a host kernel; NVRTC reads the CUDA
// toolkit's own): thread blocks, tiles of a warp, coalesced groups and the
// grid, with their barriers and the tiles' warp collectives.
//
//   namespace cg = cooperative_groups;
//   cg::thread_block block = cg::this_thread_block();
//   cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
//   float v = x[block.thread_rank()];
//   for (int d = warp.size() / 2; d > 0; d /= 2) v += warp.shfl_down(v, d);
//   cg::grid_group grid = cg::this_grid();
//   grid.sync();     // every thread of the grid: needs enable_cooperative_groups=True
//
// A tile's operations are the warp intrinsics over the tile's lanes (a mask
// of its Size lanes, shuffles of width Size); grid.sync() is the runtime's
// grid barrier (Note [Host grid barrier], runtime/host/cpu_scheduler.h),
// which fails the launch when the grid has several blocks and the launch is
// not cooperative. grid_group::is_valid() is true.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__)
#error "kiln/host_cooperative_groups.h is for the host backend; NVRTC reads the CUDA toolkit's <cooperative_groups.h>"
#endif

namespace cooperative_groups {
namespace details {
inline unsigned long long block_rank() {
  return blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
}
inline unsigned block_thread_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace details

class thread_group {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long size() const { return details::block_threads(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const { return details::block_thread_rank(); }
  bool is_valid() const { return true; }
};

class thread_block : public thread_group {
 public:
  static void sync() { __syncthreads(); }
  static unsigned size() { return details::block_threads(); }
  static unsigned num_threads() { return details::block_threads(); }
  static unsigned thread_rank() { return details::block_thread_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static dim3 dim_threads() { return group_dim(); }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
 public:
  static void sync() { kiln_host::sync_grid(); }
  static bool is_valid() { return true; }
  static unsigned long long num_blocks() {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
  }
  static unsigned long long size() { return num_blocks() * details::block_threads(); }
  static unsigned long long num_threads() { return size(); }
  static unsigned long long thread_rank() {
    return details::block_rank() * details::block_threads() + details::block_thread_rank();
  }
  static unsigned long long block_rank() { return details::block_rank(); }
  static dim3 group_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static dim3 dim_blocks() { return group_dim(); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};
inline grid_group this_grid() { return grid_group(); }

// Size consecutive threads of a warp (Size 1, 2, 4, ... 32).
template <unsigned Size, class Parent = void>
class thread_block_tile {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0, "tiles of 1, 2, 4, 8, 16 or 32 threads");

 public:
  static unsigned mask() {
    const unsigned base = (details::block_thread_rank() % 32u) / Size * Size;
    return (Size == 32 ? 0xffffffffu : ((1u << Size) - 1u)) << base;
  }
  static void sync() { __syncwarp(mask()); }
  static unsigned size() { return Size; }
  static unsigned num_threads() { return Size; }
  static unsigned thread_rank() { return details::block_thread_rank() % Size; }
  static unsigned meta_group_rank() { return details::block_thread_rank() / Size; }
  static unsigned meta_group_size() { return (details::block_threads() + Size - 1) / Size; }
  static bool is_valid() { return true; }
  template <class T> static T shfl(T v, int src) { return __shfl_sync(mask(), v, src, Size); }
  template <class T> static T shfl_down(T v, unsigned delta) { return __shfl_down_sync(mask(), v, delta, Size); }
  template <class T> static T shfl_up(T v, unsigned delta) { return __shfl_up_sync(mask(), v, delta, Size); }
  template <class T> static T shfl_xor(T v, unsigned lane_mask) { return __shfl_xor_sync(mask(), v, lane_mask, Size); }
  static int any(int p) { return __any_sync(mask(), p); }
  static int all(int p) { return __all_sync(mask(), p); }
  static unsigned ballot(int p) { return __ballot_sync(mask(), p) >> ((details::block_thread_rank() % 32u) / Size * Size); }
  template <class T> static unsigned match_any(T v) {
    return __match_any_sync(mask(), v) >> ((details::block_thread_rank() % 32u) / Size * Size);
  }
};

template <unsigned Size, class Parent>
thread_block_tile<Size> tiled_partition(const Parent&) {
  return thread_block_tile<Size>();
}

// The lanes of the warp that have not exited (fibers cannot tell which run
// converged: __activemask in kiln/host_kernel.h).
class coalesced_group {
 public:
  explicit coalesced_group(unsigned m) : mask_(m) {}
  void sync() const { __syncwarp(mask_); }
  unsigned size() const { return static_cast<unsigned>(__popc(mask_)); }
  unsigned num_threads() const { return size(); }
  unsigned thread_rank() const { return static_cast<unsigned>(__popc(mask_ & __lanemask_lt())); }
  bool is_valid() const { return true; }
  int any(int p) const { return __any_sync(mask_, p); }
  int all(int p) const { return __all_sync(mask_, p); }
  unsigned ballot(int p) const { return __ballot_sync(mask_, p); }

 private:
  unsigned mask_;
};
inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <class Group> void sync(const Group& g) { g.sync(); }
template <class Group> unsigned long long thread_rank(const Group& g) { return g.thread_rank(); }
template <class Group> unsigned long long group_size(const Group& g) { return g.size(); }

// <cooperative_groups/reduce.h>: every thread of the tile gets op over the
// tile's values, combined by a butterfly of shfl_xor (each lane the same).
template <class T> struct plus { T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(const T& a, const T& b) const { return a ^ b; } };
template <unsigned Size, class Parent, class T, class Op>
T reduce(const thread_block_tile<Size, Parent>& tile, T v, Op op) {
  for (unsigned d = Size / 2; d > 0; d /= 2) v = op(v, tile.shfl_xor(v, d));
  return v;
}

}  // namespace cooperative_groups
