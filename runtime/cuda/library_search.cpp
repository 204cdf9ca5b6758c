// Note [CUDA library search] (library_search.h).
#include "runtime/cuda/library_search.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

namespace kiln::runtime::cuda {
namespace {

struct SearchDirs {
  std::mutex mutex;
  std::vector<std::string> dirs;
  std::atomic<uint64_t> generation{0};
};

SearchDirs& search_dirs() {
  static SearchDirs* s = new SearchDirs;  // never destroyed: used at exit too
  return *s;
}

std::vector<std::string> candidate_paths(const LibraryCandidates& c) {
  std::vector<std::string> paths;
  if (const char* env = c.env_var ? std::getenv(c.env_var) : nullptr; env && *env) {
    paths.emplace_back(env);
    if (c.env_only) return paths;
  }
  for (const char* soname : c.sonames) paths.emplace_back(soname);
  std::vector<std::string> dirs;
  {
    SearchDirs& s = search_dirs();
    std::lock_guard<std::mutex> lock(s.mutex);
    dirs = s.dirs;
  }
  if (const char* cuda = std::getenv("CUDA_PATH"); cuda && *cuda) dirs.push_back(std::string(cuda) + "/lib64");
  dirs.emplace_back("/usr/local/cuda/lib64");
  for (const std::string& dir : dirs)
    for (const char* soname : c.sonames) paths.push_back(dir + "/" + soname);
  return paths;
}

}  // namespace

void add_library_search_dir(std::string dir) {
  if (dir.empty()) return;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  SearchDirs& s = search_dirs();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (std::find(s.dirs.begin(), s.dirs.end(), dir) != s.dirs.end()) return;
  s.dirs.push_back(std::move(dir));
  s.generation.fetch_add(1, std::memory_order_release);
}

uint64_t library_search_generation() { return search_dirs().generation.load(std::memory_order_acquire); }

std::string open_library(const LibraryCandidates& candidates, const std::function<std::string(void*)>& bind,
                         std::string* tried) {
  for (const std::string& path : candidate_paths(candidates)) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* err = dlerror();
      if (tried) *tried += "\n  " + path + ": " + (err ? err : "not loadable");
      continue;
    }
    std::string missing = bind(lib);
    if (missing.empty()) return path;  // stays open for the life of the process
    if (tried) *tried += "\n  " + path + ": has no " + missing;
    dlclose(lib);
  }
  return "";
}

}  // namespace kiln::runtime::cuda
