#include "transpiler/transpile.h"

#include <stdexcept>

#include "transpiler/infer.h"
#include "transpiler/lower.h"

namespace kiln::transpiler {

uint32_t param_size(const Type& t) {
  if (t.is_array()) {
    uint32_t dims = static_cast<uint32_t>(t.ndim > 0 ? t.ndim : 1);
    return 8u + 8u * dims * (t.storage == ArrayStorage::Contiguous ? 1u : 2u);
  }
  if (t.is_scalar()) return static_cast<uint32_t>(arraycore::itemsize(t.dtype));
  return 0;
}

TranspileResult transpile(const Module& m, const std::vector<Type>& args) {
  TypedModule tm = infer(m, args);
  CModule cm = lower(tm);
  TranspileResult r;
  r.source = emit(cm);
  r.kernel_name = tm.instances[0].c_name;
  for (const auto& a : args) r.params.push_back(strong(a));
  r.uses_dynamic_shared = tm.uses_dynamic_shared;
  return r;
}

DeviceFunctionResult transpile_device_function(const Module& m, const std::vector<Type>& args) {
  if (m.functions.empty() || !m.functions[0].device)
    throw std::logic_error("transpile_device_function: functions[0] must be a device function");
  TypedModule tm = infer(m, args);
  CModule cm = lower(tm);
  DeviceFunctionResult r;
  r.source = emit(cm);
  r.function_name = tm.instances[0].c_name;
  r.return_type = tm.instances[0].return_type;
  return r;
}

}  // namespace kiln::transpiler
