// Finds libcufft with dlopen and resolves the entry points of CufftApi
// (Note [cuFFT loading] in cufft_api.h).
#include "runtime/cuda/cufft_api.h"

#include "runtime/cuda/library_search.h"

namespace kiln::runtime::cuda {
namespace {

const LibraryCandidates kCufft{"KILN_CUFFT_PATH", true, {"libcufft.so.12", "libcufft.so.11", "libcufft.so"}};

// Resolves CufftApi's entry points from `lib`: "" or the first missing one.
std::string bind(void* lib, CufftApi& out) {
  std::string missing;
  resolve_symbol(lib, "cufftCreate", out.create, &missing);
  resolve_symbol(lib, "cufftDestroy", out.destroy, &missing);
  resolve_symbol(lib, "cufftSetStream", out.set_stream, &missing);
  resolve_symbol(lib, "cufftSetAutoAllocation", out.set_auto_allocation, &missing);
  resolve_symbol(lib, "cufftMakePlanMany64", out.make_plan_many64, &missing);
  resolve_symbol(lib, "cufftGetSize", out.get_size, &missing);
  resolve_symbol(lib, "cufftSetWorkArea", out.set_work_area, &missing);
  resolve_symbol(lib, "cufftExecC2C", out.exec_c2c, &missing);
  resolve_symbol(lib, "cufftExecZ2Z", out.exec_z2z, &missing);
  resolve_symbol(lib, "cufftExecR2C", out.exec_r2c, &missing);
  resolve_symbol(lib, "cufftExecD2Z", out.exec_d2z, &missing);
  resolve_symbol(lib, "cufftExecC2R", out.exec_c2r, &missing);
  resolve_symbol(lib, "cufftExecZ2D", out.exec_z2d, &missing);
  resolve_symbol(lib, "cufftGetVersion", out.get_version, &missing);
  return missing;
}

}  // namespace

const CufftApi* load_cufft_api(std::string* why_not) {
  static auto* loader = new LibraryLoader<CufftApi>(kCufft, bind, "cuFFT (libcufft) was not found");
  return loader->load(why_not);
}

std::string describe_cufft_status(CufftResult status) {
  // cufftResult's names by value (cufft.h has no status-string function);
  // 0xA, 0xC and 0xF exist in CUDA 12's cuFFT 11 only.
  static const char* const kNames[] = {
      "CUFFT_SUCCESS",        "CUFFT_INVALID_PLAN",    "CUFFT_ALLOC_FAILED",
      "CUFFT_INVALID_TYPE",   "CUFFT_INVALID_VALUE",   "CUFFT_INTERNAL_ERROR",
      "CUFFT_EXEC_FAILED",    "CUFFT_SETUP_FAILED",    "CUFFT_INVALID_SIZE",
      "CUFFT_UNALIGNED_DATA", "CUFFT_INCOMPLETE_PARAMETER_LIST", "CUFFT_INVALID_DEVICE",
      "CUFFT_PARSE_ERROR",    "CUFFT_NO_WORKSPACE",    "CUFFT_NOT_IMPLEMENTED",
      "CUFFT_LICENSE_ERROR",  "CUFFT_NOT_SUPPORTED",   "CUFFT_MISSING_DEPENDENCY",
      "CUFFT_NVRTC_FAILURE",  "CUFFT_NVJITLINK_FAILURE", "CUFFT_NVSHMEM_FAILURE"};
  if (status >= 0 && status < static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return kNames[status];
  return "cuFFT status " + std::to_string(status);
}

}  // namespace kiln::runtime::cuda
