// The sort family for the Python layer (pyfrontend/kiln/_sorting.py,
// _counting.py's searchsorted, _sets.py): sort, argsort, ndarray.sort,
// partition, lexsort and searchsorted (arraycore/sort_apply.h), unique,
// isin, intersect1d and compress (arraycore/sets.h), and the sort engine
// itself (arraycore/sort.h) for tests and for routines composed over it.
//
//   _core._sort(a, -1, None, None, None)          # kiln.sort(a): the checks, the axis, the result
//   _core._sort_axis(a, 0, keys_out, index_out)   # sort along a normalised axis into given arrays
//   _core._sort_rows(x2d, None, idx)              # the engine: idx (int64) the stable argsort of each row
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "arraycore/sets.h"
#include "arraycore/sort.h"
#include "arraycore/sort_apply.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

namespace {

std::optional<int64_t> to_axis(py::handle axis) {
  if (axis.is_none()) return std::nullopt;
  return to_index(axis);
}

// A kind= argument: its text (a non-string is shown by its repr, which no
// kind matches) and its repr for messages.
struct KindArg {
  std::optional<std::string> text;
  std::string repr;
  explicit KindArg(py::handle kind) : repr(py::repr(kind).cast<std::string>()) {
    if (py::isinstance<py::str>(kind))
      text = kind.cast<std::string>();
    else if (!kind.is_none())
      text = repr;
  }
  std::optional<std::string_view> view() const {
    return text ? std::optional<std::string_view>(*text) : std::nullopt;
  }
};

void check_kind(py::handle kind, py::handle order, py::handle stable) {
  KindArg k(kind);
  arraycore::check_sort_kind(k.view(), k.repr, !order.is_none(), !stable.is_none());
}

}  // namespace

void register_sort(py::module_& m) {
  m.def(
      "_sort",
      [](const NDArray& a, py::handle axis, py::handle kind, py::handle order, py::handle stable) {
        check_kind(kind, order, stable);
        return arraycore::sort_apply(a, to_axis(axis));
      },
      py::arg("a"), py::arg("axis"), py::arg("kind"), py::arg("order"), py::arg("stable"),
      "kiln.sort: a sorted copy along axis (None: flattened), after NumPy's kind/order/stable checks.");
  m.def(
      "_argsort",
      [](const NDArray& a, py::handle axis, py::handle kind, py::handle order, py::handle stable) {
        check_kind(kind, order, stable);
        return arraycore::argsort_apply(a, to_axis(axis));
      },
      py::arg("a"), py::arg("axis"), py::arg("kind"), py::arg("order"), py::arg("stable"),
      "kiln.argsort: int64 indices sorting a along axis (None: flattened), stable.");
  m.def(
      "_sort_in_place",
      [](const NDArray& a, py::handle axis, py::handle kind, py::handle order, py::handle stable) {
        check_kind(kind, order, stable);
        arraycore::sort_in_place(a, to_index(axis));
      },
      py::arg("a"), py::arg("axis"), py::arg("kind"), py::arg("order"), py::arg("stable"), "ndarray.sort.");
  m.def(
      "_partition",
      [](const NDArray& a, py::handle kth, py::handle axis, py::handle kind, py::handle order, bool indices) {
        KindArg k(kind);
        arraycore::KthArgument kth_arg;
        py::object host = py::module_::import("numpy").attr("asarray")(kth);
        const std::string dkind = host.attr("dtype").attr("kind").cast<std::string>();
        kth_arg.integer = dkind == "i" || dkind == "u";
        kth_arg.ndim = host.attr("ndim").cast<int>();
        if (kth_arg.integer)
          kth_arg.values = host.attr("reshape")(-1).attr("tolist")().cast<std::vector<int64_t>>();
        return arraycore::partition_apply(a, kth_arg, to_axis(axis), k.view(), k.repr, !order.is_none(), indices);
      },
      py::arg("a"), py::arg("kth"), py::arg("axis"), py::arg("kind"), py::arg("order"), py::arg("indices"),
      "kiln.partition (indices False) / argpartition (True): NumPy's checks, then a full stable sort.");
  m.def(
      "_lexsort", [](const std::vector<NDArray>& keys, py::handle axis) {
        return arraycore::lexsort_apply(keys, to_index(axis));
      },
      py::arg("keys"), py::arg("axis"), "kiln.lexsort of a list of kiln arrays.");
  m.def(
      "_sort_axis",
      [](const NDArray& a, int axis, const NDArray* keys_out, const NDArray* index_out) {
        arraycore::sort_along_axis(a, axis, keys_out, index_out);
      },
      py::arg("a"), py::arg("axis"), py::arg("keys_out").none(true), py::arg("index_out").none(true),
      "Sorts a along the normalised axis into keys_out (a's shape and dtype; may be a) and/or index_out "
      "(int64), any layouts.");
  m.def("_gather_rows", &arraycore::gather_rows, py::arg("src"), py::arg("idx"),
        "out[r, j] = src[r, idx[r, j]] for C-contiguous 2-D src and int64 idx.");
  m.def(
      "_searchsorted",
      [](const NDArray& a, const NDArray& v, py::handle side, const NDArray* sorter) {
        if (!py::isinstance<py::str>(side))
          throw py::value_error("search side must be 'left' or 'right' (got " + py::repr(side).cast<std::string>() +
                                ")");
        return arraycore::searchsorted_apply(a, v, side.cast<std::string>(), sorter);
      },
      py::arg("a"), py::arg("v"), py::arg("side"), py::arg("sorter").none(true),
      "kiln.searchsorted for kiln arrays a (1-d) and v; sorter a kiln array or None.");
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
  // Sets (arraycore/sets.h).
  m.def(
      "_unique",
      [](const NDArray& a, py::handle axis, bool equal_nan, bool want_index, bool want_inverse, bool want_counts) {
        std::optional<int64_t> ax;
        if (!axis.is_none()) ax = to_index(axis);
        arraycore::UniqueResult r = arraycore::unique_apply(a, ax, equal_nan, want_index, want_inverse, want_counts);
        return py::make_tuple(r.values, r.index, r.inverse, r.counts);
      },
      py::arg("a"), py::arg("axis"), py::arg("equal_nan"), py::arg("return_index"), py::arg("return_inverse"),
      py::arg("return_counts"), "kiln.unique: (values, index, inverse, counts), None where not asked for.");
  m.def("_isin", &arraycore::isin_apply, py::arg("element"), py::arg("test_elements"),
        "element's shape of bools: whether each is in test_elements (compared in the promoted dtype).");
  m.def(
      "_intersect1d",
      [](const NDArray& a, const NDArray& b, bool assume_unique, bool return_indices) {
        arraycore::IntersectResult r = arraycore::intersect1d_apply(a, b, assume_unique, return_indices);
        return py::make_tuple(r.values, r.index_a, r.index_b);
      },
      py::arg("a"), py::arg("b"), py::arg("assume_unique"), py::arg("return_indices"),
      "kiln.intersect1d: (values, index in a, index in b), the indices None without return_indices.");
  m.def("_compress_flat", &arraycore::compress_flat, py::arg("x"), py::arg("mask"),
        "The elements of 1-d x where the 1-d bool mask is set, in order.");
}

}  // namespace kiln::py_bind
