// Note [CCCL headers] (cccl_include.h).
#include "runtime/cuda/cccl_include.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace kiln::runtime::cuda {

namespace {

namespace fs = std::filesystem;

// The first of `env`, beside NVRTC (P/../<wheel>/include, then P/include and
// P/include/<sub> for each root) ... that holds `marker`; "" if none does.
std::string find_include_dir(const NvrtcApi& rtc, const char* env, const char* wheel, const char* sub,
                             const fs::path& marker) {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv(env); dir && *dir) candidates.emplace_back(dir);
  std::vector<fs::path> roots;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(rtc.version), &info) && info.dli_fname) {
    fs::path root = fs::path(info.dli_fname).parent_path().parent_path();
    roots.push_back(root);
    candidates.push_back(root.parent_path() / wheel / "include");
  }
  if (const char* cuda = std::getenv("CUDA_PATH"); cuda && *cuda) roots.emplace_back(cuda);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    if (*sub) candidates.push_back(root / "include" / sub);
    candidates.push_back(root / "include");
  }
  std::error_code ec;
  for (const auto& dir : candidates)
    if (fs::exists(dir / marker, ec)) return dir.lexically_normal().string();
  return std::string();
}

}  // namespace

const std::string& cccl_include_dir(const NvrtcApi& rtc) {
  static const std::string found =
      find_include_dir(rtc, "KILN_CCCL_INCLUDE", "cuda_cccl", "cccl", fs::path("cub") / "cub.cuh");
  return found;
}

const std::string& cuda_include_dir(const NvrtcApi& rtc) {
  static const std::string found = find_include_dir(rtc, "KILN_CUDA_INCLUDE", "cuda_runtime", "", "cuda_fp16.h");
  return found;
}

// Note [CUDA toolkit headers] (cccl_include.h).
const std::string& curand_include_dir(const NvrtcApi& rtc) {
  static const std::string found = find_include_dir(rtc, "KILN_CUDA_INCLUDE", "curand", "", "curand_kernel.h");
  return found;
}

}  // namespace kiln::runtime::cuda
