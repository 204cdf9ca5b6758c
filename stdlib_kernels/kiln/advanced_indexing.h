// Device side of advanced indexing (arraycore/advanced_indexing.cpp): gather
// and scatter through one int64 index array, bounds checks, the offsets of
// several index arrays summed into one, and the stream compaction behind
// nonzero. Compiles under NVRTC, hiprtc and the host compiler.
//
//   typedef unsigned int elem_t;                       // any type of the element's size
//   kiln::gather<elem_t>(data, idx, out, n, layout, access);
//   // out[i] = data[... + position(idx[i]) * access.axis_stride], operands 0, 1, 2 of `layout`
#pragma once

#include <kiln/strided_index.h>

namespace kiln {

// How an index array's values address the data.
struct IndexAccess {
  long long axis_size;    // > 0: positions along an axis of this length (negative from the end);
                          // 0: the values are byte offsets already
  long long axis_stride;  // bytes between positions
};

// Note [Index wrapping]
// A position p of an axis of n elements addresses element p (0 <= p < n) or
// p + n (-n <= p < 0), as in NumPy. Other values wrap modulo n, as CuPy's
// do: kiln checks host index arrays on the host, device ones only when
// kiln.config.check_index_bounds asks (Note [Device index bounds] in
// arraycore/advanced_indexing.h); wrapping keeps every access in bounds.
KILN_DEVICE long long wrap_index(long long p, long long n) {
  if (p < 0) p += n;
  if ((unsigned long long)p >= (unsigned long long)n) {
    p %= n;
    if (p < 0) p += n;
  }
  return p;
}

KILN_DEVICE long long index_offset(const char* idx, long long at, IndexAccess access) {
  long long v = *(const long long*)(idx + at);
  return access.axis_size > 0 ? wrap_index(v, access.axis_size) * access.axis_stride : v;
}

// unravel's coordinates: coordinate d of the C-order position j over `shape`
// goes to out + d * dim_stride + j * item_stride (bytes).
struct Unravel {
  int ndim;
  long long shape[kMaxDims];
  long long dim_stride, item_stride;
};

// The kernels' bodies: device code only (the structs above are shared with
// arraycore, which includes this header; the host prelude defines __global__).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__) || \
    defined(__global__)

#define KILN_GRID_STRIDE(i, n) \
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)blockDim.x * gridDim.x)

// layout.offsets, without the division when the operands collapsed to one
// dimension (the common case: contiguous data and index).
template <int N>
KILN_DEVICE void element_offsets(const Layout<N>& layout, long long i, long long (&off)[N]) {
  if (layout.ndim == 1) {
    for (int k = 0; k < N; ++k) off[k] = i * layout.strides[k][0];
  } else {
    layout.offsets(i, off);
  }
}

// out (operand 2) = data (operand 0) at the index (operand 1).
template <class T>
KILN_DEVICE void gather(const char* data, const char* idx, char* out, long long n, const Layout<3>& layout,
                        IndexAccess access) {
  KILN_GRID_STRIDE(i, n) {
    long long off[3];
    element_offsets(layout, i, off);
    *(T*)(out + off[2]) = *(const T*)(data + off[0] + index_offset(idx, off[1], access));
  }
}

// data (operand 0) at the index (operand 1) = values (operand 2). With `owner`
// only the element whose position i is recorded there writes (Note [Last
// write wins]); `slot_base` turns a data offset into an owner slot.
template <class T>
KILN_DEVICE void scatter(char* data, const char* idx, const char* values, long long n, const Layout<3>& layout,
                         IndexAccess access, const unsigned long long* owner, long long slot_base) {
  KILN_GRID_STRIDE(i, n) {
    long long off[3];
    element_offsets(layout, i, off);
    long long at = off[0] + index_offset(idx, off[1], access);
    if (owner == 0 || owner[(at + slot_base) / (long long)sizeof(T)] == (unsigned long long)i + 1)
      *(T*)(data + at) = *(const T*)(values + off[2]);
  }
}

// Note [Last write wins]
// NumPy's a[idx] = v stores, for a target named several times, the value of
// the last of them in C order. Threads run in no order, so a first pass
// records in each target's slot the largest i + 1 of the elements writing to
// it (atomicMax; slots start at 0), and the scatter lets only that element
// write.
KILN_DEVICE void claim_targets(const char* idx, long long n, const Layout<3>& layout, IndexAccess access,
                               unsigned long long* owner, long long slot_base, long long itemsize) {
  KILN_GRID_STRIDE(i, n) {
    long long off[3];
    element_offsets(layout, i, off);
    long long at = off[0] + index_offset(idx, off[1], access);
    atomicMax(owner + (at + slot_base) / itemsize, (unsigned long long)i + 1);
  }
}

// first_bad = the smallest C-order position of idx (operand 0) whose value is
// outside [-axis_size, axis_size).
KILN_DEVICE void check_bounds(const char* idx, long long n, const Layout<1>& layout, long long axis_size,
                              unsigned long long* first_bad) {
  KILN_GRID_STRIDE(i, n) {
    long long off[1];
    element_offsets(layout, i, off);
    long long v = *(const long long*)(idx + off[0]);
    if (v < -axis_size || v >= axis_size) atomicMin(first_bad, (unsigned long long)i);
  }
}

// sum (operand 1, int64) = [sum +] the data offset of idx (operand 0).
KILN_DEVICE void add_offsets(const char* idx, char* sum, long long n, const Layout<2>& layout, IndexAccess access,
                             int first) {
  KILN_GRID_STRIDE(i, n) {
    long long off[2];
    element_offsets(layout, i, off);
    long long v = index_offset(idx, off[0], access);
    long long* s = (long long*)(sum + off[1]);
    *s = first ? v : *s + v;
  }
}

// Stream compaction: positions[inclusive_count[i] - 1] = i where mask[i]
// (C-contiguous mask and counts).
KILN_DEVICE void compact(const unsigned char* mask, const long long* inclusive_count, long long* positions,
                         long long n) {
  KILN_GRID_STRIDE(i, n) {
    if (mask[i] != 0) positions[inclusive_count[i] - 1] = i;
  }
}

// out[j] = the byte offset of C-order position positions[j] (layout: the
// shape and byte strides it addresses).
KILN_DEVICE void position_offsets(const long long* positions, long long* out, long long count,
                                  const Layout<1>& layout) {
  KILN_GRID_STRIDE(j, count) {
    long long off[1];
    layout.offsets(positions[j], off);
    out[j] = off[0];
  }
}

KILN_DEVICE void unravel(const long long* positions, char* out, long long count, const Unravel& u) {
  KILN_GRID_STRIDE(j, count) {
    long long p = positions[j];
    for (int d = u.ndim - 1; d >= 0; --d) {
      long long q = p / u.shape[d];
      *(long long*)(out + d * u.dim_stride + j * u.item_stride) = p - q * u.shape[d];
      p = q;
    }
  }
}

#undef KILN_GRID_STRIDE
#endif

}  // namespace kiln
