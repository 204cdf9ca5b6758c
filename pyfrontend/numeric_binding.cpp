// kiln._core's numerical routines (arraycore/numeric_calculus.h,
// arraycore/convolution.h, arraycore/interpolation.h,
// arraycore/window_functions.h, arraycore/cross_product.h): _gradient,
// _correlate, _interp, _window, _cross. kiln/_numeric.py keeps
// the signatures, turns host sequences into kiln arrays and runs the FFT
// route of a correlation.
//
//   _core._gradient(f, [0.5, coords], (0, 1), 2)     # spacing: kiln arrays, NumPy or Python scalars
//   _core._correlate(a, v, "same", False)            # an array, or (a, u, start, length, dtype) for the FFT route
#include <optional>
#include <string>
#include <vector>

#include "arraycore/convolution.h"
#include "arraycore/cross_product.h"
#include "arraycore/interpolation.h"
#include "arraycore/numeric_calculus.h"
#include "arraycore/window_functions.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

// NumPy's convolve/correlate mode argument: 'valid', 'same', 'full' or 0, 1, 2.
arraycore::CorrelateMode to_mode(py::handle mode) {
  if (PyLong_Check(mode.ptr())) {
    const long long m = mode.cast<long long>();
    if (m < 0 || m > 2) throw py::value_error("integer convolve/correlate mode must be 0, 1, or 2");
    return static_cast<arraycore::CorrelateMode>(m);
  }
  const std::string s = py::str(mode);
  if (s == "valid") return arraycore::CorrelateMode::Valid;
  if (s == "same") return arraycore::CorrelateMode::Same;
  if (s == "full") return arraycore::CorrelateMode::Full;
  if (!s.empty() && std::string("vVsSfF").find(s[0]) != std::string::npos)
    throw py::value_error("Use one of 'valid', 'same', or 'full' for convolve/correlate mode");
  throw py::value_error("mode must be one of 'valid', 'same', or 'full' (got " + py::repr(mode).cast<std::string>() +
                        ")");
}

}  // namespace

void register_numeric(py::module_& m) {
  m.def(
      "_gradient",
      [](const arraycore::NDArray& f, py::sequence spacing, py::handle axis, int64_t edge_order) {
        std::vector<arraycore::UfuncInput> steps(py::len(spacing));
        for (size_t i = 0; i < steps.size(); ++i) to_input(spacing[i], steps[i], true);
        py::list r;
        for (arraycore::NDArray& g : arraycore::gradient(f, steps, to_axis(axis), edge_order)) r.append(py::cast(g));
        return r;
      },
      py::arg("f"), py::arg("spacing"), py::arg("axis"), py::arg("edge_order"));
  m.def(
      "_correlate",
      [](const arraycore::NDArray& a, const arraycore::NDArray& v, py::handle mode, bool convolve) -> py::object {
        const arraycore::CorrelatePlan p = arraycore::correlate_plan(
            a, v, to_mode(mode), convolve ? arraycore::CorrelateKind::Convolve : arraycore::CorrelateKind::Correlate);
        if (!p.by_fft) return py::cast(arraycore::correlate_direct(p));
        return py::make_tuple(p.a, arraycore::fft_operand(p), p.window.start, p.window.length, to_numpy_dtype(p.dtype));
      },
      py::arg("a"), py::arg("v"), py::arg("mode"), py::arg("convolve"));
  m.def(
      "_interp",
      [](const arraycore::NDArray& x, const arraycore::NDArray& xp, const arraycore::NDArray& fp, py::handle left,
         py::handle right) {
        auto bound = [](py::handle v) -> std::optional<arraycore::ScalarValue> {
          if (v.is_none()) return std::nullopt;
          arraycore::UfuncInput in;
          to_input(v, in, true);
          if (in.array) throw py::type_error("interp: left and right must be scalars");
          return in.scalar;
        };
        return arraycore::interp(x, xp, fp, bound(left), bound(right));
      },
      py::arg("x"), py::arg("xp"), py::arg("fp"), py::arg("left").none(true), py::arg("right").none(true));
  m.def(
      "_cross",
      [](const arraycore::NDArray& a, const arraycore::NDArray& b, int64_t axisa, int64_t axisb, int64_t axisc) {
        return arraycore::cross(a, b, axisa, axisb, axisc);
      },
      py::arg("a"), py::arg("b"), py::arg("axisa"), py::arg("axisb"), py::arg("axisc"));
  m.def(
      "_window",
      [](const std::string& name, double M, double beta) {
        using arraycore::Window;
        const Window w = name == "bartlett"   ? Window::Bartlett
                         : name == "blackman" ? Window::Blackman
                         : name == "hamming"  ? Window::Hamming
                         : name == "hanning"  ? Window::Hanning
                                              : Window::Kaiser;
        return arraycore::window(w, M, beta);
      },
      py::arg("name"), py::arg("M"), py::arg("beta"));
}

}  // namespace kiln::py_bind
