// Device side of the sort engine (arraycore/sort.cpp): order-preserving
// radix digits per dtype, the histogram of every digit, and one onesweep
// pass (block-local ranking, decoupled look-back, coalesced scatter).
//
//   struct Digit { __device__ unsigned operator()(unsigned k, int byte) const {
//     return kiln::sort::byte_of(kiln::sort::order_f32(k), byte); } };
//   kiln::sort::histogram<unsigned, 256, 4>(Digit{}, keys, n, hist);
//   kiln::sort::onesweep<unsigned, true, 256, 15>(Digit{}, keys_in, keys_out, ...);
//
// Note [Radix keys]
// Keys travel as their raw bits (bool, ints and uints, float16/32/64 as
// unsigned integers of their width; complex as two of them, real first) so
// that sorted values come back bit for bit, NaN payloads and -0.0 included.
// The order lives in the digit: order_*(bits) maps a value to an unsigned
// integer whose order is NumPy's: signed ints flip the sign bit; floats flip
// every bit of negatives and the sign bit of the rest, with -0.0 read as 0.0
// (equal keys, so a stable sort keeps their order) and every NaN read as all
// ones (after +inf, in input order, as NumPy puts NaNs last). Complex keys
// are (real, imag) lexicographically, each part ordered so: NumPy's order
// [R + Rj, R + nanj, nan + Rj, nan + nanj]. Digit `byte` 0 is the least
// significant byte of the ordered key (of the imaginary part, for complex).
//
// Note [Onesweep pass]
// A pass sorts by one 8-bit digit, stably, in one launch of B = 256 threads
// per tile of B * I keys. Tiles are numbered in the order blocks start (an
// atomic counter), not by blockIdx, so a tile's predecessors always belong to
// blocks that started earlier. Within a block:
//  1. Warp w loads keys [w * 32 I, (w + 1) * 32 I) of the tile, item i of
//     lane l being key w * 32 I + 32 i + l (coalesced), every load issued
//     before any key is used. The block counts the tile's digits (shared
//     atomics) and thread d at once publishes the count of digit d (flag
//     AGGREGATE, or INCLUSIVE for tile 0): these early counts let later
//     tiles walk past this one while it is still ranking.
//  2. For item i the lanes holding one digit find each other (eight
//     ballots, a digit bit each); the highest of them bumps the warp's
//     counter of that digit by the group's size and every member's rank is
//     the old count plus the members below it. Ranks thus follow key order
//     within the warp. Thread d turns the warps' counts of digit d into
//     exclusive offsets, and the block scans the digit totals: a key's place
//     in the tile sorted by digit is start[d] + warp offset + rank.
//  3. Decoupled look-back, thread d again: it walks back over earlier tiles
//     adding aggregates until it meets an inclusive prefix (spinning on a
//     tile that has published nothing yet), reading four tiles' words at a
//     time so that their latencies overlap, and publishes its own inclusive
//     prefix. Flag and count share one 32-bit word, so one store publishes
//     both and no fence orders them against other data: counts have 30
//     bits, hence launches of at most 2^30 - 2^16 keys (a longer sort runs
//     in segments, Note [Sort segments]).
//  4. Keys go to shared memory in tile order by digit, then out: thread t
//     writes sorted slots t, t + B, ... to base[d] + prefix[d] + slot -
//     start[d], so each digit's run is written by consecutive threads. Values
//     follow through the same buffer. Output positions are 32-bit unsigned
//     (a sort has fewer than 2^32 keys), computed modulo 2^32: base[d] +
//     prefix[d] - start[d] may wrap, adding the slot brings it back.
// The tail tile pads with digit 255 keys after every real key, so they rank
// last and occupy the slots past the tail; they are never written. Waiting on
// a lower tile always ends: that tile's block started before ours and waits
// only on tiles lower still, down to tile 0, which waits on nothing. The host
// backend runs a block's threads as fibers of one worker and claims blocks in
// increasing order from a pool of workers (runtime/host/cpu_backend.cpp), so
// the block holding a lower tile is running on another worker or finished;
// status words are read and written there with atomic builtins.
//
// Note [Sort segments]
// A pass over more keys than one launch may take (Note [Onesweep pass]) is
// one launch per segment of the input, in order, each reading its segment
// (keys_in, vals_in at the segment's first key; first_index: that key's
// index in the whole input, the values of a pass that makes them) and
// writing anywhere in the whole output. Segment s's keys of digit d go after
// those of segments before it: its base[d] is the first pass's base plus
// the earlier segments' keys of digit d, which only the pass itself learns
// (the segments of a later pass hold keys the passes before put there). So
// the block of a segment's last tile, its look-back done, writes base[d] +
// its inclusive prefix, the next segment's base, to next_base. Each launch
// zeroes the next launch's status words as far as its own tile counter,
// enough unless the next launch has more tiles (a pass's last segment, the
// shorter, before the next pass's first): that one's words are a memset
// (a loop zeroing them in the kernel made ptxas spill 4 more bytes in the
// float32 keys-only kernel). One segment (at most 2^30 - 2^16 keys) is one
// launch, as before.
#pragma once

