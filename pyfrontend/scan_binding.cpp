// kiln._core._scan_rows: the scan engine's entry point (arraycore/scan.h) for
// ufunc.accumulate (pyfrontend/kiln/_ufunc_methods.py does the checks, the
// axis moves and the dtypes).
#include <pybind11/stl.h>

#include "arraycore/scan.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

void register_scan(py::module_& m) {
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
