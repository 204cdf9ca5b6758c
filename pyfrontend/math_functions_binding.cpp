// kiln._core's functions built on ufuncs (arraycore/math_functions.h):
// _where, _clip, _nan_to_num, _complex_part_test, _angle, _i0, _sinc,
// _isclose, _allclose, _array_equal, _around. kiln/_math_functions.py and
// kiln/_rounding.py keep the signatures, host-data checks and warnings.
//
//   _core._where(c, x, 0.0)                      # operands: kiln arrays, NumPy or Python scalars
//   _core._clip(a, 0, None, out)                 # None: no bound
#include <optional>

#include "arraycore/math_functions.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;
using arraycore::UfuncInput;

// An operand; the handle (held by the caller's arguments) keeps an array alive.
UfuncInput operand(py::handle obj) {
  UfuncInput in;
  to_input(obj, in, true);
  return in;
}
std::optional<UfuncInput> optional_operand(py::handle obj) {
  if (obj.is_none()) return std::nullopt;
  return operand(obj);
}
arraycore::ScalarValue scalar(py::handle obj) { return operand(obj).scalar; }

}  // namespace

void register_math_functions(py::module_& m) {
  m.def(
      "_where", [](py::handle c, py::handle x, py::handle y) { return arraycore::where(operand(c), operand(x), operand(y)); },
      py::arg("condition"), py::arg("x"), py::arg("y"));
  m.def(
      "_clip",
      [](py::handle a, py::handle lo, py::handle hi, const NDArray* out) {
        return arraycore::clip(operand(a), optional_operand(lo), optional_operand(hi), out);
      },
      py::arg("a"), py::arg("lo"), py::arg("hi"), py::arg("out").none(true));
  m.def(
      "_nan_to_num",
      [](const NDArray& x, py::handle nan, py::handle posinf, py::handle neginf, const NDArray* out) {
        return arraycore::nan_to_num(x, scalar(nan), scalar(posinf), scalar(neginf), out);
      },
      py::arg("x"), py::arg("nan"), py::arg("posinf"), py::arg("neginf"), py::arg("out").none(true));
  m.def("_complex_part_test", &arraycore::complex_part_test, py::arg("x"), py::arg("nonzero"));
  m.def(
      "_angle", [](py::handle z, bool deg) { return arraycore::angle(operand(z), deg); }, py::arg("z"),
      py::arg("deg"));
  m.def(
      "_i0", [](py::handle x) { return arraycore::i0(operand(x)); }, py::arg("x"));
  m.def(
      "_sinc", [](py::handle x) { return arraycore::sinc(operand(x)); }, py::arg("x"));
  m.def(
      "_isclose",
      [](py::handle a, py::handle b, py::handle rtol, py::handle atol, bool equal_nan) {
        return arraycore::isclose(operand(a), operand(b), operand(rtol), operand(atol), equal_nan);
      },
      py::arg("a"), py::arg("b"), py::arg("rtol"), py::arg("atol"), py::arg("equal_nan"));
  m.def(
      "_allclose",
      [](py::handle a, py::handle b, py::handle rtol, py::handle atol, bool equal_nan) {
        return arraycore::allclose(operand(a), operand(b), operand(rtol), operand(atol), equal_nan);
      },
      py::arg("a"), py::arg("b"), py::arg("rtol"), py::arg("atol"), py::arg("equal_nan"));
  m.def(
      "_array_equal",
      [](py::handle a1, py::handle a2, bool equal_nan) {
        return arraycore::array_equal(operand(a1), operand(a2), equal_nan);
      },
      py::arg("a1"), py::arg("a2"), py::arg("equal_nan"));
  m.def("_around", &arraycore::around, py::arg("a"), py::arg("decimals"), py::arg("out").none(true));
}

}  // namespace kiln::py_bind
