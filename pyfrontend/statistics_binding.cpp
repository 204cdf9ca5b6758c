// kiln._core._mean, _var, _arg_reduce, _count_nonzero: the statistics
// reductions (arraycore/statistics.h) for kiln/_reductions.py, which keeps
// their signatures and docstrings. Arguments are parsed here as NumPy's
// functions take them; the RuntimeWarnings arraycore decides on are given
// here, attributed to the caller of the Python function (stacklevel 2).
//
//   _core._mean(a, axis, dtype, out, keepdims, where, skip_nan)
//   _core._var(a, axis, dtype, out, ddof, keepdims, where, mean, correction, root, skip_nan)
//   _core._arg_reduce(a, axis, out, keepdims, largest, skip_nan)
//   _core._count_nonzero(a, axis, keepdims)
#include <optional>

#include "arraycore/statistics.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::AxisArg;
using arraycore::NDArray;
using arraycore::StatResult;

// kiln arrays as they are; Python and NumPy scalars as 0-d arrays; anything
// else (host arrays, lists) is the ufuncs' TypeError.
NDArray operand(py::handle obj) {
  if (const NDArray* a = ndarray_of(obj.ptr())) return *a;
  static const py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  PyObject* o = obj.ptr();
  if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || py::isinstance(obj, generic))
    return py::module_::import("kiln._creation").attr("asarray")(obj).cast<NDArray>();
  unsupported_operand(obj);
}

// out= as NumPy's reductions take it: None, an array or a 1-tuple of one.
py::object single_out(py::handle out, const char* method) {
  py::object o = py::reinterpret_borrow<py::object>(out);
  if (PyTuple_Check(o.ptr())) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(o);
    if (t.size() != 1) throw py::value_error("The 'out' tuple must have exactly one entry");
    o = t[0];
  }
  if (!o.is_none() && ndarray_of(o.ptr()) == nullptr)
    throw py::type_error(std::string(method) + ": out must be a kiln.ndarray, got " +
                         py::str(py::type::of(o).attr("__name__")).cast<std::string>());
  return o;
}

// where=: True is no mask (nullopt); a bool or numpy.bool_ a 0-d mask.
std::optional<NDArray> to_where(py::handle where) {
  if (where.ptr() == Py_True) return std::nullopt;
  if (const NDArray* a = ndarray_of(where.ptr())) return *a;
  static const py::handle np_bool = py::object(py::module_::import("numpy").attr("bool_")).release();
  if (PyBool_Check(where.ptr()) || py::isinstance(where, np_bool))
    return py::module_::import("kiln._creation").attr("asarray")(np_bool(where)).cast<NDArray>();
  unsupported_operand(where);
}

double to_double(py::handle v) {
  double d = PyFloat_AsDouble(v.ptr());
  if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return d;
}

void warn(PyObject* category, const std::string& message) {
  if (PyErr_WarnEx(category, message.c_str(), 2) < 0) throw py::error_already_set();
}

void parse_common(arraycore::StatOptions& o, py::handle axis, py::handle dtype, const py::object& out,
                  py::handle keepdims, py::handle where, std::optional<NDArray>& where_array, bool skip_nan) {
  o.axis = to_axis(axis);
  if (!dtype.is_none()) o.dtype = to_dtype(dtype);
  o.out = out.is_none() ? nullptr : ndarray_of(out.ptr());
  o.keepdims = truth(keepdims);
  where_array = to_where(where);
  o.where = where_array ? &*where_array : nullptr;
  o.skip_nan = skip_nan;
}

}  // namespace

AxisArg to_axis(py::handle obj) {
  if (obj.is_none()) return AxisArg::all();
  if (PyTuple_Check(obj.ptr())) {
    std::vector<int64_t> axes;
    for (py::handle h : py::reinterpret_borrow<py::tuple>(obj)) axes.push_back(to_index(h));
    return AxisArg::of(std::move(axes));
  }
  return AxisArg::one(to_index(obj));
}

