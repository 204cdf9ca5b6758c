// Type inference per call signature (infer.cpp).
//
//   TypedModule tm = infer(module, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous),
//                                   Type::weak_scalar(DType::Int64)});
//   tm.instances[0].expr_types[e.id]   // the type of expression e in the kernel
//
// Note [Local types]
// A local's type is the join (types.h) of every value assigned to it anywhere
// in the function, across branches and loop iterations: `s = 0` then
// `s += x[i]` with float32 x makes `s` float32. Inference runs the function
// body to a fixed point (types only grow), then once more strictly, recording
// every expression's type and raising the first error. Assignments that join
// to nothing (an array and a number) are type errors naming both places.
//
// Note [Definite assignment]
// A local read where some path reaches it without an assignment is an error
// (UnboundLocalError), as Python would raise at run time on that path; a loop
// body may run zero times, so what it assigns is not assigned after it, except
// that a non-empty constant range assigns its target and `while True:` leaves
// what every `break` has assigned (definite_assignment.cpp).
//
// Note [Missing return]
// A device function (or a vectorize body) that returns a value on some path
// must return one on every path: Python would return None where it falls off
// its end, which no kernel type holds, and C++ would return garbage. The
// definite-assignment pass knows which paths reach the end (`while True:`
// without a break does not; `if True:` takes no else); when one does, the
// function is a TypeError with the caret at its `def` and a note at a return.
//
// Note [Device functions]
// A Python function called from a kernel becomes a __device__ function, one
// instance per argument-type signature (as a C++ template would), its return
// type the join of its `return` values. Recursion, direct or not, is a
// ValueError (as in CuPy); a factory called with constants gives a new
// function per call (Note [Compile-time calls] in pyfrontend/ast_import.cpp),
// which is how a kernel recurses over constants.
//
// Note [Vectorize typing]
// A kiln.vectorize body (Module::vectorize, with what it calls) is typed as
// a kernel is, except where numpy.vectorize's Python execution decides
// otherwise and CuPy's vectorize agrees: `for i in range(n)` gives Python
// ints (a weak int64 `i`, whatever integer type `n` has), where a kernel's
// loop variable takes the type of range's arguments. And float16 (and
// bfloat16) values are typed as NumPy types them but carried in float32
// (transpile_device_function rewrites the types after inference): only the
// output is rounded to float16, and a cast such as numpy.float16(v), so
// `x1 + x2 * x3 ** x1` rounds once, as numpy.vectorize (computing in Python
// floats) and CuPy (whose float16 has no arithmetic of its own) do, not
// after every operation as NumPy's float16 scalars would.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "transpiler/ast.h"
#include "transpiler/builtins.h"
#include "transpiler/diagnostics.h"
#include "transpiler/types.h"

namespace kiln::transpiler {

struct Instance {
  int function = 0;                       // index in Module::functions
  std::vector<Type> param_types;
  std::string c_name;                     // the C++ function's name
  std::vector<Type> expr_types;           // by Expr::id
  std::vector<int> call_instance;         // by Expr::id: the device-function instance a Call runs, else -1
  std::vector<Type> stmt_types;           // by Stmt::id: an augmented assignment's operation type
  std::map<std::string, Type> locals;     // parameters included
  std::vector<std::string> local_order;   // first assignment order (parameters first)
  Type return_type = Type::void_();
};

struct TypedModule {
  const Module* module = nullptr;
  std::vector<Instance> instances;  // [0] is the kernel
  std::vector<int> emit_order;      // device functions before their callers; the kernel last
  bool uses_dynamic_shared = false;
  std::vector<Diagnostic> warnings;  // raised as Python warnings after a successful transpile (kind: the category)
};

// Throws TranspileError (diagnostics.h) with Diagnostic::function set.
TypedModule infer(const Module& m, const std::vector<Type>& kernel_args);

// A compile-time integer: literals, captured constants, and + - * // of them.
std::optional<long long> const_int(const Expr& e);

}  // namespace kiln::transpiler
