// CuPy's <cupy/carray.cuh>: what every CuPy ElementwiseKernel and
// ReductionKernel sees, and what kiln's include (arraycore/kernel_template.cpp),
// so their code compiles unchanged: complex<float> and complex<double> with
// CuPy's functions (cupy/complex.cuh), `float16` (NumPy's float16 element
// type, kiln::half) with cuda_fp16.h's names and intrinsics over it
// (kiln/fp16_api.h), and CArray / CIndexer. RawKernels may include it too.
//
//   // ElementwiseKernel('raw T x, float16 h', 'complex<float> z', ...):
//   z = complex<float>(__half2float(__hmul(h, h)), x.size());   // x: CArray<T, N>
//   // a device function over a raw param:
//   template <class T> __device__ T first(const CArray<T, 1>& a) { return a[0]; }
//   CIndexer<2> ind(shape);  ind.set(i);  ptrdiff_t row = ind.get()[0];
//
// CArray<T, ndim, c_contiguous, use_32bit_indexing> names kiln's raw array
// (kiln::RawArray<T>, kiln/elementwise.h): x[k] (flat C-order index), x[idx]
// (one index per axis), x.size(), x.shape()[d], x.strides()[d] (bytes);
// its template arguments other than T do not change it.
#pragma once

#include "cupy/complex.cuh"
#include "kiln/elementwise.h"
#include "kiln/fp16_api.h"

typedef kiln::half float16;

template <class T, int ndim = 1, bool c_contiguous = false, bool use_32bit_indexing = false>
using CArray = kiln::RawArray<T>;

// A flat index over an ndim-dimensional shape and its multi-index: set(i)
// computes get()[0 .. ndim-1] of the C-order position i.
template <int ndim, bool use_32bit_indexing = false>
struct CIndexer {
  ptrdiff_t size_;
  ptrdiff_t shape_[ndim > 0 ? ndim : 1];
  ptrdiff_t index_[ndim > 0 ? ndim : 1];

  CIndexer() = default;
  template <class I>
  KILN_DEVICE explicit CIndexer(const I* shape) : size_(1) {
    for (int d = 0; d < ndim; ++d) {
      shape_[d] = static_cast<ptrdiff_t>(shape[d]);
      size_ *= shape_[d];
      index_[d] = 0;
    }
  }
  KILN_DEVICE ptrdiff_t size() const { return size_; }
  KILN_DEVICE const ptrdiff_t* shape() const { return shape_; }
  KILN_DEVICE void set(ptrdiff_t i) {
    for (int d = ndim - 1; d >= 0; --d) {
      const ptrdiff_t q = i / shape_[d];
      index_[d] = i - q * shape_[d];
      i = q;
    }
  }
  KILN_DEVICE const ptrdiff_t* get() const { return index_; }
};
