// The part of cuSOLVER (dense) that kiln.linalg's LAPACK primitives use,
// declared here so that kiln builds without the CUDA SDK and loads
// libcusolver with dlopen at run time, like cuBLAS (cublas_api.h); it is
// never linked.
//
//   std::string why;
//   const CusolverApi* sol = load_cusolver_api(&why);            // nullptr: no cuSOLVER
//   CusolverContext ctx = cusolver_context_for_current_thread(*sol, 0);   // device 0
//   sol->set_stream(ctx.handle, stream);
//   size_t dev_bytes = 0, host_bytes = 0;
//   sol->xpotrf_buffer_size(ctx.handle, ctx.params, cublas_fill::kLower, n, cuda_type::kR64F, a, n,
//                           cuda_type::kR64F, &dev_bytes, &host_bytes);
//
// Note [cuSOLVER loading]
// As Note [cuBLAS loading]: the table lives in runtime/cuda/ beside the
// driver's, found by Note [CUDA library search] (libcusolver.so.12 of CUDA
// 13, .so.11 of CUDA 11 and 12, .so; $KILN_CUSOLVER_PATH alone when set),
// never throws, never closed; a handle needs the device's primary context
// current. What to compute (layouts, batches, results) is arraycore's
// (arraycore/solver.h, Note [LAPACK primitives]).
// kiln calls the 64-bit generic API (cusolverDnX*): one entry point for the
// four dtypes, the element type passed as a cudaDataType, sizes as int64_t,
// pivots as int64_t, and a workspace query that answers in bytes for the
// device and for the host. ?orgqr / ?ungqr have no generic form: the four
// typed legacy calls (int sizes, workspace counted in elements) are indexed
// by CusolverPrecision. Enums travel as int (C enums are int-sized), jobs as
// signed char, typed pointers (float*, cuComplex*, ...) as void*.
// Every declaration was checked against cusolverDn.h, cusolver_common.h and
// library_types.h of CUDA 13.0 (and the cuSOLVER documentation of CUDA 12):
// tests/cpp/test_cusolver_abi.cpp compares each entry point's type with the
// SDK's when built with -DKILN_CHECK_AGAINST_SDK_HEADERS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/cuda/cublas_api.h"
#include "runtime/cuda/driver_api.h"

namespace kiln::runtime::cuda {

using CusolverStatus = int;                            // cusolverStatus_t
using CusolverHandle = struct CusolverDnContextOpaque*;  // cusolverDnHandle_t
using CusolverParams = struct CusolverDnParamsOpaque*;   // cusolverDnParams_t

inline constexpr CusolverStatus kCusolverSuccess = 0;  // CUSOLVER_STATUS_SUCCESS

namespace cusolver_eig_mode {   // cusolverEigMode_t
inline constexpr int kNoVector = 0;
inline constexpr int kVector = 1;
}  // namespace cusolver_eig_mode

// Index of the typed legacy entry points: S, D, C, Z.
enum class CusolverPrecision : int { kS = 0, kD = 1, kC = 2, kZ = 3 };

struct CusolverApi {
  CusolverStatus (*create)(CusolverHandle* handle);                      // cusolverDnCreate
  CusolverStatus (*set_stream)(CusolverHandle handle, CuStream stream);  // cusolverDnSetStream
  CusolverStatus (*create_params)(CusolverParams* params);               // cusolverDnCreateParams
  CusolverStatus (*get_version)(int* version);  // cusolverGetVersion (optional)

