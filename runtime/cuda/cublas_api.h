// The part of cuBLAS that kiln's matrix products use, declared here so that
// kiln builds without the CUDA SDK and loads libcublas with dlopen at run
// time, like the driver (driver_api.h); it is never linked.
//
//   std::string why;
//   const CublasApi* blas = load_cublas_api(&why);          // nullptr: no cuBLAS
//   CublasHandle h = cublas_handle_for_current_thread(0);    // device 0, this thread
//   blas->set_stream(h, stream);
//   blas->gemm_ex(h, cublas_op::kN, cublas_op::kN, m, n, k, &one, a, cuda_type::kR32F, lda, ...);
//
// Note [cuBLAS loading]
// The dlopen table lives in runtime/cuda/ beside the driver's and NVRTC's:
// the same search (Note [CUDA library search] in library_search.h; the
// KILN_CUBLAS_PATH override alone when set), never throws, never closed; and a handle needs
// the device's primary context current, which only the CUDA backend's
// vocabulary (driver_api.h) can arrange. What to compute with it (layouts,
// dtypes, batches, when to fall back to kiln's own kernel) is arraycore's
// (arraycore/blas.h). Values are those of cublas_api.h and library_types.h
// (CUDA 12 and 13 agree on every one used here).
#pragma once

#include <string>

#include "runtime/cuda/driver_api.h"

namespace kiln::runtime::cuda {

using CublasStatus = int;                       // cublasStatus_t
using CublasHandle = struct CublasContextOpaque*;  // cublasHandle_t

namespace cublas_op {   // cublasOperation_t
inline constexpr int kN = 0;
inline constexpr int kT = 1;
inline constexpr int kC = 2;   // conjugate transpose
}  // namespace cublas_op

namespace cublas_fill {   // cublasFillMode_t (cuSOLVER's uplo too)
inline constexpr int kLower = 0;
inline constexpr int kUpper = 1;
}  // namespace cublas_fill

namespace cuda_type {   // cudaDataType
inline constexpr int kR16F = 2;
inline constexpr int kR32F = 0;
inline constexpr int kR64F = 1;
inline constexpr int kC32F = 4;
inline constexpr int kC64F = 5;
}  // namespace cuda_type

namespace cublas_compute {   // cublasComputeType_t
inline constexpr int k32F = 68;
inline constexpr int k32FFastTF32 = 77;
inline constexpr int k64F = 70;
}  // namespace cublas_compute

inline constexpr int kCublasGemmDefault = -1;    // CUBLAS_GEMM_DEFAULT
inline constexpr int kCublasDefaultMath = 0;     // CUBLAS_DEFAULT_MATH
inline constexpr CublasStatus kCublasSuccess = 0;

struct CublasApi {
  CublasStatus (*create)(CublasHandle* handle);                  // cublasCreate_v2
  CublasStatus (*set_stream)(CublasHandle handle, CuStream s);   // cublasSetStream_v2
  CublasStatus (*set_math_mode)(CublasHandle handle, int mode);  // cublasSetMathMode
  CublasStatus (*get_version)(CublasHandle handle, int* version);  // cublasGetVersion_v2
  const char* (*get_status_string)(CublasStatus status);  // cublasGetStatusString (optional)
  CublasStatus (*gemm_ex)(CublasHandle handle, int transa, int transb, int m, int n, int k, const void* alpha,
                          const void* a, int a_type, int lda, const void* b, int b_type, int ldb, const void* beta,
                          void* c, int c_type, int ldc, int compute_type, int algo);  // cublasGemmEx
  CublasStatus (*gemm_strided_batched_ex)(CublasHandle handle, int transa, int transb, int m, int n, int k,
                                          const void* alpha, const void* a, int a_type, int lda, long long stride_a,
                                          const void* b, int b_type, int ldb, long long stride_b, const void* beta,
                                          void* c, int c_type, int ldc, long long stride_c, int batch_count,
                                          int compute_type, int algo);  // cublasGemmStridedBatchedEx
  // Batched LU and solve over arrays of device pointers to n x n matrices
  // (Note [Batched primitives] in arraycore/solver.cpp), indexed S, D, C, Z
  // (as CusolverPrecision); optional: nullptr when the library lacks them.
  // cublas{S,D,C,Z}getrfBatched: pivots int32, 1-based, n per matrix back to
  // back; infos int32 on the device, one per matrix.
  CublasStatus (*getrf_batched[4])(CublasHandle handle, int n, void* const a[], int lda, int* pivots, int* info,
                                   int batch);
  // cublas{S,D,C,Z}getrsBatched; trans a cublas_op; `info` is a HOST int
  // (argument errors only).
  CublasStatus (*getrs_batched[4])(CublasHandle handle, int trans, int n, int nrhs, const void* const a[], int lda,
                                   const int* pivots, void* const b[], int ldb, int* info, int batch);
  std::string library_path;  // what dlopen found
};

// Searches for libcublas.so.13, .so.12, .so as Note [CUDA library search]
// (library_search.h) says, $KILN_CUBLAS_PATH alone when it is set; once per
// process (again after a folder is added). nullptr, with `why_not` filled,
// when none loads or one lacks a symbol. Never throws. Thread-safe; the
// library is never closed.
const CublasApi* load_cublas_api(std::string* why_not);

// The cuBLAS handle of `device` for the calling OS thread, created at first
// use (with the device's primary context made current) and never destroyed
// (handles may be used at exit, when the driver may be gone). Also makes
// the device's primary context current on this thread if it is not. Throws
// runtime::Error naming the failed call.
CublasHandle cublas_handle_for_current_thread(const CublasApi& api, int device);

// "CUBLAS_STATUS_NOT_SUPPORTED" (or the number) for error messages.
std::string describe_cublas_status(const CublasApi& api, CublasStatus status);

}  // namespace kiln::runtime::cuda
