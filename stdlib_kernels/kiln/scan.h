// Device side of the scan engine (arraycore/scan.cpp): the block-level
// inclusive scan of one tile of a row, and the pass adding tile prefixes.
//
//   struct Op { __device__ T operator()(T a, T b) const { return kiln::ufn::add(a, b); } };
//   kiln::scan::tiles<T, 256, 4>(Op{}, load, store, m, n, ntiles, totals, warp_rows);
//
// Note [Scan tiles]
// A block of B threads scans a tile of B * I consecutive elements of a row:
// each thread folds its I elements sequentially, the warps scan the thread
// totals with shuffles (Hillis-Steele over 32 lanes), one thread scans the
// B / 32 warp totals sequentially in shared memory, and each thread combines
// its prefix into its I results. With warp_rows set, each warp serves a row
// of its own instead (rows of at most 32 * I elements: a block serves B / 32
// rows). Operands are always combined in order, op(earlier, later), so an
// operator that is associative but not commutative is scanned right. Past a
// row's end, items hold a copy of the tile's first element: never stored,
// they only keep the arithmetic on real values.
#pragma once

namespace kiln {
namespace scan {

// Byte copy that compiles everywhere (NVRTC has no __builtin_memcpy);
// compilers keep it in registers.
__device__ inline void copy_bytes(void* to, const void* from, unsigned long long n) {
  unsigned char* d = static_cast<unsigned char*>(to);
  const unsigned char* s = static_cast<const unsigned char*>(from);
  for (unsigned long long k = 0; k < n; ++k) d[k] = s[k];
}

// A warp shuffle of any trivially copyable T, moved as 32-bit words.
template <class T>
__device__ inline T shfl_up(T v, unsigned delta) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned int w[kWords] = {};
  copy_bytes(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < kWords; ++k) w[k] = __shfl_up_sync(0xffffffffu, w[k], delta);
  T r;
  copy_bytes(&r, w, sizeof(T));
  return r;
}

template <class T>
__device__ inline T shfl(T v, int src) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned int w[kWords] = {};
  copy_bytes(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < kWords; ++k) w[k] = __shfl_sync(0xffffffffu, w[k], src);
  T r;
  copy_bytes(&r, w, sizeof(T));
  return r;
}

// Inclusive scan of v over the 32 lanes of the calling warp (all lanes call).
template <class T, class Op>
__device__ inline T warp_inclusive(T v, Op op) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    T u = shfl_up(v, d);
    if (lane >= d) v = op(u, v);
  }
  return v;
}

// Note [Scan tiles]. load(r, j) reads element j of row r as T; store(r, j, v)
// writes it. Jobs: rows (groups of B / 32 with warp_rows) or (row, tile)
// pairs, over a grid-stride loop. totals (nullptr when ntiles == 1) gets
// each tile's total at [r * ntiles + t].
template <class T, int B, int I, class Op, class Load, class Store>
__device__ void tiles(Op op, Load load, Store store, long long m, long long n, long long ntiles, T* totals,
                      int warp_rows) {
  constexpr int kWarps = B / 32;
  __shared__ unsigned long long raw[(kWarps * sizeof(T) + 7) / 8];
  T* warp_total = reinterpret_cast<T*>(raw);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x / 32;
  const long long jobs = warp_rows ? (m + kWarps - 1) / kWarps : m * ntiles;
  for (long long job = blockIdx.x; job < jobs; job += gridDim.x) {
    long long r, start, count;   // this thread's row, first element, element count
    int span_start;              // first thread index of the span scanned together
    if (warp_rows) {
      r = job * kWarps + warp;
      start = (long long)lane * I;
      span_start = warp * 32;
    } else {
      r = job / ntiles;
      const long long t = job - r * ntiles;
      start = t * ((long long)B * I) + (long long)threadIdx.x * I;
      span_start = 0;
    }
    const bool row_ok = r < m;
    count = row_ok ? n - start : 0;
    count = count < 0 ? 0 : (count > I ? I : count);
    const long long first = warp_rows ? 0 : start - (long long)(threadIdx.x - span_start) * I;
    T v[I];
    const T fill = row_ok ? load(r, first) : T();
#pragma unroll
    for (int k = 0; k < I; ++k) v[k] = k < count ? load(r, start + k) : fill;
#pragma unroll
    for (int k = 1; k < I; ++k) v[k] = op(v[k - 1], v[k]);
    T total = v[0];
#pragma unroll
    for (int k = 1; k < I; ++k)
      if (k < count) total = v[k];
    // Lanes holding elements are a prefix of the span: a lane's inclusive
    // scan takes in real totals only, and the span's total is its last
    // such lane's.
    const T incl = warp_inclusive(total, op);
    T prefix = shfl_up(incl, 1);
    bool has_prefix = lane > 0;
    if (!warp_rows) {
      const long long tile_start = first;
      const long long in_tile = n - tile_start;   // elements of this tile (> 0)
      const int used = (int)((in_tile + I - 1) / I < B ? (in_tile + I - 1) / I : B);   // threads with elements
      const int last_lane_of_warp = warp == (used - 1) / 32 ? (used - 1) % 32 : 31;
      const T wtotal = shfl(incl, last_lane_of_warp);
      if (lane == 0) warp_total[warp] = wtotal;
      __syncthreads();
      if (threadIdx.x == 0) {
        const int warps_used = (used + 31) / 32;
        for (int w = 1; w < warps_used; ++w) warp_total[w] = op(warp_total[w - 1], warp_total[w]);
        if (totals != nullptr) totals[job] = warp_total[warps_used - 1];
      }
      __syncthreads();
      if (warp > 0) {
        prefix = has_prefix ? op(warp_total[warp - 1], prefix) : warp_total[warp - 1];
        has_prefix = true;
      }
    }
    if (has_prefix) {
#pragma unroll
      for (int k = 0; k < I; ++k) v[k] = op(prefix, v[k]);
    }
#pragma unroll
    for (int k = 0; k < I; ++k)
      if (k < count) store(r, start + k, v[k]);
    if (!warp_rows) __syncthreads();   // warp_total is reused by the next job
  }
}

}  // namespace scan
}  // namespace kiln
