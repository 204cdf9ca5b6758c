// Checks kiln's own cuBLAS declarations (runtime/cuda/cublas_api.h) against
// the CUDA SDK's cublas_api.h. Built normally this file only checks what can
// be checked without the SDK; with -DKILN_CHECK_AGAINST_SDK_HEADERS (and
// -I<cuda>/include) every value is compared at compile time:
//
//   g++ -std=c++20 -DKILN_CHECK_AGAINST_SDK_HEADERS -I. -I/usr/local/cuda/include
//       -fsyntax-only tests/cpp/test_cublas_abi.cpp
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "runtime/cuda/cublas_api.h"

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
#include <cublas_api.h>
#endif

namespace kiln::runtime::cuda {
namespace {

static_assert(sizeof(CublasStatus) == 4 && sizeof(CublasHandle) == sizeof(void*));

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
static_assert(sizeof(cublasStatus_t) == sizeof(CublasStatus));
static_assert(sizeof(cublasHandle_t) == sizeof(CublasHandle));
static_assert(sizeof(cublasOperation_t) == sizeof(int) && sizeof(cudaDataType) == sizeof(int));
static_assert(sizeof(cublasComputeType_t) == sizeof(int) && sizeof(cublasGemmAlgo_t) == sizeof(int));
static_assert(sizeof(cublasMath_t) == sizeof(int));
static_assert(kCublasSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(cublas_op::kN == CUBLAS_OP_N && cublas_op::kT == CUBLAS_OP_T);
static_assert(cuda_type::kR16F == CUDA_R_16F && cuda_type::kR32F == CUDA_R_32F && cuda_type::kR64F == CUDA_R_64F);
static_assert(cuda_type::kC32F == CUDA_C_32F && cuda_type::kC64F == CUDA_C_64F);
static_assert(cublas_compute::k32F == CUBLAS_COMPUTE_32F && cublas_compute::k64F == CUBLAS_COMPUTE_64F);
static_assert(cublas_compute::k32FFastTF32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(kCublasGemmDefault == CUBLAS_GEMM_DEFAULT && kCublasDefaultMath == CUBLAS_DEFAULT_MATH);

// The batched LU entry points, parameter by parameter: enums as int, the
// handle as kiln's, typed pointer arrays as arrays of void pointers.
template <class T> struct Kiln { using type = T; };
template <class T> using kiln_t = typename Kiln<T>::type;
template <> struct Kiln<cublasStatus_t> { using type = CublasStatus; };
template <> struct Kiln<cublasHandle_t> { using type = CublasHandle; };
template <> struct Kiln<cublasOperation_t> { using type = int; };
template <class T> struct Kiln<T* const*> { using type = void* const*; };
template <class T> struct Kiln<const T* const*> { using type = const void* const*; };
template <class R, class... A> struct Kiln<R(A...)> { using type = kiln_t<R> (*)(kiln_t<A>...); };
#define KILN_SAME(sdk, ours) \
  static_assert(std::is_same_v<kiln_t<decltype(sdk)>, std::remove_cvref_t<decltype(CublasApi::ours)>>, #sdk)
KILN_SAME(cublasSgetrfBatched, getrf_batched[0]);
KILN_SAME(cublasDgetrfBatched, getrf_batched[0]);
KILN_SAME(cublasCgetrfBatched, getrf_batched[0]);
KILN_SAME(cublasZgetrfBatched, getrf_batched[0]);
KILN_SAME(cublasSgetrsBatched, getrs_batched[0]);
KILN_SAME(cublasDgetrsBatched, getrs_batched[0]);
KILN_SAME(cublasCgetrsBatched, getrs_batched[0]);
KILN_SAME(cublasZgetrsBatched, getrs_batched[0]);
#undef KILN_SAME
#endif

// A library that does not exist gives nullptr and a reason, never a throw.
TEST(CublasApi, MissingLibraryIsReportedNotThrown) {
  // Only meaningful before the first successful load in this process; the
  // loader's state is per process, so just check the contract holds either way.
  std::string why;
  const CublasApi* api = load_cublas_api(&why);
  if (api == nullptr) {
    EXPECT_FALSE(why.empty());
  } else {
    EXPECT_FALSE(api->library_path.empty());
    EXPECT_NE(api->gemm_ex, nullptr);
    EXPECT_NE(api->gemm_strided_batched_ex, nullptr);
  }
}

}  // namespace
}  // namespace kiln::runtime::cuda
