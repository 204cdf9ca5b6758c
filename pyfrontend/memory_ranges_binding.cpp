// kiln._core._byte_bounds / _may_share_memory / _shares_memory: the entries
// of kiln.byte_bounds, kiln.may_share_memory and kiln.shares_memory
// (arraycore/memory_ranges.h; the spans test is arraycore/copy.h's).
#include "arraycore/copy.h"
#include "arraycore/memory_ranges.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

void register_memory_ranges(py::module_& m) {
  m.def(
      "_byte_bounds", [](const NDArray& a) { return arraycore::byte_bounds(a); }, py::arg("a"),
      "(low, high) device addresses of the bytes a spans, high exclusive.");
  m.def(
      "_may_share_memory", [](const NDArray& a, const NDArray& b) { return arraycore::shares_bytes(a, b); },
      py::arg("a"), py::arg("b"), "True when the byte spans of a and b in one allocation meet.");
  m.def(
      "_shares_memory",
      [](const NDArray& a, const NDArray& b, int64_t max_work) {
        try {
          return arraycore::shares_memory_exact(a, b, max_work);
        } catch (const arraycore::TooHardError& e) {
          py::object cls = py::module_::import("numpy").attr("exceptions").attr("TooHardError");
          PyErr_SetString(cls.ptr(), e.what());
          throw py::error_already_set();
        }
      },
      py::arg("a"), py::arg("b"), py::arg("max_work"),
      "True when some byte is in an element of both a and b; max_work < 0: no bound.");
}

}  // namespace kiln::py_bind
