// A compiled module loaded on one device, shared by every kernel object that
// asks for the same source and options there.
//
//   auto mod = load_module_cached(request, device);   // compiles through kernel_cache()
//   KernelFunction f = mod->function("my_add");        // or a name expression
//   backend().launch(f.handle, grid, block, 0, stream, args);
//
// Loaded modules stay loaded until the process exits (they are never unloaded
// at exit, when the driver may already be gone).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/kernel_signature.h"

namespace kiln::runtime {

// A kernel ready to launch: its handle and one ParamInfo per parameter, with
// kinds filled in from the source where the backend reports only sizes.
struct KernelFunction {
  FunctionHandle handle = nullptr;
  std::string name;
  std::vector<ParamInfo> params;
  std::vector<std::string> param_types;  // as written in the source, "" if unknown
};

class LoadedModule {
 public:
  LoadedModule(std::shared_ptr<const CompiledModule> compiled, std::vector<KernelDecl> decls,
               int device);
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  // By kernel name or name expression; throws NotFound naming the kernels the
  // module has.
  KernelFunction function(const std::string& name) const;
  // Address and size of a global variable (__device__, __constant__) on this
  // module's device; NotFound when there is none by that name.
  std::pair<void*, size_t> global(const std::string& name) const;
  const CompiledModule& compiled() const { return *compiled_; }
  int device() const { return device_; }

 private:
  std::shared_ptr<const CompiledModule> compiled_;
  std::vector<KernelDecl> decls_;
  int device_;
  ModuleHandle handle_ = nullptr;
};

// Compiles (through kernel_cache) and loads on `device`, once per key and device.
std::shared_ptr<LoadedModule> load_module_cached(const CompileRequest& request, int device);

// When on, every request that load_module_cached compiled successfully is
// remembered (once), so a test can compile each again for another target
// (CI compiles them all with NVRTC for sm_90).
void set_record_compiled_sources(bool on);
std::vector<CompileRequest> recorded_compiled_sources();

// Loads a binary from disk (RawModule(path=...)) on `device`; `source` may be
// empty, otherwise it supplies parameter kinds.
std::shared_ptr<LoadedModule> load_module_file(const std::string& path, int device);

}  // namespace kiln::runtime
