// kiln._core._jit_device_function: a Python function compiled as a CUDA C++
// __device__ function for given scalar argument types (kiln.vectorize runs
// it per element through the elementwise engine; pyfrontend/kiln/_vectorize.py).
//
//   source, name, results, is_tuple = _core._jit_device_function(f, [("float32", False), ("int64", True)])
//   # results: NumPy dtype names of the return value(s); [] when f returns nothing
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pyfrontend/bindings.h"
#include "pyfrontend/jit_import.h"
#include "transpiler/transpile.h"

namespace kiln::py_bind {
namespace {

using transpiler::Type;
using transpiler::TypeKind;

std::string result_dtype(const Type& t) {
  if (!t.is_scalar())
    throw py::type_error("a vectorized function returns numbers (or a flat tuple of numbers), got " + t.str());
  return std::string(arraycore::dtype_info(t.dtype).name);
}

py::tuple device_function(py::handle func, const std::vector<std::pair<std::string, bool>>& arg_types) {
  std::vector<Type> args;
  for (const auto& [name, weak] : arg_types) {
    auto d = arraycore::dtype_from_name(name);
    if (!d) throw py::type_error("unsupported argument dtype " + name);
    args.push_back(weak ? Type::weak_scalar(*d) : Type::scalar(*d));
  }
  ImportedModule im = import_kernel(func, py::none(), /*device=*/true);
  transpiler::DeviceFunctionResult r;
  try {
    r = transpiler::transpile_device_function(*im.module, args);
  } catch (const transpiler::TranspileError& e) {
    raise_transpile_error(e, *im.module);
  }
  std::vector<std::string> results;
  bool is_tuple = r.return_type.kind == TypeKind::Tuple;
  if (is_tuple) {
    for (const auto& e : r.return_type.elems) results.push_back(result_dtype(e));
  } else if (r.return_type.kind != TypeKind::Void) {
    results.push_back(result_dtype(r.return_type));
  }
  return py::make_tuple(r.source, r.function_name, results, is_tuple);
}

}  // namespace

void register_jit_device(py::module_& m) {
  m.def("_jit_device_function", &device_function, py::arg("func"), py::arg("arg_types"),
        "(source, function name, result dtype names, is_tuple) of func compiled as a __device__ function "
        "for scalar arguments [(dtype name, weak)].");
}

}  // namespace kiln::py_bind
