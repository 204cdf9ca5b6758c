// The matmul engine: batched matrix products for every dtype, on every
// backend (matmul.cpp; the device side is stdlib_kernels/kiln/matmul.h).
// kiln.matmul, dot, inner, tensordot, vecdot, ... all end here, after the
// Python layer has promoted 1-D operands, broadcast the batch dimensions
// (stride-0 views) and cast both operands to the result dtype.
//
//   NDArray a = ...;   // (..., m, k)
//   NDArray b = ...;   // (..., k, n), the same batch shape
//   NDArray c = NDArray::empty({..., m, n}, a.dtype());
//   matmul_into(a, b, c);   // c[..., i, j] = sum over p of a[..., i, p] * b[..., p, j]
//
// Note [Matmul paths]
// - cuda backend, float16/32/64 or complex64/128, libcublas loadable and
//   kiln.config.use_cublas: cuBLAS (blas.h; float32 without TF32 unless
//   kiln.config.allow_tf32, Note [TF32]). An operand cuBLAS cannot read as it
//   is (no unit stride, negative or unaligned strides) is copied to C order
//   first; an output it cannot write (or one overlapping an input) is
//   computed into a C-order temporary and copied in.
// - everything else (the host backend, integers and bool everywhere, a cuda
//   machine without cuBLAS, k == 0): kiln's tiled kernel (Note [Matmul
//   tile]), generated per dtype in kiln's one dialect, compiled by NVRTC or
//   the host compiler. It reads any strides itself: no copies.
// Batch dimensions are collapsed where their strides allow; the innermost
// remaining one is one launch (a strided batch for cuBLAS, gridDim.z for the
// kernel) and the others are looped over on the host.
#pragma once

#include <string>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// c = a @ b over the last two axes. a, b, c: the same dtype and ndim >= 2,
// the same batch shape (a.shape[:-2] == b.shape[:-2] == c.shape[:-2]),
// a (..., m, k), b (..., k, n), c (..., m, n). c may overlap a or b (then a
// temporary is used). Runs on the current stream. Throws
// std::invalid_argument on mismatched arguments.
void matmul_into(const NDArray& a, const NDArray& b, const NDArray& c);

// "cublas" or "kernel": the path the calling thread's last matmul_into took
// ("" when it had nothing to compute). For tests.
const char* last_matmul_path();

// The source of kiln's matmul kernel for `dtype` (for NVRTC checks).
std::string matmul_source(DType dtype);

}  // namespace kiln::arraycore
