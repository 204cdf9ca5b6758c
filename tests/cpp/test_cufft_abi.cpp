// Checks kiln's own cuFFT declarations (runtime/cuda/cufft_api.h) against
// the CUDA SDK's cufft.h. Built normally this file only checks what can be
// checked without the SDK; with -DKILN_CHECK_AGAINST_SDK_HEADERS (and
// -I<cuda>/include) every value and entry point type is compared at compile
// time:
//
//   g++ -std=c++20 -DKILN_CHECK_AGAINST_SDK_HEADERS -I. -I/usr/local/cuda/include
//       -fsyntax-only tests/cpp/test_cufft_abi.cpp
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "runtime/cuda/cufft_api.h"

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
#include <cufft.h>
#endif

namespace kiln::runtime::cuda {
namespace {

static_assert(sizeof(CufftResult) == 4 && sizeof(CufftHandle) == 4);

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
static_assert(sizeof(cufftResult) == sizeof(CufftResult) && std::is_same_v<cufftHandle, CufftHandle>);
static_assert(sizeof(cufftType) == sizeof(int));
static_assert(kCufftAllocFailed == CUFFT_ALLOC_FAILED);
static_assert(kCufftSuccess == CUFFT_SUCCESS && kCufftForward == CUFFT_FORWARD && kCufftInverse == CUFFT_INVERSE);
static_assert(cufft_type::kR2C == CUFFT_R2C && cufft_type::kC2R == CUFFT_C2R && cufft_type::kC2C == CUFFT_C2C);
static_assert(cufft_type::kD2Z == CUFFT_D2Z && cufft_type::kZ2D == CUFFT_Z2D && cufft_type::kZ2Z == CUFFT_Z2Z);
static_assert(CUFFT_INVALID_SIZE == 8 && CUFFT_NOT_SUPPORTED == 0x10 && CUFFT_NO_WORKSPACE == 0xD);

// Same parameter kinds and sizes, position by position (enums travel as
// int, typed data pointers as void*).
template <class A, class B>
constexpr bool same_abi = sizeof(A) == sizeof(B) && std::is_pointer_v<A> == std::is_pointer_v<B> &&
                          std::is_integral_v<A> == (std::is_integral_v<B> || std::is_enum_v<B>);
template <class R1, class... A, class R2, class... B>
constexpr bool same_signature(R1 (*)(A...), R2 (*)(B...)) {
  if constexpr (sizeof...(A) != sizeof...(B)) {
    return false;
  } else {
    return same_abi<R1, R2> && (same_abi<A, B> && ...);
  }
}
#define KILN_SAME(field, sdk) static_assert(same_signature(CufftApi{}.field, &sdk), #sdk)
KILN_SAME(create, cufftCreate);
KILN_SAME(destroy, cufftDestroy);
KILN_SAME(set_stream, cufftSetStream);
KILN_SAME(set_auto_allocation, cufftSetAutoAllocation);
KILN_SAME(make_plan_many64, cufftMakePlanMany64);
KILN_SAME(get_size, cufftGetSize);
KILN_SAME(set_work_area, cufftSetWorkArea);
KILN_SAME(exec_c2c, cufftExecC2C);
KILN_SAME(exec_z2z, cufftExecZ2Z);
KILN_SAME(exec_r2c, cufftExecR2C);
KILN_SAME(exec_d2z, cufftExecD2Z);
KILN_SAME(exec_c2r, cufftExecC2R);
KILN_SAME(exec_z2d, cufftExecZ2D);
KILN_SAME(get_version, cufftGetVersion);
#undef KILN_SAME
#endif

TEST(CufftApi, MissingLibraryIsReportedNotThrown) {
  std::string why;
  const CufftApi* api = load_cufft_api(&why);
  if (api == nullptr) {
    EXPECT_FALSE(why.empty());
  } else {
    EXPECT_FALSE(api->library_path.empty());
    int version = 0;
    EXPECT_EQ(api->get_version(&version), kCufftSuccess);   // needs no device
    EXPECT_GT(version, 10000);
  }
}

TEST(CufftApi, StatusNames) {
  EXPECT_EQ(describe_cufft_status(0), "CUFFT_SUCCESS");
  EXPECT_EQ(describe_cufft_status(8), "CUFFT_INVALID_SIZE");
  EXPECT_EQ(describe_cufft_status(0x10), "CUFFT_NOT_SUPPORTED");
  EXPECT_EQ(describe_cufft_status(0x14), "CUFFT_NVSHMEM_FAILURE");
  EXPECT_EQ(describe_cufft_status(99), "cuFFT status 99");
}

}  // namespace
}  // namespace kiln::runtime::cuda
