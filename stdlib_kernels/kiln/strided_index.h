// N-d strided addressing for generated kernels, with ndim as run-time data
// so one kernel serves every rank. Compiles under NVRTC, hiprtc and the host
// compiler (no SDK includes).
//
//   kiln::Layout<2> L;   // filled by the host: ndim, shape, byte strides of 2 operands
//   long long off[2];
//   L.offsets(i, off);   // byte offsets of element i (C order) in each operand
#pragma once

#ifndef KILN_DEVICE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__)
#define KILN_DEVICE __device__ __forceinline__
#else
#define KILN_DEVICE inline
#endif
#endif

namespace kiln {

constexpr int kMaxDims = 32;

template <int NOperands>
struct Layout {
  int ndim;
  long long shape[kMaxDims];
  long long strides[NOperands][kMaxDims];  // bytes

  // Byte offset of linear element `i` (C order over shape) in each operand.
  KILN_DEVICE void offsets(long long i, long long (&out)[NOperands]) const {
    for (int k = 0; k < NOperands; ++k) out[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      long long extent = shape[d];
      long long q = i / extent;
      long long r = i - q * extent;
      for (int k = 0; k < NOperands; ++k) out[k] += r * strides[k][d];
      i = q;
    }
  }
};

}  // namespace kiln
