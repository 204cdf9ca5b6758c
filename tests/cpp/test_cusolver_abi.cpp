// Checks kiln's own cuSOLVER declarations (runtime/cuda/cusolver_api.h)
// against the CUDA SDK's cusolverDn.h. Built normally this file only checks
// what can be checked without the SDK; with -DKILN_CHECK_AGAINST_SDK_HEADERS
// (and -I<cuda>/include) every value, and every entry point's type
// parameter by parameter, is compared at compile time:
//
//   g++ -std=c++20 -DKILN_CHECK_AGAINST_SDK_HEADERS -I. -I/usr/local/cuda/include
//       -fsyntax-only tests/cpp/test_cusolver_abi.cpp
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "runtime/cuda/cusolver_api.h"

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
#include <cusolverDn.h>
#endif

namespace kiln::runtime::cuda {
namespace {

static_assert(sizeof(CusolverStatus) == 4 && sizeof(CusolverHandle) == sizeof(void*));

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
// The type kiln declares in place of an SDK type (Note [cuSOLVER loading]):
// enums as int, handles as kiln's opaque pointers, typed element pointers as
// void pointers; anything else as itself.
template <class T> struct Kiln { using type = T; };
template <class T> using kiln_t = typename Kiln<T>::type;
template <> struct Kiln<cusolverStatus_t> { using type = CusolverStatus; };
template <> struct Kiln<cusolverDnHandle_t> { using type = CusolverHandle; };
template <> struct Kiln<cusolverDnParams_t> { using type = CusolverParams; };
template <> struct Kiln<cusolverDnHandle_t*> { using type = CusolverHandle*; };
template <> struct Kiln<cusolverDnParams_t*> { using type = CusolverParams*; };
template <> struct Kiln<cudaStream_t> { using type = CuStream; };
template <> struct Kiln<cudaDataType> { using type = int; };
template <> struct Kiln<cublasFillMode_t> { using type = int; };
template <> struct Kiln<cublasOperation_t> { using type = int; };
template <> struct Kiln<cusolverEigMode_t> { using type = int; };
template <> struct Kiln<float*> { using type = void*; };
template <> struct Kiln<double*> { using type = void*; };
template <> struct Kiln<cuComplex*> { using type = void*; };
template <> struct Kiln<cuDoubleComplex*> { using type = void*; };
template <> struct Kiln<const float*> { using type = const void*; };
template <> struct Kiln<const double*> { using type = const void*; };
template <> struct Kiln<const cuComplex*> { using type = const void*; };
template <> struct Kiln<const cuDoubleComplex*> { using type = const void*; };
template <> struct Kiln<float**> { using type = void**; };             // potrfBatched's pointer arrays
template <> struct Kiln<double**> { using type = void**; };
template <> struct Kiln<cuComplex**> { using type = void**; };
template <> struct Kiln<cuDoubleComplex**> { using type = void**; };
template <class R, class... A> struct Kiln<R(A...)> { using type = kiln_t<R> (*)(kiln_t<A>...); };

#define KILN_SAME(sdk, ours) \
  static_assert(std::is_same_v<kiln_t<decltype(sdk)>, std::remove_cvref_t<decltype(CusolverApi::ours)>>, #sdk)
KILN_SAME(cusolverDnCreate, create);
KILN_SAME(cusolverDnSetStream, set_stream);
KILN_SAME(cusolverDnCreateParams, create_params);
KILN_SAME(cusolverGetVersion, get_version);
KILN_SAME(cusolverDnXgetrf_bufferSize, xgetrf_buffer_size);
KILN_SAME(cusolverDnXgetrf, xgetrf);
KILN_SAME(cusolverDnXgetrs, xgetrs);
KILN_SAME(cusolverDnXpotrf_bufferSize, xpotrf_buffer_size);
KILN_SAME(cusolverDnXpotrf, xpotrf);
KILN_SAME(cusolverDnSpotrfBatched, potrf_batched[0]);
KILN_SAME(cusolverDnDpotrfBatched, potrf_batched[0]);
KILN_SAME(cusolverDnCpotrfBatched, potrf_batched[0]);
KILN_SAME(cusolverDnZpotrfBatched, potrf_batched[0]);
KILN_SAME(cusolverDnXgeqrf_bufferSize, xgeqrf_buffer_size);
KILN_SAME(cusolverDnXgeqrf, xgeqrf);
KILN_SAME(cusolverDnXgesvd_bufferSize, xgesvd_buffer_size);
KILN_SAME(cusolverDnXgesvd, xgesvd);
KILN_SAME(cusolverDnXsyevd_bufferSize, xsyevd_buffer_size);
KILN_SAME(cusolverDnXsyevd, xsyevd);
KILN_SAME(cusolverDnXgeev_bufferSize, xgeev_buffer_size);
KILN_SAME(cusolverDnXgeev, xgeev);
KILN_SAME(cusolverDnSorgqr_bufferSize, orgqr_buffer_size[0]);
KILN_SAME(cusolverDnDorgqr_bufferSize, orgqr_buffer_size[0]);
KILN_SAME(cusolverDnCungqr_bufferSize, orgqr_buffer_size[0]);
KILN_SAME(cusolverDnZungqr_bufferSize, orgqr_buffer_size[0]);
KILN_SAME(cusolverDnSorgqr, orgqr[0]);
KILN_SAME(cusolverDnDorgqr, orgqr[0]);
KILN_SAME(cusolverDnCungqr, orgqr[0]);
KILN_SAME(cusolverDnZungqr, orgqr[0]);
#undef KILN_SAME

static_assert(sizeof(cusolverStatus_t) == sizeof(int) && sizeof(cudaDataType) == sizeof(int));
static_assert(sizeof(cublasFillMode_t) == sizeof(int) && sizeof(cublasOperation_t) == sizeof(int));
static_assert(sizeof(cusolverEigMode_t) == sizeof(int));
static_assert(kCusolverSuccess == CUSOLVER_STATUS_SUCCESS);
static_assert(cusolver_eig_mode::kNoVector == CUSOLVER_EIG_MODE_NOVECTOR);
static_assert(cusolver_eig_mode::kVector == CUSOLVER_EIG_MODE_VECTOR);
static_assert(cublas_fill::kLower == CUBLAS_FILL_MODE_LOWER && cublas_fill::kUpper == CUBLAS_FILL_MODE_UPPER);
static_assert(cublas_op::kN == CUBLAS_OP_N && cublas_op::kT == CUBLAS_OP_T && cublas_op::kC == CUBLAS_OP_C);
static_assert(cuda_type::kR32F == CUDA_R_32F && cuda_type::kR64F == CUDA_R_64F);
static_assert(cuda_type::kC32F == CUDA_C_32F && cuda_type::kC64F == CUDA_C_64F);
#endif

// describe_cusolver_status spells cusolver_common.h's names, and a number
// for codes it does not know.
TEST(CusolverApi, StatusNames) {
  EXPECT_EQ(describe_cusolver_status(3), "CUSOLVER_STATUS_INVALID_VALUE");
  EXPECT_EQ(describe_cusolver_status(7), "CUSOLVER_STATUS_INTERNAL_ERROR");
  EXPECT_EQ(describe_cusolver_status(12345), "cuSOLVER status 12345");
}

// A library that does not exist gives nullptr and a reason, never a throw.
TEST(CusolverApi, MissingLibraryIsReportedNotThrown) {
  std::string why;
  const CusolverApi* api = load_cusolver_api(&why);
  if (api == nullptr) {
    EXPECT_FALSE(why.empty());
  } else {
    EXPECT_FALSE(api->library_path.empty());
    for (int p = 0; p < 4; ++p) EXPECT_NE(api->orgqr[p], nullptr);
    EXPECT_NE(api->xgesvd, nullptr);
  }
}

}  // namespace
}  // namespace kiln::runtime::cuda
