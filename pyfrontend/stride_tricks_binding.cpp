// kiln._core._strided_view / _sliding_window_view (arraycore/stride_tricks.h):
// the views of kiln.lib.stride_tricks, whose Python functions keep NumPy's
// signatures.
#include <vector>

#include "arraycore/stride_tricks.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

std::vector<int64_t> index_tuple(py::handle v) {
  std::vector<int64_t> out;
  if (py::isinstance<py::sequence>(v) && !py::isinstance<py::str>(v)) {
    for (py::handle x : v) out.push_back(to_index(x));
  } else {
    out.push_back(to_index(v));
  }
  return out;
}

}  // namespace

void register_stride_tricks(py::module_& m) {
  using arraycore::NDArray;
  m.def(
      "_strided_view",
      [](py::handle x, py::handle shape, py::handle strides, bool writeable) {
        const NDArray& a = x.cast<const NDArray&>();
        arraycore::Shape s = shape.is_none() ? a.shape() : index_tuple(shape);
        arraycore::Strides t = strides.is_none() ? a.strides() : index_tuple(strides);
        return make_view(x, arraycore::as_strided(a, s, t, writeable));
      },
      py::arg("x"), py::arg("shape"), py::arg("strides"), py::arg("writeable"));
  m.def(
      "_sliding_window_view",
      [](py::handle x, py::handle window_shape, py::handle axis, bool writeable) {
        const std::vector<int64_t> w = index_tuple(window_shape);
        const std::vector<int64_t> axes = axis.is_none() ? std::vector<int64_t>{} : index_tuple(axis);
        return make_view(x, arraycore::sliding_window_view(x.cast<const NDArray&>(), w, axes, !axis.is_none(),
                                                           writeable));
      },
      py::arg("x"), py::arg("window_shape"), py::arg("axis"), py::arg("writeable"));
}

}  // namespace kiln::py_bind