namespace kiln {
namespace sort {

enum : unsigned { kAggregate = 1u << 30, kInclusive = 2u << 30, kCountMask = (1u << 30) - 1u };

__device__ inline unsigned byte_of(unsigned long long ordered, int byte) {
  return (unsigned)(ordered >> (8 * byte)) & 255u;
}

__device__ inline unsigned order_bool(unsigned char b) { return b != 0 ? 1u : 0u; }
__device__ inline unsigned order_i8(unsigned char b) { return b ^ 0x80u; }
__device__ inline unsigned order_i16(unsigned short b) { return (unsigned)b ^ 0x8000u; }
__device__ inline unsigned order_i32(unsigned b) { return b ^ 0x80000000u; }
__device__ inline unsigned long long order_i64(unsigned long long b) { return b ^ 0x8000000000000000ull; }

// Note [Radix keys]: floats.
__device__ inline unsigned order_f16(unsigned short b) {
  unsigned x = b;
  if ((x & 0x7fffu) > 0x7c00u) return 0xffffu;
  if (x == 0x8000u) x = 0;
  return (x & 0x8000u) ? (~x & 0xffffu) : (x | 0x8000u);
}
__device__ inline unsigned order_bf16(unsigned short b) {
  unsigned x = b;
  if ((x & 0x7fffu) > 0x7f80u) return 0xffffu;
  if (x == 0x8000u) x = 0;
  return (x & 0x8000u) ? (~x & 0xffffu) : (x | 0x8000u);
}
__device__ inline unsigned order_f32(unsigned x) {
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
  if (x == 0x80000000u) x = 0;
  return (x & 0x80000000u) ? ~x : (x | 0x80000000u);
}
__device__ inline unsigned long long order_f64(unsigned long long x) {
  if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return 0xffffffffffffffffull;
  if (x == 0x8000000000000000ull) x = 0;
  return (x & 0x8000000000000000ull) ? ~x : (x | 0x8000000000000000ull);
}

// complex128's raw bits.
struct bits128 {
  unsigned long long re, im;
};

// Note [Radix keys]: complex digits, class last.
__device__ inline unsigned nan_class(bool re_nan, bool im_nan) { return re_nan ? (im_nan ? 3u : 2u) : (im_nan ? 1u : 0u); }
__device__ inline unsigned digit_c64(unsigned long long k, int byte) {
  const unsigned re = (unsigned)k, im = (unsigned)(k >> 32);
  if (byte < 4) return byte_of(order_f32(im), byte);
  if (byte < 8) return byte_of(order_f32(re), byte - 4);
  return nan_class((re & 0x7fffffffu) > 0x7f800000u, (im & 0x7fffffffu) > 0x7f800000u);
}
__device__ inline unsigned digit_c128(const bits128& k, int byte) {
  if (byte < 8) return byte_of(order_f64(k.im), byte);
  if (byte < 16) return byte_of(order_f64(k.re), byte - 8);
  return nan_class((k.re & 0x7fffffffffffffffull) > 0x7ff0000000000000ull,
                   (k.im & 0x7fffffffffffffffull) > 0x7ff0000000000000ull);
}

// a before b in the sort's order (Note [Radix keys]): digits compared from
// the most significant; equal keys (-0.0 and 0.0, NaNs of one class) are not.
template <class Digit, class K>
__device__ bool key_less(Digit digit, const K& a, const K& b) {
  for (int byte = Digit::kBytes - 1; byte >= 0; --byte) {
    const unsigned da = digit(a, byte), db = digit(b, byte);
    if (da != db) return da < db;
  }
  return false;
}

// Status words of the look-back (Note [Onesweep pass]): plain volatile
// accesses on a GPU; atomic builtins on the host, where blocks are threads.
__device__ inline unsigned load_status(const unsigned* p) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__)
  return *(const volatile unsigned*)p;
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}
__device__ inline void store_status(unsigned* p, unsigned v) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__)
  *(volatile unsigned*)p = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