bool truth(py::handle v) {
  int t = PyObject_IsTrue(v.ptr());
  if (t < 0) throw py::error_already_set();
  return t != 0;
}

void warn_discarded_imaginary() {
  static const py::handle complex_warning =
      py::object(py::module_::import("numpy").attr("exceptions").attr("ComplexWarning")).release();
  warn(complex_warning.ptr(), "Casting complex values to real discards the imaginary part");
}

py::object give(StatResult r, const py::object& out) {
  for (const std::string& w : r.warnings) warn(PyExc_RuntimeWarning, w);
  if (r.complex_to_real) warn_discarded_imaginary();
  return out.is_none() ? py::cast(std::move(r.result)) : out;
}

void register_statistics(py::module_& m) {
  m.def(
      "_mean",
      [](py::handle a, py::handle axis, py::handle dtype, py::handle out, py::handle keepdims, py::handle where,
         bool skip_nan) {
        NDArray x = operand(a);
        py::object o = single_out(out, "reduce");
        arraycore::StatOptions opts;
        std::optional<NDArray> w;
        parse_common(opts, axis, dtype, o, keepdims, where, w, skip_nan);
        return give(arraycore::mean_apply(x, opts), o);
      },
      py::arg("a"), py::arg("axis"), py::arg("dtype"), py::arg("out"), py::arg("keepdims"), py::arg("where"),
      py::arg("skip_nan"), "numpy.mean (skip_nan: nanmean) of a kiln array.");
  m.def(
      "_var",
      [](py::handle a, py::handle axis, py::handle dtype, py::handle out, py::handle ddof, py::handle keepdims,
         py::handle where, py::handle mean, py::handle correction, bool root, bool skip_nan) {
        NDArray x = operand(a);
        py::object o = single_out(out, "reduce");
        arraycore::VarOptions opts;
        std::optional<NDArray> w;
        parse_common(opts, axis, dtype, o, keepdims, where, w, skip_nan);
        opts.ddof = to_double(ddof);
        if (!correction.is_none()) {
          if (opts.ddof != 0) throw py::value_error("ddof and correction can't be provided simultaneously.");
          opts.ddof = to_double(correction);
        }
        std::optional<NDArray> mean_array;
        if (!mean.is_none()) mean_array = operand(mean);
        opts.mean = mean_array ? &*mean_array : nullptr;
        opts.root = root;
        return give(arraycore::var_apply(x, opts), o);
      },
      py::arg("a"), py::arg("axis"), py::arg("dtype"), py::arg("out"), py::arg("ddof"), py::arg("keepdims"),
      py::arg("where"), py::arg("mean"), py::arg("correction"), py::arg("root"), py::arg("skip_nan"),
      "numpy.var (root: std; skip_nan: nanvar, nanstd) of a kiln array; mean and correction None when not given.");
  m.def(
      "_arg_reduce",
      [](py::handle a, py::handle axis, py::handle out, py::handle keepdims, bool largest, bool skip_nan) {
        NDArray x = operand(a);
        py::object o = single_out(out, largest ? "argmax" : "argmin");
        NDArray r = arraycore::arg_reduce_apply(x, to_axis(axis), o.is_none() ? nullptr : ndarray_of(o.ptr()),
                                                truth(keepdims), largest, skip_nan);
        if (o.is_none()) return py::cast(std::move(r));
        return o;
      },
      py::arg("a"), py::arg("axis"), py::arg("out"), py::arg("keepdims"), py::arg("largest"), py::arg("skip_nan"),
      "numpy.argmax (largest) / argmin (skip_nan: nanargmax, nanargmin) of a kiln array.");
  m.def(
      "_count_nonzero",
      [](py::handle a, py::handle axis, py::handle keepdims) {
        return py::cast(arraycore::count_nonzero_apply(operand(a), to_axis(axis), truth(keepdims)));
      },
      py::arg("a"), py::arg("axis"), py::arg("keepdims"), "numpy.count_nonzero of a kiln array (int64).");
}

}  // namespace kiln::py_bind
