// kiln._core._matmul_into and friends: the matmul engine (arraycore/matmul.h)
// and the cuBLAS switches (arraycore/blas.h) for the Python layer
// (pyfrontend/kiln/_products.py promotes, broadcasts and casts first).
//
//   _core._matmul_into(a, b, c)          # c[..., :, :] = a[..., :, :] @ b[..., :, :]
//   _core._blas_config(allow_tf32=True)  # returns the previous (allow_tf32, use_cublas)
#include "arraycore/blas.h"
#include "arraycore/matmul.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

void register_matmul(py::module_& m) {
  m.def(
      "_matmul_into",
      [](const NDArray& a, const NDArray& b, const NDArray& c) {
        arraycore::matmul_into(a, b, c);
      },
      py::arg("a"), py::arg("b"), py::arg("c"),
      "c = a @ b over the last two axes: one dtype, one ndim >= 2, equal batch shapes (broadcast first).");
  m.def("_last_matmul_path", [] { return std::string(arraycore::last_matmul_path()); },
        "'cublas' or 'kernel': the path this thread's last matmul took ('' when it computed nothing).");
  m.def(
      "_matmul_source", [](py::handle dtype) { return arraycore::matmul_source(to_dtype(dtype)); },
      py::arg("dtype"));
  m.def(
      "_blas_config",
      [](py::object allow_tf32, py::object use_cublas) {
        arraycore::BlasConfig& c = arraycore::blas_config();
        py::tuple previous = py::make_tuple(c.allow_tf32.load(), c.use_cublas.load());
        if (!allow_tf32.is_none()) c.allow_tf32 = allow_tf32.cast<bool>();
        if (!use_cublas.is_none()) c.use_cublas = use_cublas.cast<bool>();
        return previous;
      },
      py::arg("allow_tf32") = py::none(), py::arg("use_cublas") = py::none(),
      "Sets the switches given (None keeps one) and returns the previous (allow_tf32, use_cublas).");
  m.def(
      "_blas_usable",
      [](py::handle dtype) {
        std::string why;
        const bool ok = arraycore::blas_usable(to_dtype(dtype), &why);
        return py::make_tuple(ok, why);
      },
      py::arg("dtype"), "(whether cuBLAS multiplies dtype now, why not)");
}

}  // namespace kiln::py_bind
