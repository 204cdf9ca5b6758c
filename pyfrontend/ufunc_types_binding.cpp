// The ufunc table and loop resolution (arraycore/ufunc.h) seen from Python,
// for tests and introspection, and the Python exceptions of UfuncTypeError:
//
//   kiln._core._ufunc_info("add")   -> {'name': 'add', 'nin': 2, 'nout': 1, 'identity': 0,
//                                       'types': ['??->?', 'bb->b', ...], 'doc': ..., ...}
//   kiln._core._resolve_loop("add", [numpy.dtype('i1'), int])
//                                   -> ((int8, int8), (int8,), (int8, int8))   # in, out, weak
//   kiln._core.UFuncTypeError       TypeError subclass; _UFuncNoLoopError,
//                                   _UFuncInputCastingError, _UFuncOutputCastingError derive from it
//
// set_ufunc_type_error() is the one translation of UfuncTypeError; a
// pybind11 translator registered here applies it to every binding.
#include <pybind11/stl.h>

#include <limits>

#include "arraycore/ufunc.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::DType;
using arraycore::Identity;
using arraycore::UfuncTypeError;
using arraycore::WeakScalar;

PyObject* g_ufunc_type_error = nullptr;
PyObject* g_no_loop_error = nullptr;
PyObject* g_input_casting_error = nullptr;
PyObject* g_output_casting_error = nullptr;

py::object identity_value(Identity identity) {
  switch (identity) {
    case Identity::None_: return py::none();
    case Identity::Zero: return py::int_(0);
    case Identity::One: return py::int_(1);
    case Identity::MinusOne:
    case Identity::AllOnes: return py::int_(-1);  // NumPy's bitwise_and.identity is -1
    case Identity::True_: return py::bool_(true);
    case Identity::False_: return py::bool_(false);
    case Identity::NegInf: return py::float_(-std::numeric_limits<double>::infinity());
    case Identity::PosInf: return py::float_(std::numeric_limits<double>::infinity());
  }
  return py::none();
}

const char* resolver_name(arraycore::Resolver r) {
  switch (r) {
    case arraycore::Resolver::Default: return "default";
    case arraycore::Resolver::TrueDivide: return "true_divide";
    case arraycore::Resolver::Comparison: return "comparison";
    case arraycore::Resolver::Logical: return "logical";
    case arraycore::Resolver::Promoted: return "promoted";
    case arraycore::Resolver::NoBoolArithmetic: return "no_bool_arithmetic";
    case arraycore::Resolver::MixedInputs: return "mixed_inputs";
    case arraycore::Resolver::Absolute: return "absolute";
  }
  return "?";
}

// NumPy's type string of a loop: "ff->f".
std::string loop_types(const arraycore::UfuncLoop& loop) {
  std::string s;
  for (DType d : loop.in) s += arraycore::dtype_info(d).char_code;
  s += "->";
  for (DType d : loop.out) s += arraycore::dtype_info(d).char_code;
  return s;
}

const arraycore::UfuncDef& ufunc_named(const std::string& name) {
  try {
    return arraycore::ufunc(name);
  } catch (const std::out_of_range& e) {
    throw py::key_error(e.what());
  }
}

// The Python types bool/int/float/complex stand for weak scalars of that kind
// (a value of those types too); anything else is a dtype.
arraycore::Operand to_operand(py::handle obj) {
  PyObject* p = obj.ptr();
  WeakScalar w = WeakScalar::None_;
  if (p == reinterpret_cast<PyObject*>(&PyBool_Type) || PyBool_Check(p)) w = WeakScalar::Bool;
  else if (p == reinterpret_cast<PyObject*>(&PyLong_Type) || PyLong_CheckExact(p)) w = WeakScalar::Int;
  else if (p == reinterpret_cast<PyObject*>(&PyFloat_Type) || PyFloat_CheckExact(p)) w = WeakScalar::Float;
  else if (p == reinterpret_cast<PyObject*>(&PyComplex_Type) || PyComplex_CheckExact(p)) w = WeakScalar::Complex;
  if (w != WeakScalar::None_) return {arraycore::default_dtype(w), w};
  return {to_dtype(obj)};
}

