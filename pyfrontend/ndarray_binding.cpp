// kiln._core.ndarray and the creation/transfer functions this issue needs.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arraycore/copy.h"
#include "arraycore/creation.h"
#include "arraycore/indexing.h"
#include "arraycore/transfer.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/memory_pointer.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

// A Python index (int, slice, Ellipsis, None, or a tuple of them) as IndexItems.
std::vector<arraycore::IndexItem> to_index_items(py::handle key) {
  using arraycore::IndexItem;
  std::vector<IndexItem> items;
  auto one = [&](PyObject* k) {
    if (k == Py_Ellipsis) return items.push_back(IndexItem::ellipsis());
    if (k == Py_None) return items.push_back(IndexItem::newaxis());
    if (PySlice_Check(k)) {
      auto part = [](PyObject* v) -> std::optional<int64_t> {
        if (v == Py_None) return std::nullopt;
        return to_index(v);
      };
      auto* s = reinterpret_cast<PySliceObject*>(k);
      return items.push_back(IndexItem::slice(part(s->start), part(s->stop), part(s->step)));
    }
    bool text = PyUnicode_Check(k) || PyBytes_Check(k);
    if (PyBool_Check(k) || (!text && PyIndex_Check(k) == 0 && (py::isinstance<NDArray>(k) || PySequence_Check(k)))) {
      throw py::index_error("advanced indexing (integer or boolean arrays, lists, booleans) is not "
                            "supported yet; use integers, slices, ... and None");
    }
    if (PyLong_Check(k) || PyIndex_Check(k)) return items.push_back(IndexItem::integer(to_index(k)));
    throw py::index_error("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                          "integer or boolean arrays are valid indices");
  };
  if (PyTuple_Check(key.ptr())) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key.ptr()); ++i) one(PyTuple_GET_ITEM(key.ptr(), i));
  } else {
    one(key.ptr());
  }
  return items;
}

void require_copy_supported(arraycore::DType from, arraycore::DType to) {
  if (!arraycore::copy_supported(from, to)) {
    std::string msg = "astype between " + std::string(arraycore::dtype_info(from).name) + " and " +
                      std::string(arraycore::dtype_info(to).name) +
                      " is not implemented yet (float16 and complex conversions arrive with "
                      "kiln's half and complex device headers)";
    PyErr_SetString(PyExc_NotImplementedError, msg.c_str());
    throw py::error_already_set();
  }
}

py::array to_numpy(const NDArray& a, py::handle stream, py::handle order) {
  arraycore::Order o = to_order(order);
  py::array out(to_numpy_dtype(a.dtype()), a.shape());
  if (o == arraycore::Order::F) {
    // Download C order, then let NumPy lay it out in Fortran order.
    arraycore::copy_to_host(a, out.mutable_data(), to_stream(stream));
    return py::module_::import("numpy").attr("asfortranarray")(out);
  }
  arraycore::copy_to_host(a, out.mutable_data(), to_stream(stream));
  return out;
}

NDArray from_numpy(py::handle obj, py::handle dtype) {
  py::module_ np = py::module_::import("numpy");
  py::object arr = np.attr("asarray")(obj);
  if (!dtype.is_none()) arr = arr.attr("astype")(dtype, py::arg("copy") = false);
  arraycore::DType dt = to_dtype(arr.attr("dtype"));
  arr = np.attr("asarray")(arr, py::arg("order") = "C");  // keeps 0-d arrays 0-d
  py::array host = arr.cast<py::array>();
  arraycore::Shape shape(host.shape(), host.shape() + host.ndim());
  NDArray out = NDArray::empty(shape, dt);
  arraycore::copy_from_host(out, host.data(), runtime::current_stream());
  return out;
}

}  // namespace

