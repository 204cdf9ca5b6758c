// Chooses the process's backend once: KILN_BACKEND, else cuda, else host.
#include <cstdlib>
#include <memory>
#include <string>

#include "runtime/backend.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/host/host_backend.h"

namespace kiln::runtime {
namespace {

std::unique_ptr<Backend> select_backend() {
  const char* env = std::getenv("KILN_BACKEND");
  std::string requested = env ? env : "";
  if (requested == "host") return make_host_backend();
  if (requested == "cuda") {
    std::string why_not;
    auto cuda = make_cuda_backend(&why_not);
    if (!cuda) throw Error("KILN_BACKEND=cuda, but the CUDA backend cannot start: " + why_not);
    return cuda;
  }
  if (!requested.empty()) {
    throw InvalidArgument("KILN_BACKEND='" + requested +
                          "' is not a backend of this build; use 'cuda' or 'host'");
  }
  std::string why_not;
  if (auto cuda = make_cuda_backend(&why_not)) return cuda;
  return make_host_backend();
}

std::string& include_dir_storage() {
  static std::string dir;
  return dir;
}

}  // namespace

Backend& backend() {
  static std::unique_ptr<Backend> instance = select_backend();
  return *instance;
}

const BackendCaps& backend_caps() {
  try {
    return backend().caps();
  } catch (const Error&) {
    const char* env = std::getenv("KILN_BACKEND");
    if (env != nullptr && std::string(env) == "cuda") return cuda_backend_caps();
    throw;
  }
}

void set_stdlib_include_dir(std::string dir) { include_dir_storage() = std::move(dir); }

const std::string& stdlib_include_dir() { return include_dir_storage(); }

}  // namespace kiln::runtime
