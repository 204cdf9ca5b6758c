// kiln._core.promote_types / can_cast / result_type: argument conversion only;
// the rules live in arraycore/promotion.cpp. And _dtype_table: the dtype table
// (arraycore/dtype.cpp) for the Python layer.
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "arraycore/promotion.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::Casting;
using arraycore::DType;
using arraycore::WeakScalar;

// Python bool/int/float/complex -> their weak kind; anything else -> None_.
// NumPy scalars come first: numpy.float64 subclasses float but is strong.
WeakScalar weak_kind(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) return WeakScalar::Bool;
  if (PyLong_Check(p)) return WeakScalar::Int;
  if (PyFloat_Check(p)) return WeakScalar::Float;
  if (PyComplex_Check(p)) return WeakScalar::Complex;
  return WeakScalar::None_;
}

bool has_dtype_attr(py::handle obj) {
  // A type object (numpy.float32) has a `dtype` descriptor too; it is a dtype spec.
  return !PyType_Check(obj.ptr()) && py::hasattr(obj, "dtype");
}

// An array (kiln or NumPy), NumPy scalar, or anything numpy.dtype() takes -> DType.
DType strong_dtype(py::handle obj) {
  return has_dtype_attr(obj) ? to_dtype(obj.attr("dtype"), true) : to_dtype(obj);
}

}  // namespace

arraycore::Casting to_casting(py::handle obj) {
  if (py::isinstance<py::str>(obj)) {
    std::string s = py::str(obj);
    if (s == "no") return arraycore::Casting::No;
    if (s == "equiv") return arraycore::Casting::Equiv;
    if (s == "safe") return arraycore::Casting::Safe;
    if (s == "same_kind") return arraycore::Casting::SameKind;
    if (s == "unsafe") return arraycore::Casting::Unsafe;
  }
  throw py::value_error("casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got " +
                        std::string(py::str(py::repr(obj))) + ")");
}


void register_promotion(py::module_& m) {
  m.def(
      "_dtype_table",
      [] {
        std::vector<std::tuple<std::string, char, char, int, std::string>> rows;
        for (int i = 0; i < arraycore::kNumDTypes; ++i) {
          const arraycore::DTypeInfo& d = arraycore::dtype_info(static_cast<DType>(i));
          rows.emplace_back(d.name, d.kind, d.char_code, d.itemsize, d.c_type);
        }
        return rows;
      },
      "The dtype table (arraycore/dtype.cpp): (NumPy name, kind, char, itemsize, C++ spelling) per dtype.");
  m.def(
      "_kiln_dtype", [](py::handle descr) { return kiln_dtype_of(descr).has_value(); }, py::arg("dtype"),
      "Whether a numpy.dtype is one of kiln's (Note [User dtype chars]): numbers and bfloat16.");
  m.def(
      "promote_types",
      [](py::handle a, py::handle b) {
        return to_numpy_dtype(arraycore::promote_types(to_dtype(a), to_dtype(b)));
      },
      py::arg("type1"), py::arg("type2"),
      "numpy.promote_types: the smallest dtype both type1 and type2 cast to safely.");

  m.def(
      "can_cast",
      [](py::handle from, py::handle to, py::handle casting) {
        if (!has_dtype_attr(from) && weak_kind(from) != WeakScalar::None_) {
          throw py::type_error(
              "can_cast() does not support Python ints, floats, and complex because the result "
              "used to depend on the value (NEP 50); pass a dtype or an array");
        }
        Casting c = to_casting(casting);
        return arraycore::can_cast(strong_dtype(from), to_dtype(to), c);
      },
      py::arg("from_"), py::arg("to"), py::arg("casting") = "safe",
      "numpy.can_cast for dtypes and arrays (by dtype; Python scalars are refused, as in NumPy 2).");

  m.def(
      "result_type",
      [](py::args args) {
        std::vector<DType> dtypes;
        std::vector<WeakScalar> weak;
        for (py::handle arg : args) {
          WeakScalar w = has_dtype_attr(arg) ? WeakScalar::None_ : weak_kind(arg);
          if (w != WeakScalar::None_) {
            weak.push_back(w);
          } else {
            dtypes.push_back(strong_dtype(arg));
          }
        }
        return to_numpy_dtype(arraycore::result_type(dtypes, weak));
      },
      "numpy.result_type under NEP 50: arrays, dtypes and NumPy scalars are strong; Python "
      "bool/int/float/complex are weak and keep the arrays' dtype where their kind allows.");

  m.def(
      "min_scalar_type",
      [](py::handle arg) -> py::object {
        // A sequence is the array it makes; another library's device array
        // is a kiln array (Note [Foreign device operands]).
        py::object converted;
        if (PyList_Check(arg.ptr()) || PyTuple_Check(arg.ptr()))
          converted = py::module_::import("kiln._creation").attr("asarray")(arg);
        else
          converted = foreign_device_array(arg);
        py::handle a = converted ? converted : arg;
        // kiln arrays keep their dtype, 0-d ones too (as CuPy: reading the
        // value would synchronise); other arrays with ndim > 0 keep theirs;
        // NumPy's 0-d arrays and scalars go by value.
        if (ndarray_of(a.ptr()) != nullptr && !PyList_Check(arg.ptr()) && !PyTuple_Check(arg.ptr()))
          return a.attr("dtype");
        if (has_dtype_attr(a) && py::hasattr(a, "ndim") && a.attr("ndim").cast<int>() > 0)
          return a.attr("dtype");
        py::object value = has_dtype_attr(a) ? a.attr("item")() : py::reinterpret_borrow<py::object>(a);
        PyObject* v = value.ptr();
        if (PyBool_Check(v)) return to_numpy_dtype(DType::Bool);
        if (PyLong_Check(v)) {
          int overflow = 0;
          long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
          if (overflow == 0) {
            uint64_t magnitude = s < 0 ? uint64_t(0) - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
            return to_numpy_dtype(arraycore::min_scalar_type_integer(magnitude, s < 0));
          }
          if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(v);
            if (!PyErr_Occurred()) return to_numpy_dtype(arraycore::min_scalar_type_integer(u, false));
            PyErr_Clear();
          }
          throw py::type_error("min_scalar_type: " + std::string(py::str(value)) +
                               " is outside the range of every kiln integer dtype (int64, uint64)");
        }
        if (PyFloat_Check(v)) return to_numpy_dtype(arraycore::min_scalar_type_float(PyFloat_AS_DOUBLE(v)));
        if (PyComplex_Check(v))
          return to_numpy_dtype(arraycore::min_scalar_type_complex(PyComplex_RealAsDouble(v), PyComplex_ImagAsDouble(v)));
        return to_numpy_dtype(strong_dtype(value));
      },
      py::arg("a"),
      "numpy.min_scalar_type: the smallest dtype that holds a scalar's (or 0-d array's) value; "
      "arrays with ndim > 0 give their own dtype.");

  m.def(
      "common_type",
      [](py::args arrays) {
        std::vector<DType> dtypes;
        for (py::handle a : arrays) {
          if (!has_dtype_attr(a))
            throw py::type_error("common_type takes arrays, got " + type_name(a));
          dtypes.push_back(strong_dtype(a));
        }
        if (dtypes.empty()) return py::module_::import("numpy").attr("float16");
        try {
          return to_numpy_dtype(arraycore::common_type(dtypes)).attr("type");
        } catch (const std::invalid_argument& e) {
          throw py::type_error(e.what());
        }
      },
      "numpy.common_type: the float or complex scalar type all the arrays convert to "
      "(integers count as float64).");
}

}  // namespace kiln::py_bind
