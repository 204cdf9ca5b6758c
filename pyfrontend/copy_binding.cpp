// kiln._core._copy_into / _copy_where: the copy kernel's entry points for
// kiln.copyto (pyfrontend/kiln/_copyto.py does the checks, the broadcasting
// and NumPy's messages; arraycore/copy.cpp does the work).
#include "arraycore/copy.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

void register_copy(py::module_& m) {
  m.def(
      "_copy_into",
      [](const NDArray& dst, const NDArray& src) { arraycore::copy_into(src, dst); },
      py::arg("dst"), py::arg("src"),
      "dst[...] = src cast to dst's dtype; equal shapes (broadcast first), any layouts, overlap allowed.");
  m.def(
      "_copy_where",
      [](const NDArray& dst, const NDArray& src, const NDArray& mask) {
        arraycore::copy_into_where(src, dst, mask);
      },
      py::arg("dst"), py::arg("src"), py::arg("mask"),
      "dst[i] = src[i] cast to dst's dtype where the bool mask[i]; equal shapes (broadcast first), any "
      "layouts, overlap allowed.");
}

}  // namespace kiln::py_bind
