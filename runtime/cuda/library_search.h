// How kiln finds the CUDA libraries it loads with dlopen at run time (NVRTC,
// cuBLAS, ...; the driver is always libcuda.so.1): one search, one list of
// extra folders, one symbol resolver, for every library.
//
//   const LibraryCandidates kNvrtc{"KILN_NVRTC_PATH", false, {"libnvrtc.so", "libnvrtc.so.12"}};
//   std::string tried;
//   std::string path = open_library(kNvrtc, [&](void* lib) {
//     std::string missing;
//     resolve_symbol(lib, "nvrtcVersion", api.version, &missing);
//     return missing;                      // "" accepts this library
//   }, &tried);                            // "" and `tried` filled: none found
//
// Note [CUDA library search]
// Candidates, in order: the path in the library's override variable (alone
// when `env_only`, so a test can point it at nothing and see kiln's
// fallback), then each soname by the dynamic loader's own rules, then each
// soname in the folders added with add_library_search_dir (pip's nvidia-*
// wheels, kiln/_loader.py), $CUDA_PATH/lib64 and /usr/local/cuda/lib64. The
// first one that opens and has every required symbol wins and stays open for
// the life of the process. A failed search is repeated only after a folder
// was added (library_search_generation() tells).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace kiln::runtime::cuda {

struct LibraryCandidates {
  const char* env_var;                 // an override path, or nullptr
  bool env_only;                       // the override, when set, is the only candidate
  std::vector<const char*> sonames;    // most wanted first
};

// Adds a folder to every library's search (ignores duplicates and "").
void add_library_search_dir(std::string dir);
// Counts the folders added so far: a loader that failed at generation g
// searches again only once this has moved past g.
uint64_t library_search_generation();

// Opens the candidates of Note [CUDA library search] until `bind` accepts
// one (it resolves the entry points and returns "" or the name of the first
// missing required one; a rejected library is closed). Returns the path
// opened, or "" with one line per candidate and why it failed appended to
// `tried`. Never throws.
std::string open_library(const LibraryCandidates& candidates, const std::function<std::string(void*)>& bind,
                         std::string* tried);

// One library's table of entry points (Api), found once per process by
// open_library with `bind` (Api's resolver): load() returns it, or nullptr
// with why_not = `not_found` + the candidates tried; a failed search is
// repeated only after a folder was added. Thread-safe; the first table
// found is never replaced, and a found table costs one atomic load.
// Instances are meant to be leaked statics (used at exit too).
template <class Api>
class LibraryLoader {
 public:
  using Bind = std::string (*)(void* lib, Api& api);
  LibraryLoader(LibraryCandidates candidates, Bind bind, std::string not_found)
      : candidates_(std::move(candidates)), bind_(bind), not_found_(std::move(not_found)) {}

  const Api* load(std::string* why_not) {
    if (const Api* api = found_.load(std::memory_order_acquire)) return api;
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t generation = library_search_generation();
    if (!api_ && searched_at_ != generation) {
      searched_at_ = generation;
      auto api = std::make_unique<Api>();
      std::string tried;
      std::string path = open_library(candidates_, [&](void* lib) { return bind_(lib, *api); }, &tried);
      if (!path.empty()) {
        api->library_path = std::move(path);
        api_ = std::move(api);
        found_.store(api_.get(), std::memory_order_release);
      } else {
        why_not_ = not_found_ + "; tried:" + tried;
      }
    }
    if (!api_ && why_not) *why_not = why_not_;
    return api_.get();
  }

 private:
  const LibraryCandidates candidates_;
  const Bind bind_;
  const std::string not_found_;
  std::mutex mutex_;
  std::unique_ptr<Api> api_;
  std::atomic<const Api*> found_{nullptr};
  std::string why_not_;
  uint64_t searched_at_ = UINT64_MAX;  // library_search_generation() of the last failed search
};

// dlsym(lib, name) into `slot`; the first missing name goes to `missing`
// (nullptr for an optional symbol).
template <typename Fn>
bool resolve_symbol(void* lib, const char* name, Fn*& slot, std::string* missing) {
  slot = reinterpret_cast<Fn*>(dlsym(lib, name));
  if (!slot && missing && missing->empty()) *missing = name;
  return slot != nullptr;
}

}  // namespace kiln::runtime::cuda
