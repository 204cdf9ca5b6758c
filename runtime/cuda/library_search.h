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

#include <cstdint>
#include <functional>
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

// dlsym(lib, name) into `slot`; the first missing name goes to `missing`
// (nullptr for an optional symbol).
template <typename Fn>
bool resolve_symbol(void* lib, const char* name, Fn*& slot, std::string* missing) {
  slot = reinterpret_cast<Fn*>(dlsym(lib, name));
  if (!slot && missing && missing->empty()) *missing = name;
  return slot != nullptr;
}

}  // namespace kiln::runtime::cuda
