// kiln._core._sort_rows, _sort_source, _set_sort_segment_elements (tests):
// the sort engine (arraycore/sort.h) for the Python layer
// (pyfrontend/kiln/_sorting.py moves the axis last and makes the results).
//
//   _core._sort_rows(x2d, keys_out, None)    # rows of keys_out: x2d's rows, sorted
//   _core._sort_rows(x2d, None, idx)         # idx (int64): the stable argsort of each row
#include "arraycore/sort.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

void register_sort(py::module_& m) {
  m.def(
      "_sort_rows",
      [](const NDArray& in, const NDArray* keys_out, const NDArray* index_out) {
        arraycore::sort_rows(in, keys_out, index_out);
      },
      py::arg("in"), py::arg("keys_out").none(true), py::arg("index_out").none(true),
      "Stable sort of each row of the 2-D `in` (NumPy's order: NaNs last): keys_out gets the sorted rows, "
      "index_out (int64) each sorted element's index in its row; either may be None, and keys_out may be `in`.");
  m.def(
      "_sort_source", [](py::handle dtype) { return arraycore::sort_source(to_dtype(dtype)); }, py::arg("dtype"));
  m.def(
      "_sort_key_source", [](py::handle dtype) { return arraycore::sort_key_source(to_dtype(dtype)); },
      py::arg("dtype"));
  m.attr("_sort_max_elements") = arraycore::kSortMaxElements;
  m.def(
      "_set_sort_segment_elements", [](int64_t n) { return arraycore::set_sort_segment_elements(n); }, py::arg("n"),
      "For tests: the elements one launch of a sort pass takes (0: the default, 2^30 - 2^16); returns the "
      "previous value.");
}

}  // namespace kiln::py_bind
