#include "runtime/loaded_module.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

#include "runtime/kernel_cache.h"

namespace kiln::runtime {

LoadedModule::LoadedModule(std::shared_ptr<const CompiledModule> compiled,
                           std::vector<KernelDecl> decls, int device)
    : compiled_(std::move(compiled)), decls_(std::move(decls)), device_(device) {
  handle_ = backend().load_module(*compiled_);
}

LoadedModule::~LoadedModule() {
  try {
    backend().unload_module(handle_);
  } catch (const Error&) {
    // the context may be gone; nothing useful to do
  }
}

KernelFunction LoadedModule::function(const std::string& name) const {
  std::string symbol = name;
  for (const auto& [expression, lowered] : compiled_->lowered_names)
    if (expression == name) symbol = lowered;
  KernelFunction f;
  f.name = name;
  try {
    f.handle = backend().get_function(handle_, symbol);
  } catch (const NotFound& e) {
    std::string known;
    for (const auto& d : decls_)
      if (!d.is_template) known += (known.empty() ? "" : ", ") + d.name;
    for (const auto& [expression, lowered] : compiled_->lowered_names)
      known += (known.empty() ? "" : ", ") + expression;
    throw NotFound("the module has no kernel named '" + name + "'" +
                   (known.empty() ? std::string(" (it defines no extern \"C\" __global__ kernel)")
                                  : " (it has: " + known + ")") +
                   "; C++ kernels need extern \"C\" or name_expressions (" + e.what() + ")");
  }
  f.params = backend().param_info(f.handle);
  // Note [Parameter kinds]: CUDA reports sizes only. When the source declares
  // this kernel with the same number of builtin-typed parameters, take kinds
  // from there so a Python float reaching a float parameter becomes 4 bytes.
  for (const auto& d : decls_) {
    if (d.name != name || d.is_template || d.params.size() != f.params.size()) continue;
    f.param_types.resize(d.params.size());
    for (size_t i = 0; i < d.params.size(); ++i) {
      f.param_types[i] = d.params[i].type;
      if (f.params[i].kind == ParamKind::Unknown && d.params[i].size == f.params[i].size)
        f.params[i].kind = d.params[i].kind;
    }
    break;
  }
  return f;
}

std::pair<void*, size_t> LoadedModule::global(const std::string& name) const {
  std::string symbol = name;
  for (const auto& [expression, lowered] : compiled_->lowered_names)
    if (expression == name) symbol = lowered;
  return backend().module_global(handle_, symbol);
}

namespace {
std::mutex g_record_mutex;
bool g_record = false;
std::vector<CompileRequest>* g_recorded = new std::vector<CompileRequest>();

void record(const CompileRequest& request) {
  std::lock_guard<std::mutex> lock(g_record_mutex);
  if (!g_record) return;
  for (const auto& r : *g_recorded)
    if (r.source == request.source && r.options == request.options &&
        r.name_expressions == request.name_expressions)
      return;
  g_recorded->push_back(request);
}
}  // namespace

void set_record_compiled_sources(bool on) {
  std::lock_guard<std::mutex> lock(g_record_mutex);
  g_record = on;
}

std::vector<CompileRequest> recorded_compiled_sources() {
  std::lock_guard<std::mutex> lock(g_record_mutex);
  return *g_recorded;
}

std::shared_ptr<LoadedModule> load_module_cached(const CompileRequest& request, int device) {
  static std::mutex mutex;
  static auto* loaded = new std::map<std::pair<std::string, int>, std::shared_ptr<LoadedModule>>();
  Backend& be = backend();
  std::string arch = be.target_arch(device);
  std::string key = cache_key(request, be.name(), arch, be.compiler_identity());
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded->find({key, device});
    if (it != loaded->end()) return it->second;
  }
  auto compiled = kernel_cache().get_or_compile(request, be, arch);
  auto module = std::make_shared<LoadedModule>(compiled, scan_kernels(request.source), device);
  record(request);  // compiled and loaded here: NVRTC must agree
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = loaded->emplace(std::make_pair(key, device), module);
  return it->second;
}

std::shared_ptr<LoadedModule> load_module_file(const std::string& path, int device) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))  // the code cuModuleLoad gives, on every backend
    throw Error("cannot load the module '" + path + "': CUDA_ERROR_FILE_NOT_FOUND (file not found)");
  auto compiled = std::make_shared<const CompiledModule>(backend().module_from_file(path));
  return std::make_shared<LoadedModule>(compiled, std::vector<KernelDecl>{}, device);
}

}  // namespace kiln::runtime
