// The part of cuFFT that kiln.fft uses, declared here so that kiln builds
// without the CUDA SDK and loads libcufft with dlopen at run time, like
// cuBLAS (cublas_api.h); it is never linked.
//
//   std::string why;
//   const CufftApi* fft = load_cufft_api(&why);        // nullptr: no cuFFT
//   make_primary_context_current(device);              // driver_api.h
//   CufftHandle h;
//   fft->create(&h);
//   fft->set_auto_allocation(h, 0);                    // the work area is kiln's
//   long long n[1] = {1024};
//   size_t work = 0;
//   fft->make_plan_many64(h, 1, n, nullptr, 1, 0, nullptr, 1, 0, cufft_type::kC2C, batch, &work);
//   fft->set_work_area(h, kiln_allocation);
//   fft->set_stream(h, stream);
//   fft->exec_c2c(h, in, out, kCufftForward);
//
// Note [cuFFT loading]
// As Note [cuBLAS loading]: the table lives in runtime/cuda/ beside the
// driver's, found by Note [CUDA library search] (libcufft.so.12 of CUDA 13,
// .so.11 of CUDA 11 and 12, .so; $KILN_CUFFT_PATH alone when set), never
// throws, never closed; cuFFT works in whatever context is current, so
// every call is made with the device's primary context current
// (make_primary_context_current). What to transform (layouts, batches,
// normalisation) is arraycore's (arraycore/fft.h) and kiln.fft's.
// Values are those of cufft.h (CUDA 12's cuFFT 11 and CUDA 13's cuFFT 12
// agree on every one used here; CUDA 13 dropped three status codes, kept
// below for CUDA 12's messages); tests/cpp/test_cufft_abi.cpp checks them
// against the SDK's header when built with -DKILN_CHECK_AGAINST_SDK_HEADERS.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/cuda/driver_api.h"

namespace kiln::runtime::cuda {

using CufftResult = int;   // cufftResult
using CufftHandle = int;   // cufftHandle (an int in cufft.h, not a pointer)

inline constexpr CufftResult kCufftSuccess = 0;   // CUFFT_SUCCESS
inline constexpr CufftResult kCufftAllocFailed = 2;   // CUFFT_ALLOC_FAILED
inline constexpr int kCufftForward = -1;          // CUFFT_FORWARD
inline constexpr int kCufftInverse = 1;           // CUFFT_INVERSE

namespace cufft_type {   // cufftType
inline constexpr int kR2C = 0x2a;
inline constexpr int kC2R = 0x2c;
inline constexpr int kC2C = 0x29;
inline constexpr int kD2Z = 0x6a;
inline constexpr int kZ2D = 0x6c;
inline constexpr int kZ2Z = 0x69;
}  // namespace cufft_type

struct CufftApi {
  CufftResult (*create)(CufftHandle* plan);                        // cufftCreate
  CufftResult (*destroy)(CufftHandle plan);                        // cufftDestroy
  CufftResult (*set_stream)(CufftHandle plan, CuStream stream);    // cufftSetStream
  CufftResult (*set_auto_allocation)(CufftHandle plan, int auto_allocate);  // cufftSetAutoAllocation
  CufftResult (*make_plan_many64)(CufftHandle plan, int rank, long long* n, long long* inembed, long long istride,
                                  long long idist, long long* onembed, long long ostride, long long odist, int type,
                                  long long batch, size_t* work_size);  // cufftMakePlanMany64
  CufftResult (*get_size)(CufftHandle plan, size_t* work_size);   // cufftGetSize
  CufftResult (*set_work_area)(CufftHandle plan, void* work_area);  // cufftSetWorkArea
  // idata/odata are cufftComplex*/cufftReal*/... in cufft.h: device pointers.
  CufftResult (*exec_c2c)(CufftHandle plan, void* idata, void* odata, int direction);  // cufftExecC2C
  CufftResult (*exec_z2z)(CufftHandle plan, void* idata, void* odata, int direction);  // cufftExecZ2Z
  CufftResult (*exec_r2c)(CufftHandle plan, void* idata, void* odata);  // cufftExecR2C
  CufftResult (*exec_d2z)(CufftHandle plan, void* idata, void* odata);  // cufftExecD2Z
  CufftResult (*exec_c2r)(CufftHandle plan, void* idata, void* odata);  // cufftExecC2R
  CufftResult (*exec_z2d)(CufftHandle plan, void* idata, void* odata);  // cufftExecZ2D
  CufftResult (*get_version)(int* version);                        // cufftGetVersion
  std::string library_path;  // what dlopen found
};

// Searches for libcufft.so.12, .so.11, .so as Note [CUDA library search]
// (library_search.h) says, $KILN_CUFFT_PATH alone when it is set; once per
// process (again after a folder is added). nullptr, with `why_not` filled,
// when none loads or one lacks a symbol. Never throws. Thread-safe; the
// library is never closed.
const CufftApi* load_cufft_api(std::string* why_not);

// "CUFFT_INVALID_SIZE" (or "cuFFT status N") for error messages.
std::string describe_cufft_status(CufftResult status);

}  // namespace kiln::runtime::cuda