py::tuple dtype_tuple(const std::vector<DType>& dtypes) {
  py::tuple t(dtypes.size());
  for (size_t i = 0; i < dtypes.size(); ++i) t[i] = to_numpy_dtype(dtypes[i]);
  return t;
}

}  // namespace

void set_ufunc_type_error(const arraycore::UfuncTypeError& e) {
  PyObject* cls = g_ufunc_type_error;
  switch (e.kind) {
    case UfuncTypeError::Kind::NoLoop: cls = g_no_loop_error; break;
    case UfuncTypeError::Kind::InputCasting: cls = g_input_casting_error; break;
    case UfuncTypeError::Kind::OutputCasting: cls = g_output_casting_error; break;
  }
  PyErr_SetString(cls, e.what());
}

void register_ufunc_types(py::module_& m) {
  static py::exception<UfuncTypeError> base(m, "UFuncTypeError", PyExc_TypeError);
  static py::exception<UfuncTypeError> no_loop(m, "_UFuncNoLoopError", base.ptr());
  static py::exception<UfuncTypeError> input_casting(m, "_UFuncInputCastingError", base.ptr());
  static py::exception<UfuncTypeError> output_casting(m, "_UFuncOutputCastingError", base.ptr());
  g_ufunc_type_error = base.ptr();
  g_no_loop_error = no_loop.ptr();
  g_input_casting_error = input_casting.ptr();
  g_output_casting_error = output_casting.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UfuncTypeError& e) {
      set_ufunc_type_error(e);
    }
  });

  m.def(
      "_ufunc_names",
      [] {
        py::list names;
        for (const arraycore::UfuncDef& d : arraycore::all_ufuncs()) names.append(d.name);
        return names;
      },
      "Names of kiln's ufuncs, each definition once (aliases such as true_divide left out).");

  m.def(
      "_ufunc_info",
      [](const std::string& name) {
        const arraycore::UfuncDef& d = ufunc_named(name);
        py::list types;
        for (size_t i = d.user_loops; i < d.loops.size(); ++i) types.append(loop_types(d.loops[i]));
        py::dict info;
        info["name"] = d.name;
        info["nin"] = d.nin;
        info["nout"] = d.nout;
        info["identity"] = identity_value(d.identity);
        info["types"] = types;
        info["device_fn"] = d.device_fn;
        info["resolver"] = resolver_name(d.resolver);
        info["doc"] = d.doc;
        return info;
      },
      py::arg("name"), "The table row of a ufunc (KeyError for an unknown name).");

  m.def(
      "_resolve_loop",
      [](const std::string& name, py::sequence inputs, py::object dtype, py::object casting,
         py::object out_dtypes) {
        const arraycore::UfuncDef& d = ufunc_named(name);
        std::vector<arraycore::Operand> ops;
        for (py::handle obj : inputs) ops.push_back(to_operand(obj));
        std::optional<DType> dt;
        if (!dtype.is_none()) dt = to_dtype(dtype);
        std::vector<std::optional<DType>> outs;
        if (!out_dtypes.is_none()) {
          for (py::handle obj : py::reinterpret_borrow<py::sequence>(out_dtypes))
            outs.push_back(obj.is_none() ? std::nullopt : std::optional<DType>(to_dtype(obj)));
        }
        arraycore::LoopChoice c = arraycore::resolve_loop(d, ops, dt, to_casting(casting), outs);
        return py::make_tuple(dtype_tuple(c.in), dtype_tuple(c.out), dtype_tuple(c.weak_dtypes));
      },
      py::arg("name"), py::arg("inputs"), py::arg("dtype") = py::none(), py::arg("casting") = "same_kind",
      py::arg("out_dtypes") = py::none(),
      "resolve_loop for dtypes (bool/int/float/complex, the types or values, are weak Python scalars): "
      "(input dtypes, output dtypes, weak scalar dtypes), or NumPy's TypeError.");
}

}  // namespace kiln::py_bind
