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
  r.warnings = std::move(tm.warnings);
  return r;
}

namespace {

// Note [Vectorize typing]: a 16-bit float value is carried in float32.
void carry_in_float32(Type& t) {
  if (t.kind == TypeKind::Tuple)
    for (auto& e : t.elems) carry_in_float32(e);
  if (t.is_scalar() && (t.dtype == DType::Float16 || t.dtype == DType::BFloat16)) t.dtype = DType::Float32;
}

void carry_half_floats_in_float32(TypedModule& tm) {
  for (auto& inst : tm.instances) {
    for (auto& t : inst.param_types) carry_in_float32(t);
    for (auto& t : inst.expr_types) carry_in_float32(t);
    for (auto& t : inst.stmt_types) carry_in_float32(t);
    for (auto& [name, t] : inst.locals) carry_in_float32(t);
    carry_in_float32(inst.return_type);
  }
}

}  // namespace

DeviceFunctionResult transpile_device_function(const Module& m, const std::vector<Type>& args) {
  if (m.functions.empty() || !m.functions[0].device)
    throw std::logic_error("transpile_device_function: functions[0] must be a device function");
  TypedModule tm = infer(m, args);
  DeviceFunctionResult r;
  r.return_type = tm.instances[0].return_type;   // NumPy's dtypes: float16 stays float16 here
  if (m.vectorize) carry_half_floats_in_float32(tm);
  CModule cm = lower(tm);
  r.source = emit(cm);
  r.function_name = tm.instances[0].c_name;
  r.warnings = std::move(tm.warnings);
  return r;
}

std::string vectorize_operation(const std::string& function_name, size_t nargs, const std::vector<DType>& outs,
                                bool tuple) {
  std::string call = function_name + "(";
  for (size_t k = 0; k < nargs; ++k) call += (k ? ", a" : "a") + std::to_string(k);
  call += ")";
  auto cast = [](DType d, const std::string& value) {
    return "kiln::numpy_cast<" + std::string(arraycore::dtype_info(d).c_type) + ">(" + value + ")";
  };
  if (!tuple) return "r0 = " + cast(outs.at(0), call) + ";";
  std::string op = "auto kv_res = " + call + ";\n";
  for (size_t j = 0; j < outs.size(); ++j)
    op += "r" + std::to_string(j) + " = " + cast(outs[j], "kv_res.e" + std::to_string(j)) + ";\n";
  return op;
}

}  // namespace kiln::transpiler
