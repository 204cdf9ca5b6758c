// Finds libnvrtc with dlopen and resolves the entry points of NvrtcApi.
#include "runtime/cuda/nvrtc_api.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/library_search.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {
namespace {

const LibraryCandidates kNvrtc{"KILN_NVRTC_PATH", false, {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}};

// Resolves NvrtcApi's entry points from `lib`: "" or the first missing one.
std::string bind(void* lib, NvrtcApi& out) {
  std::string missing;
  resolve_symbol(lib, "nvrtcGetErrorString", out.get_error_string, &missing);
  resolve_symbol(lib, "nvrtcVersion", out.version, &missing);
  resolve_symbol(lib, "nvrtcCreateProgram", out.create_program, &missing);
  resolve_symbol(lib, "nvrtcDestroyProgram", out.destroy_program, &missing);
  resolve_symbol(lib, "nvrtcCompileProgram", out.compile_program, &missing);
  resolve_symbol(lib, "nvrtcGetPTXSize", out.get_ptx_size, &missing);
  resolve_symbol(lib, "nvrtcGetPTX", out.get_ptx, &missing);
  resolve_symbol(lib, "nvrtcGetCUBINSize", out.get_cubin_size, &missing);
  resolve_symbol(lib, "nvrtcGetCUBIN", out.get_cubin, &missing);
  resolve_symbol(lib, "nvrtcGetProgramLogSize", out.get_log_size, &missing);
  resolve_symbol(lib, "nvrtcGetProgramLog", out.get_log, &missing);
  resolve_symbol(lib, "nvrtcAddNameExpression", out.add_name_expression, &missing);
  resolve_symbol(lib, "nvrtcGetLoweredName", out.get_lowered_name, &missing);
  resolve_symbol(lib, "nvrtcGetNumSupportedArchs", out.get_num_supported_archs, nullptr);
  resolve_symbol(lib, "nvrtcGetSupportedArchs", out.get_supported_archs, nullptr);
  if (!missing.empty()) return missing;
  int count = 0;
  if (out.get_num_supported_archs && out.get_supported_archs &&
      out.get_num_supported_archs(&count) == nvrtc_result::kSuccess && count > 0) {
    out.supported_archs.resize(static_cast<size_t>(count));
    if (out.get_supported_archs(out.supported_archs.data()) == nvrtc_result::kSuccess) {
      std::sort(out.supported_archs.begin(), out.supported_archs.end());
    } else {
      out.supported_archs.clear();
    }
  }
  return "";
}

}  // namespace

const NvrtcApi* try_nvrtc_api(std::string* why_not) {
  static auto* loader = new LibraryLoader<NvrtcApi>(
      kNvrtc, bind,
      "NVRTC (libnvrtc) was not found (install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, or set "
      "KILN_NVRTC_PATH to the library file)");
  return loader->load(why_not);
}

const NvrtcApi& nvrtc_api() {
  std::string why_not;
  const NvrtcApi* api = try_nvrtc_api(&why_not);
  if (!api) throw Error(why_not);
  return *api;
}

std::string nvrtc_identity() {
  const NvrtcApi& rtc = nvrtc_api();
  int major = 0, minor = 0;
  NvrtcResult r = rtc.version(&major, &minor);
  if (r != nvrtc_result::kSuccess) {
    throw Error(std::string("nvrtcVersion failed: ") + rtc.get_error_string(r));
  }
  return "nvrtc-" + std::to_string(major) + "." + std::to_string(minor);
}

const std::vector<int>& nvrtc_supported_archs() {
  static const std::vector<int> none;
  const NvrtcApi* rtc = try_nvrtc_api(nullptr);
  return rtc ? rtc->supported_archs : none;
}

std::string nvrtc_arch_for(int major, int minor) {
  const int wanted = major * 10 + minor;
  const std::vector<int>& archs = nvrtc_supported_archs();
  if (archs.empty() || std::find(archs.begin(), archs.end(), wanted) != archs.end()) {
    return "sm_" + std::to_string(wanted);
  }
  // SASS for sm_XY runs on sm_XZ with Z >= Y: take the newest such.
  int same_major = -1;
  for (int a : archs) {
    if (a / 10 == major && a <= wanted) same_major = a;
  }
  if (same_major >= 0) return "sm_" + std::to_string(same_major);
  if (wanted > archs.back()) return "compute_" + std::to_string(archs.back());
  return "sm_" + std::to_string(wanted);  // older than NVRTC supports: let it say so
}

}  // namespace kiln::runtime::cuda
