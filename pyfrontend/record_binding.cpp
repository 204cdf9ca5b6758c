// Structured and void dtypes' own functions (arraycore/record_dtype.h):
// kiln.make_aligned_dtype. Field views, copies and comparisons come through
// ndarray indexing, copy_into and the equal/not_equal ufuncs.
#include "arraycore/record_dtype.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

void register_records(py::module_& m) {
  m.def(
      "make_aligned_dtype",
      [](py::handle dtype) {
        py::object descr = py::module_::import("numpy").attr("dtype")(dtype);
        if (descr.attr("names").is_none())
          throw py::value_error("make_aligned_dtype only supports structured dtypes, not " +
                                std::string(py::str(py::repr(descr))));
        return to_numpy_dtype(arraycore::make_aligned_dtype(to_dtype(descr)));
      },
      py::arg("dtype"),
      "numpy.dtype with every field at an offset the GPU can load it from (complex types aligned to "
      "their full itemsize, nested structures aligned first) and the itemsize padded to the largest "
      "alignment (Note [Record field alignment]); ValueError for dtypes that are not structured.");
}

}  // namespace kiln::py_bind
