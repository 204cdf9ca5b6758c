// The BLAS adapter: one batched GEMM through the backend's BLAS library
// (cuBLAS on the cuda backend; none on the host backend), on kiln's current
// device and stream (blas.cpp; the library is runtime/libraries.h's
// BlasLibrary, Note [Libraries]). The matmul engine (matmul.h) asks here
// first and runs kiln's own kernel when the answer is no.
//
//   GemmMatrix a{ptr_a, m, k, k, 1, m * k};        // C-order (m, k) matrices, m * k apart
//   if (!blas_gemm(DType::Float32, a, b, c, batch)) { /* kiln's kernel */ }
//
// Note [TF32]
// float32 products keep float32 precision unless the user asks otherwise:
// cuBLAS runs them with CUBLAS_COMPUTE_32F and the handle's default math
// mode, so no input is rounded to TF32 (10-bit mantissa) on the tensor
// cores. kiln.config.allow_tf32 = True (blas_config().allow_tf32) selects
// CUBLAS_COMPUTE_32F_FAST_TF32 for float32 (and complex64) products, faster
// on Ampere and newer, with relative errors near 2^-11 instead of 2^-24 per
// product. float16 always accumulates in float32 (CUBLAS_COMPUTE_32F);
// float64 and complex128 in their own precision.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "arraycore/dtype.h"

namespace kiln::arraycore {

// Process-wide switches, read by every call (kiln.config).
struct BlasConfig {
  std::atomic<bool> allow_tf32{false};   // Note [TF32]
  std::atomic<bool> use_cublas{true};    // false: kiln's kernel everywhere (tests, comparisons)
};
BlasConfig& blas_config();

// One operand of a GEMM: rows x cols matrices, strides in elements, the
// batch's matrices batch_stride elements apart.
struct GemmMatrix {
  const void* ptr = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t row_stride = 0, col_stride = 0;
  int64_t batch_stride = 0;
};

// Whether cuBLAS reads/writes `x` as it is: one unit stride and a leading
// dimension covering the other extent, both within int (size-1 extents
// take any stride).
bool blas_layout_ok(const GemmMatrix& x);

// Whether blas_gemm can run `dtype` at all now: dtype is float16/32/64 or
// complex64/128, the switch is on and the backend's BLAS library is there
// (on cuda: libcublas loads). `why_not` (optional) says why not.
bool blas_usable(DType dtype, std::string* why_not);

// c[i] = a[i] @ b[i] for i < batch, on the current stream. false (nothing
// queued) when cuBLAS cannot take it: blas_usable is false, a layout is
// not blas_layout_ok, a size exceeds int, k == 0. Throws runtime::Error when
// the library fails.
bool blas_gemm(DType dtype, const GemmMatrix& a, const GemmMatrix& b, const GemmMatrix& c, int64_t batch);

}  // namespace kiln::arraycore
