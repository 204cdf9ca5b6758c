// kiln._core.ndarray and the creation/transfer functions this issue needs.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arraycore/creation.h"
#include "arraycore/transfer.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/memory_pointer.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

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
