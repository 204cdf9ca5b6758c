// The METH_FASTCALL ufunc methods' shared argument handling: ufunc.reduce,
// ufunc.accumulate, kiln._core._reduce_apply and the ndarray reduction
// methods (reduction_binding.cpp, scan_binding.cpp), over the operand
// parsing of ufunc_binding.cpp.
#pragma once

#include <optional>
#include <span>

#include "arraycore/ufunc_apply.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

// A ufunc operand (ufunc_binding.cpp): a kiln array, or a Python or NumPy
// scalar's value (NEP 50); false for foreign objects unless `strict`, where
// host arrays and foreign objects raise kiln's TypeError.
bool to_ufunc_input(py::handle obj, arraycore::UfuncInput& in, bool strict);
// The definition behind a kiln.ufunc object, nullptr for any other object.
const arraycore::UfuncDef* ufunc_def_of(PyObject* obj);

// For the METH_FASTCALL ufunc methods (reduction_binding.cpp, scan_binding.cpp):
// parses (args, kwnames) against `names` (the first `positional` may be
// positional) into slots (borrowed; nullptr = not given), TypeError otherwise;
// the operand (a kiln array, or a Python or NumPy scalar as a 0-d array held
// in `keep`; TypeError for host arrays); and out= (None, an array or a
// 1-tuple; `given` receives the object to return).
void parse_fastcall(const char* fname, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                    std::span<const char* const> names, size_t positional, PyObject** slots);
const arraycore::NDArray& ufunc_method_operand(PyObject* obj, py::object& keep);
std::optional<arraycore::NDArray> ufunc_method_out(PyObject* out, const char* method, PyObject** given);
// Runs f() (returning a new reference), setting the Python error for a C++ exception.
template <class F>
PyObject* guarded_call(F&& f) {
  try {
    return f();
  } catch (...) {
    set_python_error(std::current_exception());
    return nullptr;
  }
}
#define KILN_FASTCALL(f) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f)), METH_FASTCALL | METH_KEYWORDS

}  // namespace kiln::py_bind
