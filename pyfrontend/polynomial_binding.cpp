// kiln._core's polynomial entries (arraycore/polynomial.h). kiln/_polynomial.py
// (numpy.polyval ... vander, poly1d) and kiln/polynomial/ (polynomial,
// polyutils) convert their operands with kiln.asarray and call these; the
// eigenvalue and least-squares steps between them are kiln.linalg's.
//
//   _core._polymul(a, b)                        # numpy.convolve of the trimmed coefficients
//   comp, zeros = _core._roots_setup(p)         # then kiln.linalg.eigvals(comp)
#include <pybind11/stl.h>

#include <optional>
#include <vector>

#include "arraycore/polynomial.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

void register_polynomial(py::module_& m) {
  m.def("_poly1d_coeffs", &arraycore::poly1d_coeffs, py::arg("c"));
  m.def("_polyval", &arraycore::polyval, py::arg("p"), py::arg("x"));
  m.def("_polyval_poly1d", &arraycore::polyval_poly1d, py::arg("p"), py::arg("q"));
  m.def("_polyadd", &arraycore::polyadd, py::arg("a"), py::arg("b"), py::arg("subtract"));
  m.def("_polymul", &arraycore::polymul, py::arg("a"), py::arg("b"));
  m.def("_polydiv", &arraycore::polydiv, py::arg("u"), py::arg("v"));
  m.def("_polyder", &arraycore::polyder, py::arg("p"), py::arg("m"));
  m.def("_polyint", &arraycore::polyint, py::arg("p"), py::arg("m"), py::arg("k"));
  m.def(
      "_poly",
      [](const NDArray& z) -> py::object {
        std::optional<NDArray> a = arraycore::poly_from_zeros(z);
        return a ? py::cast(std::move(*a)) : py::float_(1.0);   // numpy.poly([]) is the float 1.0
      },
      py::arg("z"));
  m.def(
      "_roots_setup",
      [](const NDArray& p) {
        arraycore::RootsSetup s = arraycore::roots_setup(p);
        return py::make_tuple(s.companion ? py::cast(*s.companion) : py::none(), s.trailing_zeros);
      },
      py::arg("p"));
  m.def("_roots_finish", &arraycore::roots_finish, py::arg("eigenvalues"), py::arg("trailing_zeros"));
  m.def("_vander", &arraycore::vander, py::arg("x"), py::arg("N"), py::arg("increasing"));
  m.def("_polyvander", &arraycore::polyvander, py::arg("x"), py::arg("deg"));
  m.def("_polycompanion", &arraycore::polycompanion, py::arg("c"));
  m.def(
      "_as_series", [](const std::vector<NDArray>& arrays, bool trim) { return arraycore::as_series(arrays, trim); },
      py::arg("arrays"), py::arg("trim"));
  m.def("_trimseq", &arraycore::trimseq, py::arg("seq"));
  m.def(
      "_trimcoef",
      [](const NDArray& c, py::object tol) {
        if (tol < py::int_(0)) throw py::value_error("tol must be non-negative");
        arraycore::UfuncInput t;
        to_input(tol, t, true);
        return arraycore::trimcoef(c, t);
      },
      py::arg("c"), py::arg("tol"));
  m.def(
      "_polyfit_system",
      [](const NDArray& x, const NDArray& y, int64_t deg, std::optional<NDArray> w) {
        arraycore::PolyfitSystem s = arraycore::polyfit_system(x, y, deg, w);
        return py::make_tuple(s.lhs, s.rhs, s.scale, s.eps_rcond);
      },
      py::arg("x"), py::arg("y"), py::arg("deg"), py::arg("w"));
  m.def("_polyfit_unscale", &arraycore::polyfit_unscale, py::arg("c"), py::arg("scale"));
}

}  // namespace kiln::py_bind
