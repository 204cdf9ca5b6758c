// What every generated elementwise kernel includes (arraycore/elementwise.cpp
// writes the kernels): NumPy's casts, strided addressing, raw array params,
// the element count `_ind`, and 4-wide aligned vectors for the contiguous path.
//
//   kiln::RawArray<float> x;   // a `raw float32 x` param: x[k] (flat C-order index), x.size()
//   kiln::Vec4<float> v = ((const kiln::Vec4<float>*)p)[j];   // elements 4j..4j+3 in one load
#pragma once

#include "kiln/cast.h"
#include "kiln/strided_index.h"

namespace kiln {

// A raw array's shape or byte strides: x.shape[d], and CuPy's CArray
// spelling x.shape()[d] (a pointer to the ndim values).
struct RawExtents {
  long long v[kMaxDims];
  KILN_DEVICE long long operator[](long long d) const { return v[d]; }
  KILN_DEVICE const long long* operator()() const { return v; }
};

// An array param used as a whole by the operation (ElementwiseKernel's `raw`).
// Non-contiguous arrays are addressed through their byte strides. As CuPy's
// CArray: x[k] (flat C-order index), x[idx] (one index per axis, e.g.
// `ptrdiff_t idx[] = {i / 4, i % 4}; y = x[idx];`), x.size(), x.shape(),
// x.strides().
template <class T>
struct RawArray {
  T* data;
  long long n;
  int ndim;
  int contiguous;
  RawExtents shape;
  RawExtents strides;  // bytes

  KILN_DEVICE long long size() const { return n; }
  template <class I>
  KILN_DEVICE T& operator[](const I* idx) const {
    long long off = 0;
    for (int d = 0; d < ndim; ++d) off += static_cast<long long>(idx[d]) * strides.v[d];
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(data) + off);
  }
  KILN_DEVICE T& operator[](long long k) const {
    if (contiguous) return data[k];
    long long off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      long long q = k / shape[d];
      off += (k - q * shape[d]) * strides[d];
      k = q;
    }
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(data) + off);
  }
};

// ElementwiseKernel's `_ind.size()`: the number of elements of the launch.
struct ElementIndex {
  long long n;
  KILN_DEVICE long long size() const { return n; }
};

// Four consecutive elements, aligned so one (or, above 16 bytes, a few)
// vector instruction moves them.
template <class T>
struct alignas(sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4) Vec4 {
  T v[4];
};

}  // namespace kiln