void register_ndarray(py::module_& m) {
  py::class_<NDArray>(m, "ndarray", py::dynamic_attr())
      .def(py::init([](py::handle shape, py::handle dtype, py::handle order) {
             return NDArray::empty(to_shape(shape), to_dtype(dtype), to_order(order));
           }),
           py::arg("shape"), py::arg("dtype") = py::none(), py::arg("order") = "C")
      .def_property_readonly("shape", [](const NDArray& a) { return to_tuple(a.shape()); })
      .def_property_readonly("strides", [](const NDArray& a) { return to_tuple(a.strides()); })
      .def_property_readonly("dtype", [](const NDArray& a) { return to_numpy_dtype(a.dtype()); })
      .def_property_readonly("ndim", &NDArray::ndim)
      .def_property_readonly("size", &NDArray::size)
      .def_property_readonly("itemsize", &NDArray::itemsize)
      .def_property_readonly("nbytes", &NDArray::nbytes)
      .def_property_readonly("data",
                             [](const NDArray& a) { return MemoryPointer{a.memory(), a.offset()}; })
      .def_property_readonly("_c_contiguous", &NDArray::c_contiguous)
      .def_property_readonly("_f_contiguous", &NDArray::f_contiguous)
      .def(
          "reshape",
          [](const NDArray& a, py::args shape) {
            if (shape.size() == 1) return a.reshape(to_shape(shape[0]));
            return a.reshape(to_shape(shape));
          })
      .def("astype",
           [](py::object self, py::handle dtype, py::handle order, py::handle casting, bool copy) -> py::object {
             const NDArray& a = self.cast<const NDArray&>();
             arraycore::DType d = to_dtype(dtype);
             std::string o = order.is_none() ? "K" : std::string(py::str(order));
             if (!casting.is_none() && !arraycore::can_cast(a.dtype(), d, to_casting(casting))) {
                 throw py::type_error("Cannot cast array data from " +
                                      std::string(py::str(py::repr(to_numpy_dtype(a.dtype())))) + " to " +
                                      std::string(py::str(py::repr(to_numpy_dtype(d)))) +
                                      " according to the rule '" + std::string(py::str(casting)) + "'");
             }
             arraycore::Order target = (o == "F" || (o != "C" && a.f_contiguous() && !a.c_contiguous()))
                                           ? arraycore::Order::F
                                           : arraycore::Order::C;
             if (o != "C" && o != "F" && o != "A" && o != "K")
               throw py::value_error("order must be one of 'C', 'F', 'A', or 'K' (got '" + o + "')");
             if (!copy && d == a.dtype() &&
                 ((target == arraycore::Order::C && a.c_contiguous()) ||
                  (target == arraycore::Order::F && a.f_contiguous())))
               return self;
             require_copy_supported(a.dtype(), d);
             return py::cast(arraycore::astype(a, d, target));
           },
           py::arg("dtype"), py::arg("order") = "K", py::arg("casting") = py::none(), py::arg("copy") = true,
           "A copy converted to dtype (NumPy's casting rules for casting=; default unsafe).")
      .def("copy",
           [](const NDArray& a, py::handle order) {
             std::string o = order.is_none() ? "C" : std::string(py::str(order));
             arraycore::Order target = (o == "F" || ((o == "A" || o == "K") && a.f_contiguous() && !a.c_contiguous()))
                                           ? arraycore::Order::F
                                           : arraycore::Order::C;
             require_copy_supported(a.dtype(), a.dtype());
             return arraycore::astype(a, a.dtype(), target);
           },
           py::arg("order") = "C")
      .def("__getitem__",
           [](const NDArray& a, py::handle key) { return arraycore::index_view(a, to_index_items(key)); })
      .def("__setitem__",
           [](const NDArray& a, py::handle key, py::handle value) {
             NDArray dst = arraycore::index_view(a, to_index_items(key));
             if (py::isinstance<NDArray>(value)) {
               const NDArray& v = value.cast<const NDArray&>();
               require_copy_supported(v.dtype(), dst.dtype());
               arraycore::assign(dst, v);
               return;
             }
             // Host values (scalars, lists, NumPy arrays) are cast on the host
             // (unsafe, as NumPy's assignment does) and uploaded.
             py::object host = py::module_::import("numpy").attr("asarray")(value).attr("astype")(
                 to_numpy_dtype(dst.dtype()));
             arraycore::assign(dst, from_numpy(host, py::none()));
           })
      .def("__len__",
           [](const NDArray& a) {
             if (a.ndim() == 0) throw py::type_error("len() of unsized object");
             return a.shape()[0];
           })
      .def("__array__",
           [](const NDArray&, py::args, py::kwargs) {
             throw py::type_error(
                 "Implicit conversion of a kiln array to a NumPy array is not allowed: it would "
                 "copy device memory to the host behind your back. Use kiln.asnumpy(a) or "
                 "a.get() to copy explicitly.");
           })
      .def("__repr__",
           [](const NDArray& a) { return py::repr(to_numpy(a, py::none(), py::none())); })
      .def("__str__",
           [](const NDArray& a) { return py::str(to_numpy(a, py::none(), py::none())); });

  m.def("empty", [](py::handle shape, py::handle dtype, py::handle order) {
    return NDArray::empty(to_shape(shape), to_dtype(dtype), to_order(order));
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("order") = "C");
  m.def("zeros", [](py::handle shape, py::handle dtype, py::handle order) {
    return NDArray::zeros(to_shape(shape), to_dtype(dtype), to_order(order));
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("order") = "C");
  m.def("_as_strided", [](const NDArray& a, py::handle shape, py::handle strides, int64_t offset_bytes) {
    // A view of a's memory (tests build strided and negative-stride views with
    // it until basic indexing lands). Bounds are checked against the memory.
    arraycore::Shape sh = to_shape(shape);
    arraycore::Strides st = to_shape(strides);
    if (sh.size() != st.size()) throw py::value_error("shape and strides differ in length");
    int64_t offset = a.offset() + offset_bytes;
    auto [low, high] = arraycore::byte_extent(sh, st, a.itemsize());
    if (arraycore::shape_size(sh) > 0 &&
        (offset + low < 0 || offset + high > static_cast<int64_t>(a.memory()->nbytes())))
      throw py::value_error("the view reaches outside the array's memory");
    return NDArray(a.memory(), a.dtype(), sh, st, offset);
  });
  m.def("_from_numpy", &from_numpy, py::arg("obj"), py::arg("dtype") = py::none());
  m.def("_to_numpy", &to_numpy, py::arg("a"), py::arg("stream") = py::none(),
        py::arg("order") = "C");
  m.def("_arange_float", [](double start, double step, int64_t n, py::handle dtype) {
    return arraycore::arange(start, step, n, to_dtype(dtype));
  });
  m.def("_arange_int", [](int64_t start, int64_t step, int64_t n, py::handle dtype) {
    return arraycore::arange_int(start, step, n, to_dtype(dtype));
  });
}

}  // namespace kiln::py_bind