  // cusolverDnXgetrf_bufferSize, cusolverDnXgetrf
  CusolverStatus (*xgetrf_buffer_size)(CusolverHandle h, CusolverParams p, int64_t m, int64_t n, int type_a,
                                       const void* a, int64_t lda, int compute_type, size_t* device_bytes,
                                       size_t* host_bytes);
  CusolverStatus (*xgetrf)(CusolverHandle h, CusolverParams p, int64_t m, int64_t n, int type_a, void* a,
                           int64_t lda, int64_t* ipiv, int compute_type, void* device_work, size_t device_bytes,
                           void* host_work, size_t host_bytes, int* info);
  // cusolverDnXgetrs (no workspace); trans is a cublas_op
  CusolverStatus (*xgetrs)(CusolverHandle h, CusolverParams p, int trans, int64_t n, int64_t nrhs, int type_a,
                           const void* a, int64_t lda, const int64_t* ipiv, int type_b, void* b, int64_t ldb,
                           int* info);
  // cusolverDnXpotrf_bufferSize, cusolverDnXpotrf; uplo is a cublas_fill
  CusolverStatus (*xpotrf_buffer_size)(CusolverHandle h, CusolverParams p, int uplo, int64_t n, int type_a,
                                       const void* a, int64_t lda, int compute_type, size_t* device_bytes,
                                       size_t* host_bytes);
  CusolverStatus (*xpotrf)(CusolverHandle h, CusolverParams p, int uplo, int64_t n, int type_a, void* a,
                           int64_t lda, int compute_type, void* device_work, size_t device_bytes, void* host_work,
                           size_t host_bytes, int* info);
  // cusolverDn{S,D,C,Z}potrfBatched over an array of device pointers to n x n
  // matrices, infos int32 on the device; indexed by CusolverPrecision;
  // OPTIONAL, nullptr when missing (Note [Batched primitives] in
  // arraycore/solver.cpp).
  CusolverStatus (*potrf_batched[4])(CusolverHandle h, int uplo, int n, void* a[], int lda, int* info, int batch);
  // cusolverDnXgeqrf_bufferSize, cusolverDnXgeqrf
  CusolverStatus (*xgeqrf_buffer_size)(CusolverHandle h, CusolverParams p, int64_t m, int64_t n, int type_a,
                                       const void* a, int64_t lda, int type_tau, const void* tau, int compute_type,
                                       size_t* device_bytes, size_t* host_bytes);
  CusolverStatus (*xgeqrf)(CusolverHandle h, CusolverParams p, int64_t m, int64_t n, int type_a, void* a,
                           int64_t lda, int type_tau, void* tau, int compute_type, void* device_work,
                           size_t device_bytes, void* host_work, size_t host_bytes, int* info);
  // cusolverDnXgesvd_bufferSize, cusolverDnXgesvd; jobs 'A', 'S', 'O', 'N'
  CusolverStatus (*xgesvd_buffer_size)(CusolverHandle h, CusolverParams p, signed char jobu, signed char jobvt,
                                       int64_t m, int64_t n, int type_a, const void* a, int64_t lda, int type_s,
                                       const void* s, int type_u, const void* u, int64_t ldu, int type_vt,
                                       const void* vt, int64_t ldvt, int compute_type, size_t* device_bytes,
                                       size_t* host_bytes);
  CusolverStatus (*xgesvd)(CusolverHandle h, CusolverParams p, signed char jobu, signed char jobvt, int64_t m,
                           int64_t n, int type_a, void* a, int64_t lda, int type_s, void* s, int type_u, void* u,
                           int64_t ldu, int type_vt, void* vt, int64_t ldvt, int compute_type, void* device_work,
                           size_t device_bytes, void* host_work, size_t host_bytes, int* info);
  // cusolverDnXsyevd_bufferSize, cusolverDnXsyevd; jobz is a cusolver_eig_mode
  CusolverStatus (*xsyevd_buffer_size)(CusolverHandle h, CusolverParams p, int jobz, int uplo, int64_t n,
                                       int type_a, const void* a, int64_t lda, int type_w, const void* w,
                                       int compute_type, size_t* device_bytes, size_t* host_bytes);
  CusolverStatus (*xsyevd)(CusolverHandle h, CusolverParams p, int jobz, int uplo, int64_t n, int type_a, void* a,
                           int64_t lda, int type_w, void* w, int compute_type, void* device_work,
                           size_t device_bytes, void* host_work, size_t host_bytes, int* info);
  // cusolverDn{S,D}orgqr_bufferSize, cusolverDn{C,Z}ungqr_bufferSize (lwork in elements)
  CusolverStatus (*orgqr_buffer_size[4])(CusolverHandle h, int m, int n, int k, const void* a, int lda,
                                         const void* tau, int* lwork);
  // cusolverDn{S,D}orgqr, cusolverDn{C,Z}ungqr
  CusolverStatus (*orgqr[4])(CusolverHandle h, int m, int n, int k, void* a, int lda, const void* tau, void* work,
                             int lwork, int* info);
  // cusolverDnXgeev_bufferSize, cusolverDnXgeev: OPTIONAL, nullptr when the
  // library predates them (they came with cuSOLVER 11.7, CUDA 12.6); jobvl
  // and jobvr are cusolver_eig_mode. Note [cuSOLVER geev] in arraycore/solver.cpp.
  CusolverStatus (*xgeev_buffer_size)(CusolverHandle h, CusolverParams p, int jobvl, int jobvr, int64_t n,
                                      int type_a, const void* a, int64_t lda, int type_w, const void* w,
                                      int type_vl, const void* vl, int64_t ldvl, int type_vr, const void* vr,
                                      int64_t ldvr, int compute_type, size_t* device_bytes, size_t* host_bytes);
  CusolverStatus (*xgeev)(CusolverHandle h, CusolverParams p, int jobvl, int jobvr, int64_t n, int type_a, void* a,
                          int64_t lda, int type_w, void* w, int type_vl, void* vl, int64_t ldvl, int type_vr,
                          void* vr, int64_t ldvr, int compute_type, void* device_work, size_t device_bytes,
                          void* host_work, size_t host_bytes, int* info);
  std::string library_path;  // what dlopen found
};

// Searches for libcusolver.so.12, .so.11, .so as Note [CUDA library search]
// (library_search.h) says, $KILN_CUSOLVER_PATH alone when it is set; once
// per process (again after a folder is added). nullptr, with `why_not`
// filled, when none loads or one lacks a symbol. Never throws. Thread-safe;
// the library is never closed.
const CusolverApi* load_cusolver_api(std::string* why_not);

// A cuSOLVER handle and the options object the generic API takes (default
// algorithms), of one device for one OS thread.
struct CusolverContext {
  CusolverHandle handle = nullptr;
  CusolverParams params = nullptr;
};

// The calling OS thread's context of `device`, created at first use and
// never destroyed (as cuBLAS's handles: they may be used at exit); makes the
// device's primary context current on this thread. Throws runtime::Error
// naming the failed call.
CusolverContext cusolver_context_for_current_thread(const CusolverApi& api, int device);

// "CUSOLVER_STATUS_INVALID_VALUE" (or "cuSOLVER status 42") for messages.
std::string describe_cusolver_status(CusolverStatus status);

}  // namespace kiln::runtime::cuda
