// Advanced-indexing keys from Python objects (ndarray_binding.cpp's
// __getitem__/__setitem__ come here when basic indexing does not cover a
// key), kiln.config's indexing switches, and nonzero's entry points.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arraycore/advanced_indexing.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::AdvancedItem;
using arraycore::NDArray;

py::module_& numpy() {
  static py::module_ np = py::module_::import("numpy");
  return np;
}

NDArray upload(py::handle host) {
  std::vector<int> c_order(host.attr("ndim").cast<size_t>());
  for (size_t d = 0; d < c_order.size(); ++d) c_order[d] = static_cast<int>(d);
  return upload_host_array(host, c_order);
}

// A host index (list, nested list, tuple, NumPy array or scalar, bool) as an
// index array: integers keep their host copy in `keep` for the bounds check.
AdvancedItem host_array_item(py::handle k, std::vector<py::object>& keep) {
  py::object arr = numpy().attr("asarray")(k);
  char kind = arr.attr("dtype").attr("kind").cast<std::string>()[0];
  if (kind == 'b') return AdvancedItem::of_array(upload(arr));
  const bool host_array = py::isinstance<py::array>(k);   // a NumPy array keeps its dtype; a list does not
  if (kind == 'f' && !host_array && arr.attr("size").cast<int64_t>() == 0) kind = 'i';  // [] is an empty integer index
  if (kind != 'i' && kind != 'u')
    throw py::index_error(kind == 'O' && !host_array ? "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                                        "and integer or boolean arrays are valid indices"
                                      : "arrays used as indices must be of integer (or boolean) type");
  py::object values = numpy().attr("asarray")(arr, "int64", py::arg("order") = "C");  // keeps 0-d 0-d
  keep.push_back(values);
  auto* data = static_cast<const int64_t*>(values.cast<py::array>().data());
  return AdvancedItem::of_array(upload(values), data);
}

AdvancedItem advanced_item(PyObject* k, std::vector<py::object>& keep) {
  using arraycore::IndexItem;
  if (const NDArray* a = ndarray_of(k)) return AdvancedItem::of_array(*a);
  if (PyBool_Check(k) || is_host_index_array(k)) return host_array_item(k, keep);
  if (PyLong_Check(k)) return AdvancedItem::of(IndexItem::integer(to_index(k)));
  if (k == Py_Ellipsis) return AdvancedItem::of(IndexItem::ellipsis());
  if (k == Py_None) return AdvancedItem::of(IndexItem::newaxis());
  if (PySlice_Check(k)) {
    auto part = [](PyObject* v) -> std::optional<int64_t> {
      if (v == Py_None) return std::nullopt;
      return to_index(v);
    };
    auto* s = reinterpret_cast<PySliceObject*>(k);
    return AdvancedItem::of(IndexItem::slice(part(s->start), part(s->stop), part(s->step)));
  }
  if (py::object a = foreign_device_array(k)) {   // Note [Foreign device operands]
    keep.push_back(a);
    return AdvancedItem::of_array(*ndarray_of(a.ptr()));
  }
  bool text = PyUnicode_Check(k) || PyBytes_Check(k);
  if (!text && PyIndex_Check(k)) return AdvancedItem::of(IndexItem::integer(to_index(k)));
  if (!text && PySequence_Check(k)) return host_array_item(k, keep);
  throw py::index_error("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                        "integer or boolean arrays are valid indices");
}

}  // namespace

bool is_host_index_array(PyObject* k) {
  static PyObject* host_array = numpy().attr("ndarray").ptr();
  static PyObject* host_bool = numpy().attr("bool_").ptr();
  return PyObject_TypeCheck(k, reinterpret_cast<PyTypeObject*>(host_array)) ||
         PyObject_TypeCheck(k, reinterpret_cast<PyTypeObject*>(host_bool));
}

std::vector<AdvancedItem> to_advanced_key(py::handle key, std::vector<py::object>& keep) {
  std::vector<AdvancedItem> items;
  if (!PyTuple_Check(key.ptr())) {
    items.push_back(advanced_item(key.ptr(), keep));
  } else {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key.ptr()); ++i)
      items.push_back(advanced_item(PyTuple_GET_ITEM(key.ptr(), i), keep));
  }
  return items;
}

void register_advanced_indexing(py::module_& m) {
  m.def(
      "_indexing_config",
      [](py::object check_bounds, py::object last_wins) {
        arraycore::IndexingConfig& c = arraycore::indexing_config();
        py::tuple previous = py::make_tuple(c.check_bounds, c.last_wins);
        if (!check_bounds.is_none()) c.check_bounds = check_bounds.cast<bool>();
        if (!last_wins.is_none()) c.last_wins = last_wins.cast<bool>();
        return previous;
      },
      py::arg("check_bounds") = py::none(), py::arg("last_wins") = py::none(),
      "Sets the switches given (None keeps one) and returns the previous (check_bounds, last_wins).");
  m.def(
      "_nonzero",
      [](const NDArray& a, bool axes_first) {
        return arraycore::nonzero_coordinates(a, axes_first);
      },
      py::arg("a"), py::arg("axes_first") = true,
      "Coordinates of a's nonzero elements: int64 (ndim, count) (axes_first) or (count, ndim).");
  m.def("_flatnonzero", &arraycore::nonzero_positions, py::arg("a"),
        "C-order positions of a's nonzero elements (int64, 1-d).");
  m.def("_advanced_indexing_sources", &arraycore::advanced_indexing_sources);
}

}  // namespace kiln::py_bind
