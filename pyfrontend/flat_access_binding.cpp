// kiln._core's flat-position operations (arraycore/flat_access.h): the
// flatiter class (a.flat), putmask, fill_diagonal, resize and
// ndarray.byteswap. kiln/_indexing.py, _manipulation.py and
// _ndarray_methods.py shape the arguments and call these.
//
//   it = _core.flatiter(a)          # a.flat
//   it[1:7:2]; it[3] = 5            # one launch each (Note [Flat positions])
//   _core._putmask(a, mask, v, False)   # numpy.putmask, v checked for a safe cast
#include "arraycore/flat_access.h"
#include "pyfrontend/bindings.h"

#include <pybind11/stl.h>

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

// numpy.flatiter over a kiln array: `base` keeps it alive (flat.base is it).
struct FlatIter {
  py::object base;
  int64_t next = 0;
  const NDArray& array() const { return base.cast<const NDArray&>(); }
};

struct FlatRange {
  int64_t start, step, count;
  bool scalar;
};

// An integer, slice or Ellipsis key (or a 1-tuple of one) as positions of
// a's flattening of n elements, with NumPy's IndexError for other keys.
FlatRange flat_range(py::handle key, int64_t n) {
  if (py::isinstance<py::tuple>(key) && py::len(key) == 1) key = key.cast<py::tuple>()[0];
  if (key.is(py::ellipsis())) return {0, 1, n, false};
  if (py::isinstance<py::slice>(key)) {
    py::ssize_t start = 0, stop = 0, step = 0, count = 0;
    if (!key.cast<py::slice>().compute(n, &start, &stop, &step, &count)) throw py::error_already_set();
    return {start, step, count, false};
  }
  if (key.is_none() || py::isinstance<py::tuple>(key) || py::isinstance<py::bool_>(key) ||
      (py::hasattr(key, "dtype") && key.attr("dtype").attr("kind").cast<std::string>() == "b"))
    throw py::index_error("only integers, slices (`:`), ellipsis (`...`) and integer or boolean arrays are "
                          "valid indices");
  const int64_t k = to_index(key);
  if (k < -n || k >= n)
    throw py::index_error("index " + std::to_string(k) + " is out of bounds for size " + std::to_string(n));
  return {k < 0 ? k + n : k, 1, 1, true};
}

// Integer and boolean index arrays (kiln, NumPy, lists) go through
// a.ravel()[key] and kiln.put.
bool array_key(py::handle key) {
  return ndarray_of(key.ptr()) || py::isinstance<py::list>(key) ||
         (py::hasattr(key, "dtype") && py::hasattr(key, "ndim") && key.attr("ndim").cast<int>() > 0);
}

NDArray as_value(py::handle value, const NDArray& a) {
  if (const NDArray* v = ndarray_of(value.ptr())) return *v;
  return py::module_::import("kiln._core").attr("_assigned_value")(value, to_numpy_dtype(a.dtype())).cast<NDArray>();
}

py::object flat_get(const FlatIter& it, py::handle key) {
  if (array_key(key)) return it.base.attr("ravel")().attr("__getitem__")(key);
  const NDArray& a = it.array();
  const FlatRange r = flat_range(key, a.size());
  NDArray out = arraycore::flat_slice_get(a, r.start, r.step, r.count);
  return py::cast(r.scalar ? out.reshape(arraycore::Shape{}) : out);
}

void flat_set(const FlatIter& it, py::handle key, py::handle value) {
  if (!it.array().writeable()) throw py::value_error("underlying array is read-only");
  if (array_key(key)) {
    py::module_ indexing = py::module_::import("kiln._indexing");
    py::object k = py::reinterpret_borrow<py::object>(key);
    if (py::module_::import("numpy").attr("asarray")(ndarray_of(key.ptr()) ? k.attr("get")() : k).attr("dtype").attr("kind").cast<std::string>() == "b")
      k = indexing.attr("flatnonzero")(k);
    indexing.attr("put")(it.base, k, value);
    return;
  }
  const NDArray& a = it.array();
  const FlatRange r = flat_range(key, a.size());
  arraycore::flat_slice_set(a, r.start, r.step, r.count, as_value(value, a));
}

}  // namespace

void register_flat_access(py::module_& m) {
  py::class_<FlatIter>(m, "flatiter",
                       "numpy.flatiter over a kiln array (a.flat): positions in its C-order flattening, whatever "
                       "its layout. An integer, slice or Ellipsis reads a new array (0-d for an integer) and "
                       "writes values repeated as needed, one launch each (Note [Flat positions]); integer and "
                       "boolean arrays read as a.ravel()[index] and write as kiln.put. Iteration yields 0-d "
                       "arrays, one launch each.")
      .def(py::init([](py::object a) {
             a.cast<const NDArray&>();
             return FlatIter{std::move(a)};
           }),
           py::arg("a"))
      .def_property_readonly("base", [](const FlatIter& it) { return it.base; })
      .def_property_readonly("index", [](const FlatIter& it) { return it.next; })
      .def("__len__", [](const FlatIter& it) { return it.array().size(); })
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__",
           [](FlatIter& it) {
             if (it.next >= it.array().size()) throw py::stop_iteration();
             return flat_get(it, py::int_(it.next++));
           })
      .def("copy", [](const FlatIter& it) { return it.base.attr("flatten")(); }, "The flattened copy of the array.")
      .def("__getitem__", &flat_get)
      .def("__setitem__", &flat_set);
  m.def("_putmask", &arraycore::putmask, py::arg("a"), py::arg("mask"), py::arg("values"), py::arg("unsafe"),
        "numpy.putmask over kiln arrays (Note [Flat positions]).");
  m.def("_fill_diagonal", &arraycore::fill_diagonal, py::arg("a"), py::arg("values"), py::arg("wrap"),
        "numpy.fill_diagonal over kiln arrays.");
  m.def(
      "_resize", [](const NDArray& a, py::handle shape) { return arraycore::resize(a, to_shape(shape)); },
      py::arg("a"), py::arg("shape"), "numpy.resize of a kiln array (a.flat repeated).");
  m.def("_nonzero_bounds", &arraycore::nonzero_bounds, py::arg("a"),
        "[(first, last + 1)] of the nonzero elements' coordinates per axis, (0, 0) each when none.");
  m.def("_byteswap", &arraycore::byteswap, py::arg("a"), py::arg("inplace"), "numpy.ndarray.byteswap.");
}

}  // namespace kiln::py_bind
