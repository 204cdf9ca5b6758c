// kiln.ufunc.accumulate: one C++ call, arraycore::accumulate_apply
// (scan_apply.h), parsed here as a METH_FASTCALL method (Note [Reduction
// calls] in reduction_binding.cpp); _nan_as, the NaN replacement of
// nancumsum/nancumprod; and _scan_rows, the scan engine's entry point
// (arraycore/scan.h) for the Python modules that scan rows themselves.
#include <pybind11/stl.h>

#include "arraycore/scan.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/scan_apply.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/ufunc_method_args.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

// ufunc.accumulate(array, axis=0, dtype=None, out=None)
PyObject* ufunc_accumulate(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded_call([&] {
    static const char* const names[] = {"array", "axis", "dtype", "out"};
    PyObject* s[4] = {};
    parse_fastcall("accumulate", args, nargs, kwnames, names, 4, s);
    if (s[0] == nullptr) throw py::type_error("accumulate() missing required argument 'array' (pos 1)");
    const arraycore::UfuncDef* uf = ufunc_def_of(self);
    if (uf == nullptr) throw py::type_error("accumulate: self must be a kiln.ufunc");
    arraycore::check_binary_method(*uf, "accumulate");
    py::object keep;
    const NDArray& a = ufunc_method_operand(s[0], keep);
    arraycore::AccumulateOptions o;
    if (a.ndim() == 0) throw py::type_error("cannot accumulate on a scalar");
    if (s[1] == nullptr) {
      o.axes = std::vector<int64_t>{0};
    } else if (PyTuple_Check(s[1])) {
      std::vector<int64_t> axes;
      for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(s[1]); ++k) axes.push_back(to_index(PyTuple_GET_ITEM(s[1], k)));
      o.axes = std::move(axes);
    } else if (s[1] != Py_None) {
      o.axes = std::vector<int64_t>{to_index(s[1])};
    }
    PyObject* out = nullptr;
    o.out = ufunc_method_out(s[3], "accumulate", &out);
    if (s[2] != nullptr && s[2] != Py_None) o.dtype = to_dtype(s[2]);
    NDArray result = arraycore::accumulate_apply(*uf, a, o);
    if (out != nullptr) return py::reinterpret_borrow<py::object>(out).release().ptr();
    return py::cast(std::move(result)).release().ptr();
  });
}

PyMethodDef g_ufunc_accumulate_def = {
    "accumulate", KILN_FASTCALL(ufunc_accumulate),
    "accumulate(array, axis=0, dtype=None, out=None)\n\nRunning results of the ufunc along one axis, as "
    "numpy.ufunc.accumulate (a parallel scan for reorderable ufuncs: Note [Scan engine] in arraycore/scan.h)."};

}  // namespace

void register_scan(py::module_& m) {
  install_method(m.attr("ufunc"), &g_ufunc_accumulate_def);
  m.def(
      "_nan_as", [](const NDArray& a, int value) { return arraycore::nan_replaced(a, value); }, py::arg("a"),
      py::arg("value"),
      "a with NaNs replaced by value (0 or 1), a new C-contiguous array; a itself when it holds no floats.");
  m.def(
      "_scan_rows",
      [](const NDArray& in, const NDArray& out, std::string name, std::string combine, std::string preamble,
         std::vector<std::string> options) {
        arraycore::ScanSpec spec;
        spec.name = std::move(name);
        spec.combine = std::move(combine);
        spec.acc = out.dtype();
        spec.preamble = std::move(preamble);
        spec.options = std::move(options);
        arraycore::scan_rows(spec, in, out);
      },
      py::arg("in"), py::arg("out"), py::arg("name"), py::arg("combine"), py::arg("preamble") = "",
      py::arg("options") = std::vector<std::string>{},
      "out[r, j] = in[r, 0] op ... op in[r, j] for 2-D in and out of one shape (any strides; out may be in), "
      "op the device expression `combine` of a (earlier) and b (later) in out's dtype; `name` an identifier "
      "unique to (combine, preamble).");
}

}  // namespace kiln::py_bind
