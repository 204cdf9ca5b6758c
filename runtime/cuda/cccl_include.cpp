// Note [CCCL headers] (cccl_include.h).
#include "runtime/cuda/cccl_include.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace kiln::runtime::cuda {

const std::string& cccl_include_dir(const NvrtcApi& rtc) {
  static const std::string found = [&] {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("KILN_CCCL_INCLUDE"); env && *env) candidates.emplace_back(env);
    std::vector<fs::path> roots;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(rtc.version), &info) && info.dli_fname) {
      fs::path root = fs::path(info.dli_fname).parent_path().parent_path();
      roots.push_back(root);
      candidates.push_back(root.parent_path() / "cuda_cccl" / "include");
    }
    if (const char* cuda = std::getenv("CUDA_PATH"); cuda && *cuda) roots.emplace_back(cuda);
    roots.emplace_back("/usr/local/cuda");
    for (const auto& root : roots) {
      candidates.push_back(root / "include" / "cccl");
      candidates.push_back(root / "include");
    }
    std::error_code ec;
    for (const auto& dir : candidates)
      if (fs::exists(dir / "cub" / "cub.cuh", ec)) return dir.lexically_normal().string();
    return std::string();
  }();
  return found;
}

// Note [CUDA toolkit headers] (cccl_include.h).
const std::string& toolkit_include_dir(const NvrtcApi& rtc) {
  static const std::string found = [&] {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("KILN_CUDA_INCLUDE"); env && *env) candidates.emplace_back(env);
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(rtc.version), &info) && info.dli_fname) {
      fs::path root = fs::path(info.dli_fname).parent_path().parent_path();
      candidates.push_back(root / "include");
      candidates.push_back(root.parent_path() / "curand" / "include");
    }
    if (const char* cuda = std::getenv("CUDA_PATH"); cuda && *cuda) candidates.push_back(fs::path(cuda) / "include");
    candidates.emplace_back("/usr/local/cuda/include");
    std::error_code ec;
    for (const auto& dir : candidates)
      if (fs::exists(dir / "curand_kernel.h", ec)) return dir.lexically_normal().string();
    return std::string();
  }();
  return found;
}

}  // namespace kiln::runtime::cuda
