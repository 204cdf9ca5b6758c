// The transpiler's entry point: a kernel's AST and its argument types in,
// CUDA C++ out (infer -> lower -> emit).
//
//   TranspileResult r = transpile(module, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous), ...});
//   r.source        // "#include <kiln/jit.h>\n ... extern \"C\" __global__ void kiln_jit_add(...)"
//   r.kernel_name   // "kiln_jit_add"
//
// Throws TranspileError; render(e.diag(), module) is the message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "transpiler/ast.h"
#include "transpiler/diagnostics.h"
#include "transpiler/types.h"

namespace kiln::transpiler {

struct TranspileResult {
  std::string source;
  std::string kernel_name;
  std::vector<Type> params;       // the kernel's parameter types, as the launcher packs them
  bool uses_dynamic_shared = false;
  std::vector<Diagnostic> warnings;  // TypedModule::warnings: the caller raises them as Python warnings
};

TranspileResult transpile(const Module& m, const std::vector<Type>& args);

// A Python function compiled as a __device__ function for given argument
// types, for engines that call it per element (kiln.vectorize runs it in the
// elementwise engine). m.functions[0] is the function (device = true); the
// source holds the includes and every device function, callees first.
//
//   DeviceFunctionResult r = transpile_device_function(m, {Type::scalar(DType::Float32)});
//   r.function_name   // "kiln_jit_f": call it as kiln_jit_f(x) in a kernel
//   r.return_type     // float32; a Tuple for `return a, b`; Void for no value
struct DeviceFunctionResult {
  std::string source;
  std::string function_name;
  Type return_type;
  std::vector<Diagnostic> warnings;
};

DeviceFunctionResult transpile_device_function(const Module& m, const std::vector<Type>& args);

// The elementwise operation that calls device function `function_name` on
// inputs a0 .. a(nargs-1) and casts its value(s) (a tuple's elements when
// `tuple`) to outputs r0, r1, ... of dtypes `outs` as NumPy casts:
//   vectorize_operation("kiln_jit_f", 2, {DType::Float32}, false)
//     == "r0 = kiln::numpy_cast<float>(kiln_jit_f(a0, a1));"
std::string vectorize_operation(const std::string& function_name, size_t nargs, const std::vector<DType>& outs,
                                bool tuple);

// Bytes a kernel parameter of type t takes in the argument buffer
// (Note [Kernel array parameters] in kiln/jit.h for arrays).
uint32_t param_size(const Type& t);

// Bumped whenever generated code changes for the same input (cache keys).
inline constexpr int kTranspilerVersion = 2;

}  // namespace kiln::transpiler
