// kiln._core._jit_device_function: a Python function compiled as a CUDA C++
// __device__ function for given scalar argument types (kiln.vectorize runs
// it per element through the elementwise engine; pyfrontend/kiln/_vectorize.py).
//
//   source, name, results, is_tuple, captures = _core._jit_device_function(f, [("float32", False), ("int64", True)])
//   # results: NumPy dtype names of the return value(s); [] when f returns nothing
//   captures.unchanged()   # False once a global or closure value f read has changed
//                          # (Note [Captured globals] in jit_import.h): compile again
#include <pybind11/stl.h>

#include <memory>
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

// The globals and closure values a compiled function read, for the warm-path check.
struct DeviceCaptures {
  std::vector<Capture> captures;
  std::shared_ptr<transpiler::Module> module;  // keeps what the captures point into alive
};

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
  im.module->vectorize = true;   // Note [Vectorize typing]
  transpiler::DeviceFunctionResult r;
  try {
    r = transpiler::transpile_device_function(*im.module, args);
  } catch (const transpiler::TranspileError& e) {
    raise_transpile_error(e, *im.module);
  }
  // Attributed to the call of the vectorized function (vectorize._compile <- __call__ <- the caller).
  raise_transpile_warnings(r.warnings, *im.module, 3);
  std::vector<std::string> results;
  bool is_tuple = r.return_type.kind == TypeKind::Tuple;
  if (is_tuple) {
    for (const auto& e : r.return_type.elems) results.push_back(result_dtype(e));
  } else if (r.return_type.kind != TypeKind::Void) {
    results.push_back(result_dtype(r.return_type));
  }
  auto caps = std::make_shared<DeviceCaptures>();
  caps->captures = std::move(im.captures);
  caps->module = std::move(im.module);
  return py::make_tuple(r.source, r.function_name, results, is_tuple, py::cast(std::move(caps)));
}

}  // namespace

void register_jit_device(py::module_& m) {
  py::class_<DeviceCaptures, std::shared_ptr<DeviceCaptures>>(m, "_JitCaptures")
      .def("unchanged", [](const DeviceCaptures& c) { return captures_unchanged(c.captures); },
           "Whether every global and closure value the function read is still the same object.");
  m.def("_jit_vectorize_operation",
        [](const std::string& function_name, size_t nargs, const std::vector<std::string>& outs, bool tuple) {
          std::vector<arraycore::DType> dtypes;
          for (const auto& name : outs) {
            auto d = arraycore::dtype_from_name(name);
            if (!d) throw py::type_error("unsupported output dtype " + name);
            dtypes.push_back(*d);
          }
          return transpiler::vectorize_operation(function_name, nargs, dtypes, tuple);
        },
        py::arg("function_name"), py::arg("nargs"), py::arg("outs"), py::arg("tuple"),
        "The elementwise operation calling a device function on a0.. and casting its value(s) to outputs r0.. "
        "of dtype names `outs` (transpiler::vectorize_operation).");
  m.def("_jit_device_function", &device_function, py::arg("func"), py::arg("arg_types"),
        "(source, function name, result dtype names, is_tuple, captures) of func compiled as a __device__ function "
        "for scalar arguments [(dtype name, weak)].");
}

}  // namespace kiln::py_bind
