// Finds libnvrtc with dlopen and resolves the entry points of NvrtcApi.
#include "runtime/cuda/nvrtc_api.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "runtime/cuda/cuda_backend.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {
namespace {

const char* const kSonames[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};

struct LoaderState {
  std::mutex mutex;
  std::vector<std::string> extra_dirs;
  std::unique_ptr<NvrtcApi> api;  // set once, never reset
  std::string why_not;            // of the last failed search
  bool searched_since_last_dir = false;
};

LoaderState& state() {
  static LoaderState* s = new LoaderState;  // never destroyed: used at exit too
  return *s;
}

template <typename Fn>
void resolve(void* lib, const char* name, Fn*& slot, std::string* missing) {
  slot = reinterpret_cast<Fn*>(dlsym(lib, name));
  if (!slot && missing && missing->empty()) *missing = name;
}

// Opens `path` and fills `out`; on failure appends a line to `tried`.
bool try_open(const std::string& path, NvrtcApi& out, std::string& tried) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    tried += "\n  " + path + ": " + (err ? err : "not loadable");
    return false;
  }
  std::string missing;
  resolve(lib, "nvrtcGetErrorString", out.get_error_string, &missing);
  resolve(lib, "nvrtcVersion", out.version, &missing);
  resolve(lib, "nvrtcCreateProgram", out.create_program, &missing);
  resolve(lib, "nvrtcDestroyProgram", out.destroy_program, &missing);
  resolve(lib, "nvrtcCompileProgram", out.compile_program, &missing);
  resolve(lib, "nvrtcGetPTXSize", out.get_ptx_size, &missing);
  resolve(lib, "nvrtcGetPTX", out.get_ptx, &missing);
  resolve(lib, "nvrtcGetCUBINSize", out.get_cubin_size, &missing);
  resolve(lib, "nvrtcGetCUBIN", out.get_cubin, &missing);
  resolve(lib, "nvrtcGetProgramLogSize", out.get_log_size, &missing);
  resolve(lib, "nvrtcGetProgramLog", out.get_log, &missing);
  resolve(lib, "nvrtcAddNameExpression", out.add_name_expression, &missing);
  resolve(lib, "nvrtcGetLoweredName", out.get_lowered_name, &missing);
  resolve(lib, "nvrtcGetNumSupportedArchs", out.get_num_supported_archs, nullptr);
  resolve(lib, "nvrtcGetSupportedArchs", out.get_supported_archs, nullptr);
  if (!missing.empty()) {
    tried += "\n  " + path + ": has no " + missing;
    dlclose(lib);
    return false;
  }
  out.library_path = path;
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
  return true;  // stays open for the life of the process
}

std::vector<std::string> candidate_paths(const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("KILN_NVRTC_PATH"); env && *env) paths.emplace_back(env);
  for (const char* soname : kSonames) paths.emplace_back(soname);
  std::vector<std::string> dirs = extra_dirs;
  if (const char* cuda = std::getenv("CUDA_PATH"); cuda && *cuda) {
    dirs.push_back(std::string(cuda) + "/lib64");
  }
  dirs.emplace_back("/usr/local/cuda/lib64");
  for (const std::string& dir : dirs) {
    for (const char* soname : kSonames) paths.push_back(dir + "/" + soname);
  }
  return paths;
}

const NvrtcApi* load_locked(LoaderState& s) {
  if (s.api) return s.api.get();
  if (s.searched_since_last_dir) return nullptr;  // nothing new to try
  s.searched_since_last_dir = true;
  auto api = std::make_unique<NvrtcApi>();
  std::string tried;
  for (const std::string& path : candidate_paths(s.extra_dirs)) {
    if (try_open(path, *api, tried)) {
      s.api = std::move(api);
      return s.api.get();
    }
  }
  s.why_not = "NVRTC (libnvrtc) was not found; tried:" + tried +
              "\nInstall the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, or set "
              "KILN_NVRTC_PATH to the library file.";
  return nullptr;
}

}  // namespace

const NvrtcApi* try_nvrtc_api(std::string* why_not) {
  LoaderState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const NvrtcApi* api = load_locked(s);
  if (!api && why_not) *why_not = s.why_not;
  return api;
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

namespace kiln::runtime {

void add_nvrtc_search_dir(std::string dir) {
  if (dir.empty()) return;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  cuda::LoaderState& s = cuda::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (std::find(s.extra_dirs.begin(), s.extra_dirs.end(), dir) != s.extra_dirs.end()) return;
  s.extra_dirs.push_back(std::move(dir));
  s.searched_since_last_dir = false;
}

}  // namespace kiln::runtime
