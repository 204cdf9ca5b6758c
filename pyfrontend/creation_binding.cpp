// kiln._core's creation helpers for pyfrontend/kiln/_creation.py (which does
// the argument handling, dtypes and NumPy's messages): order='K'
// allocations, uploads that keep a host array's memory order, and the
// spaced-values kernel (arraycore/creation.cpp, Note [Spaced values]).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arraycore/creation.h"
#include "arraycore/transfer.h"
#include "pyfrontend/bindings.h"
#include "runtime/stream.h"

namespace kiln::py_bind {

using arraycore::NDArray;

NDArray upload_host_array(py::handle obj, const std::vector<int>& axis_order) {
  py::module_ np = py::module_::import("numpy");
  arraycore::DType dt = to_dtype(obj.attr("dtype"), true);
  // The axes permuted into memory order, C-contiguous and in native byte
  // order ('>i4' data is swapped here).
  py::array host = np.attr("ascontiguousarray")(py::reinterpret_borrow<py::object>(obj).attr("transpose")(
                                                    py::tuple(py::cast(axis_order))),
                                                py::arg("dtype") = to_numpy_dtype(dt))
                       .cast<py::array>();
  arraycore::Shape shape(obj.attr("ndim").cast<size_t>());
  for (size_t d = 0; d < shape.size(); ++d) shape[d] = py::tuple(obj.attr("shape"))[d].cast<int64_t>();
  NDArray out = arraycore::empty_in_axis_order(shape, dt, axis_order);
  arraycore::Shape stored_shape(host.shape(), host.shape() + host.ndim());
  NDArray stored(out.memory(), out.dtype(), stored_shape,
                 arraycore::contiguous_strides(stored_shape, out.itemsize(), arraycore::Order::C), 0);
  ReleaseGil unlocked;
  arraycore::copy_from_host(stored, host.data(), runtime::current_stream());
  return out;
}

void register_creation(py::module_& m) {
  m.def(
      "_empty_in_axis_order",
      [](py::handle shape, py::handle dtype, std::vector<int> axis_order) {
        return arraycore::empty_in_axis_order(to_shape(shape), to_dtype(dtype), axis_order);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("axis_order"),
      "An uninitialised array (owning its memory) whose memory holds the axes in axis_order, outermost first.");
  m.def(
      "_zeros_in_axis_order",
      [](py::handle shape, py::handle dtype, std::vector<int> axis_order) {
        return arraycore::zeros_in_axis_order(to_shape(shape), to_dtype(dtype), axis_order);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("axis_order"), "_empty_in_axis_order, filled with zeros.");
  m.def("_upload_in_axis_order", &upload_host_array, py::arg("host"), py::arg("axis_order"),
        "A new kiln array with a numpy array's values, its memory holding the axes in axis_order.");
  m.def(
      "_fill_spaced",
      [](const NDArray& out, const NDArray& start, const NDArray& stop, const NDArray& base, int64_t num,
         bool endpoint, int spacing, bool floor_values) {
        if (spacing < 0 || spacing > 3) throw py::value_error("spacing must be 0..3");
        arraycore::fill_spaced(out, start, stop, base, num, endpoint, static_cast<arraycore::Spacing>(spacing),
                               floor_values);
      },
      py::arg("out"), py::arg("start"), py::arg("stop"), py::arg("base"), py::arg("num"), py::arg("endpoint"),
      py::arg("spacing"), py::arg("floor_values"),
      "Spaced values along axis 0 of out (float64/complex128); spacing 0 linear, 1 logarithmic, 2 geometric, "
      "3 linspace's step. start/stop/base: out's dtype and shape (broadcast views).");
}

}  // namespace kiln::py_bind