// peers & the lanes whose `d & bit` is as this lane's. On NVIDIA GPUs a
// ballot and three instructions: written in C, the compiler tested the bit
// twice and built a mask, six instructions a bit of the ranking's eight.
__device__ inline unsigned same_bit(unsigned peers, unsigned d, unsigned bit) {
#if defined(__CUDA_ARCH__)
  unsigned out;
  asm("{\n\t.reg .pred p;\n\t.reg .b32 v;\n\t"
      "and.b32 v, %1, %2;\n\t"
      "setp.ne.u32 p, v, 0;\n\t"
      "vote.sync.ballot.b32 v, p, 0xffffffff;\n\t"
      "@!p not.b32 v, v;\n\t"
      "and.b32 %0, %3, v;\n\t}"
      : "=r"(out)
      : "r"(d), "r"(bit), "r"(peers));
  return out;
#else
  const bool set = (d & bit) != 0u;
  const unsigned votes = __ballot_sync(0xffffffffu, set);
  return peers & (set ? votes : ~votes);
#endif
}

// hist[byte * 256 + d] += the number of keys whose digit `byte` is d, for
// bytes [0, nbytes) (nbytes <= kMaxBytes): block-private counts in shared
// memory, added to hist (zeroed by the caller) once per block.
template <class K, int B, int kMaxBytes, class Digit>
__device__ void histogram(Digit digit, const K* keys, long long n, int nbytes, unsigned* hist) {
  // Two copies of the counts, for even and odd warps: half the contention
  // on the few digits of skewed keys (the top byte of normal floats).
  __shared__ unsigned s_parts[2 * kMaxBytes * 256];
  for (int i = threadIdx.x; i < 2 * kMaxBytes * 256; i += B) s_parts[i] = 0;
  __syncthreads();
  unsigned* s_count = s_parts + ((threadIdx.x >> 5) & 1) * kMaxBytes * 256;
  // Eight keys loaded before any is counted, so their loads overlap.
  const long long stride = (long long)gridDim.x * B;
  long long i = (long long)blockIdx.x * B + threadIdx.x;
  for (; i + 7 * stride < n; i += 8 * stride) {
    K k[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) k[u] = keys[i + u * stride];
#pragma unroll
    for (int u = 0; u < 8; ++u)
      for (int b = 0; b < nbytes; ++b) atomicAdd(&s_count[b * 256 + digit(k[u], b)], 1u);
  }
  for (; i < n; i += stride) {
    const K k = keys[i];
    for (int b = 0; b < nbytes; ++b) atomicAdd(&s_count[b * 256 + digit(k, b)], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nbytes * 256; i += B) {
    const unsigned c = s_parts[i] + s_parts[kMaxBytes * 256 + i];
    if (c != 0) atomicAdd(&hist[i], c);
  }
}

// One stable pass by one digit (Note [Onesweep pass]). Digits come from the
// keys (`digit(key, byte)`) or, when row_len > 0, from the values: byte
// `byte` of value / row_len, the row of a flat index. vals_in == nullptr
// reads the values as the keys' positions (the first pass of an argsort);
// with mod_out the values are written as value % row_len. base[d]: the
// output position of this launch's first key of digit d (the number of keys
// of digits below d, plus the earlier segments' keys of digit d: Note [Sort
// segments]); next_base: where the next segment's base is written, or
// nullptr. first_index: the index of keys_in[0] in the whole input. status:
// the zeroed words of this launch (256 a tile, then the tile counter);
// next_status: the next launch's, which this one zeroes as far as its own
// counter (the launch before this one used them), or nullptr.
template <class K, bool kPairs, int B, int I, class Digit>
__device__ void onesweep(Digit digit, const K* keys_in, K* keys_out, const long long* vals_in, long long* vals_out,
                         long long n, long long first_index, int byte, long long row_len, int mod_out,
                         const unsigned* base, unsigned* next_base, unsigned* status, unsigned* next_status) {
  static_assert(B == 256, "one thread per digit");
  constexpr int W = B / 32;
  constexpr int kTile = B * I;
  constexpr int kSlot = kPairs && sizeof(long long) > sizeof(K) ? (int)sizeof(long long) : (int)sizeof(K);
  __shared__ unsigned s_warp[W * 256];     // per warp and digit: counts, then exclusive offsets
  __shared__ unsigned s_start[256];        // first slot of each digit in the sorted tile
  __shared__ unsigned s_dest[256];         // output index of slot 0 of each digit's run, modulo 2^32
  __shared__ unsigned s_count[256];        // the tile's keys of each digit
  __shared__ unsigned s_scan[W];
  __shared__ unsigned s_tile;
  __shared__ unsigned char s_digit[kTile];
  __shared__ unsigned long long s_raw[(kTile * kSlot + 7) / 8];
  K* s_keys = reinterpret_cast<K*>(s_raw);
  long long* s_vals = reinterpret_cast<long long*>(s_raw);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long ntiles = (n + kTile - 1) / kTile;
  if (tid == 0) s_tile = atomicAdd(status + ntiles * 256, 1u);
  for (int i = tid; i < W * 256; i += B) s_warp[i] = 0;
  s_count[tid] = 0;
  __syncthreads();
  const unsigned tile = s_tile;
  if (next_status != nullptr) {
    next_status[(long long)tile * 256 + tid] = 0u;
    if (tile == 0 && tid == 0) next_status[ntiles * 256] = 0u;
  }
  const long long tile_start = (long long)tile * kTile;
  const long long left = n - tile_start;
  const int valid = left < kTile ? (int)left : kTile;

  // 1. Load. Every load is issued before any key is used, so their
  // latencies overlap (guarding each load and its digit together made the
  // compiler wait for one key before loading the next).
  K k[I];
  long long v[I];
  unsigned d[I], place[I];
  const int warp_first = warp * 32 * I;
  const long long first = tile_start + warp_first + lane;
  if (valid == kTile) {
#pragma unroll
    for (int i = 0; i < I; ++i) k[i] = keys_in[first + i * 32];
    if (kPairs) {
#pragma unroll
      for (int i = 0; i < I; ++i) v[i] = vals_in != nullptr ? vals_in[first + i * 32] : first_index + first + i * 32;
    }
  } else {
#pragma unroll
    for (int i = 0; i < I; ++i) {
      k[i] = K();
      v[i] = 0;
      if (warp_first + i * 32 + lane < valid) {
        k[i] = keys_in[first + i * 32];
        if (kPairs) v[i] = vals_in != nullptr ? vals_in[first + i * 32] : first_index + first + i * 32;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < I; ++i) {
    const bool real = warp_first + i * 32 + lane < valid;
    if (kPairs && row_len > 0)
      d[i] = real ? byte_of((unsigned long long)(v[i] / row_len), byte) : 255u;
    else
      d[i] = real ? digit(k[i], byte) : 255u;
  }
  // Early counts: the tile's digit counts are published before the ranking,
  // so a later tile's look-back rarely waits for this one.
  // (The tail's padding keys are counted too, as digit 255, and taken off
  // after: a branch around each atomic cost more than the atomic.)
#pragma unroll
  for (int i = 0; i < I; ++i) atomicAdd(&s_count[d[i]], 1u);
  __syncthreads();
  const unsigned count = s_count[tid] - (tid == 255 ? (unsigned)(kTile - valid) : 0u);
  unsigned* mine = status + (long long)tile * 256 + tid;
  store_status(mine, (tile == 0 ? kInclusive : kAggregate) | count);

  // 2. Rank within the warp.
  const unsigned below_me = (1u << lane) - 1u;
  unsigned* counts = s_warp + warp * 256;
#pragma unroll
  for (int i = 0; i < I; ++i) {
    // The lanes holding d[i]: eight ballots, one a digit bit (__match_any_sync
    // does this in one instruction, but a slow one: the ballots are cheaper).
    unsigned peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b < 8; ++b) peers = same_bit(peers, d[i], 1u << b);
    const int leader = 31 - __clz((int)peers);
    unsigned old = 0;
    if (lane == leader) {
      old = counts[d[i]];
      counts[d[i]] = old + __popc(peers);
    }
    old = __shfl_sync(0xffffffffu, old, leader);
    place[i] = old + __popc(peers & below_me);
    __syncwarp();
  }
  __syncthreads();

  // Offsets across warps, then the block's scan of digit totals.
  unsigned total = 0;
#pragma unroll
  for (int w = 0; w < W; ++w) {
    const unsigned c = s_warp[w * 256 + tid];
    s_warp[w * 256 + tid] = total;
    total += c;
  }
  unsigned incl = total;
#pragma unroll
  for (int off = 1; off < 32; off *= 2) {
    const unsigned t = __shfl_up_sync(0xffffffffu, incl, off);
    if (lane >= off) incl += t;
  }
  if (lane == 31) s_scan[warp] = incl;
  __syncthreads();
  unsigned start = incl - total;
  for (int w = 0; w < warp; ++w) start += s_scan[w];
  s_start[tid] = start;

  // 3. Decoupled look-back for digit tid.
  unsigned before = 0;
  if (tile != 0) {
    // Four predecessors read at once (their loads overlap), then taken in
    // order; the walk resumes (spins) at the first that published nothing.
    for (long long t = (long long)tile - 1;;) {
      unsigned st[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) st[q] = t - q >= 0 ? load_status(status + (t - q) * 256 + tid) : kInclusive;
      int q = 0;
      bool done = false;
      for (; q < 4; ++q) {
        const unsigned flag = st[q] & ~kCountMask;
        if (flag == 0) break;
        before += st[q] & kCountMask;
        if (flag == kInclusive) {
          done = true;
          break;
        }
      }
      if (done) break;
      t -= q;
    }
    store_status(mine, kInclusive | (before + count));
  }
  s_dest[tid] = base[tid] + before - start;
  // The segment's last tile (it reaches n) gives the next segment its base.
  if (next_base != nullptr && (long long)tile * kTile + kTile >= n) next_base[tid] = base[tid] + before + count;
  __syncthreads();

  // 4. Scatter through shared memory.
#pragma unroll
  for (int i = 0; i < I; ++i) {
    place[i] += s_start[d[i]] + s_warp[warp * 256 + d[i]];
    s_keys[place[i]] = k[i];
    s_digit[place[i]] = (unsigned char)d[i];
  }
  __syncthreads();
  // The slots' output indices, read in one unrolled batch; ~0u (never an
  // index: fewer than 2^32 keys) for the tail's padding.
  unsigned dest[I];
#pragma unroll
  for (int i = 0; i < I; ++i) {
    const int j = tid + i * B;
    dest[i] = j < valid ? s_dest[s_digit[j]] + (unsigned)j : ~0u;
  }
#pragma unroll
  for (int i = 0; i < I; ++i)
    if (dest[i] != ~0u) keys_out[dest[i]] = s_keys[tid + i * B];
  if (kPairs) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < I; ++i) s_vals[place[i]] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < I; ++i) {
      if (dest[i] == ~0u) continue;
      const long long x = s_vals[tid + i * B];
      vals_out[dest[i]] = mod_out ? x % row_len : x;
    }
  }
}

}  // namespace sort
}  // namespace kiln
