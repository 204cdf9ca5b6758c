// kiln.ufunc.reduce, kiln._core._reduce_apply (kiln.sum ... nanmin) and the
// ndarray methods sum/prod/max/min/any/all: one C++ call, arraycore::reduce_apply
// (Note [Reduction calls]); and _ReductionSpec, _reduce, _reduction_source:
// the reduction engine (arraycore/reduction.h) for ReductionKernel and the
// Python-built reductions.
//
//   spec = _core._ReductionSpec("sum_f4", [("x", "float")], "x", "a + b", "out = a;", "0.0f",
//                               numpy.float32, "float")
//   _core._reduce(spec, [x], (1,), out)     # out: x's shape without axis 1
//   (raw_params=[("w", "float")] and _reduce(..., raw_inputs=[w]): Note [Reduction raw inputs])
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "arraycore/reduce_apply.h"
#include "arraycore/reduction.h"
#include "arraycore/ufunc_at.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/ufunc_method_args.h"

namespace kiln::py_bind {

using arraycore::NDArray;
using arraycore::ReductionSpec;
using arraycore::UfuncDef;

// Note [Reduction calls]
// ufunc.reduce, kiln.sum and its kin (through _reduce_apply) and the ndarray
// methods sum/prod/max/min/any/all are one C++ call, arraycore::reduce_apply
// (reduce_apply.h): each is a METH_FASTCALL function (as Note [Launch fast
// path]) that parses its arguments here, without pybind11's dispatcher, so
// a bare x.sum() costs one argument scan, a cached spec lookup and the
// launch. The Python layer keeps the signatures and docstrings of kiln.sum
// and the rest.
namespace {

PyObject* g_no_value = nullptr;   // _core._no_value: initial= not given (None means "no initial", as NumPy)

std::string host_operand_message(PyObject* obj) {
  return "Unsupported type " + std::string(py::str(py::type::of(py::handle(obj)))) +
         ": kiln ufuncs and operators take kiln arrays and scalars; move host data to the device with "
         "kiln.asarray() first";
}

bool is_python_or_numpy_scalar(PyObject* o) {
  // Leaked on purpose (as every static Python object here): no destructor may run after the interpreter ends.
  static PyObject* generic = py::module_::import("numpy").attr("generic").cast<py::object>().release().ptr();
  return PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) ||
         PyObject_IsInstance(o, generic) == 1;
}

py::object creation_asarray(py::handle obj) {
  static PyObject* asarray = py::module_::import("kiln._creation").attr("asarray").cast<py::object>().release().ptr();
  return py::reinterpret_borrow<py::object>(asarray)(obj);
}

}  // namespace

const NDArray& ufunc_method_operand(PyObject* obj, py::object& keep) {
  if (const NDArray* a = ndarray_of(obj)) return *a;
  if (!is_python_or_numpy_scalar(obj)) {
    keep = foreign_device_array(obj);   // Note [Foreign device operands]
    if (!keep) throw py::type_error(host_operand_message(obj));
    return *ndarray_of(keep.ptr());
  }
  keep = creation_asarray(obj);
  return *ndarray_of(keep.ptr());
}

void parse_fastcall(const char* fname, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
           std::span<const char* const> names, size_t positional, PyObject** slots) {
  if (static_cast<size_t>(nargs) > positional)
    throw py::type_error(std::string(fname) + "() takes at most " + std::to_string(positional) +
                         " positional arguments (" + std::to_string(nargs) + " given)");
  for (Py_ssize_t k = 0; k < nargs; ++k) slots[k] = args[k];
  if (kwnames == nullptr) return;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (key == nullptr) throw py::error_already_set();
    size_t j = 0;
    while (j < names.size() && std::strcmp(names[j], key) != 0) ++j;
    if (j == names.size())
      throw py::type_error(std::string(fname) + "() got an unexpected keyword argument '" + key + "'");
    if (slots[j] != nullptr)
      throw py::type_error(std::string(fname) + "() got multiple values for argument '" + key + "'");
    slots[j] = args[nargs + k];
  }
}

std::optional<NDArray> ufunc_method_out(PyObject* out, const char* method, PyObject** given) {
  if (out != nullptr && PyTuple_Check(out)) {
    if (PyTuple_GET_SIZE(out) != 1) throw py::value_error("The 'out' tuple must have exactly one entry");
    out = PyTuple_GET_ITEM(out, 0);
  }
  if (out == Py_None) out = nullptr;
  *given = out;
  if (out == nullptr) return std::nullopt;
  const NDArray* o = ndarray_of(out);
  if (o == nullptr) throw py::type_error(std::string(method) + ": out must be a kiln.ndarray, got " + type_name(out));
  return *o;
}

namespace {

// The arguments of a reduction call, as Python objects (nullptr: not given).
struct ReduceArgs {
  PyObject* array = nullptr;
  PyObject* axis = nullptr;
  PyObject* dtype = nullptr;
  PyObject* out = nullptr;
  PyObject* keepdims = nullptr;
  PyObject* initial = nullptr;
  PyObject* where = nullptr;
  bool skip_nan = false;
  bool axis_default_all = true;   // axis not given: all axes (kiln.sum), else axis 0 (ufunc.reduce)
};

PyObject* reduce_call(const UfuncDef& uf, const ReduceArgs& r) {
  py::object keep_array, keep_where;
  const NDArray& a = ufunc_method_operand(r.array, keep_array);
  arraycore::ReduceOptions o;
  if (r.axis == nullptr) {
    if (!r.axis_default_all) {
      o.axes = std::vector<int64_t>{0};
      o.single = true;
    }
  } else if (r.axis != Py_None) {
    if (PyTuple_Check(r.axis)) {
      std::vector<int64_t> axes;
      for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(r.axis); ++k) axes.push_back(to_index(PyTuple_GET_ITEM(r.axis, k)));
      o.axes = std::move(axes);
    } else {
      o.axes = std::vector<int64_t>{to_index(r.axis)};
      o.single = true;
    }
  }
  if (r.dtype != nullptr && r.dtype != Py_None) o.dtype = to_dtype(r.dtype);
  PyObject* out = nullptr;
  o.out = ufunc_method_out(r.out, "reduce", &out);
  if (r.keepdims != nullptr) {
    int t = PyObject_IsTrue(r.keepdims);
    if (t < 0) throw py::error_already_set();
    o.keepdims = t;
  }
  if (r.initial == Py_None) {
    o.initial_kind = arraycore::ReduceOptions::Initial::None_;
  } else if (r.initial != nullptr && r.initial != g_no_value) {
    arraycore::UfuncInput in;
    to_ufunc_input(r.initial, in, true);
    if (in.array != nullptr) throw py::type_error("initial must be a scalar, not a kiln array");
    o.initial_kind = arraycore::ReduceOptions::Initial::Value;
    o.initial = in.scalar;
  }
  o.skip_nan = r.skip_nan;
  if (r.where != nullptr && r.where != Py_True) {
    const NDArray* w = ndarray_of(r.where);
    if (w == nullptr) {
      static PyObject* numpy_bool = py::module_::import("numpy").attr("bool_").cast<py::object>().release().ptr();
      if (!PyBool_Check(r.where) && PyObject_IsInstance(r.where, numpy_bool) != 1)
        throw py::type_error(host_operand_message(r.where));
      keep_where = creation_asarray(py::reinterpret_borrow<py::object>(numpy_bool)(py::handle(r.where)));
      w = ndarray_of(keep_where.ptr());
    }
    o.where = *w;
  }
  try {
    NDArray result = arraycore::reduce_apply(uf, a, o);
    if (out != nullptr) return py::reinterpret_borrow<py::object>(out).release().ptr();
    return py::cast(std::move(result)).release().ptr();
  } catch (const arraycore::ScalarOverflow& e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
    throw py::error_already_set();
  }
}

// ufunc.reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=<no value>, where=True)
PyObject* ufunc_reduce(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded_call([&] {
    static const char* const names[] = {"array", "axis", "dtype", "out", "keepdims", "initial", "where"};
    PyObject* s[7] = {};
    parse_fastcall("reduce", args, nargs, kwnames, names, 7, s);
    if (s[0] == nullptr) throw py::type_error("reduce() missing required argument 'array' (pos 1)");
    const UfuncDef* uf = ufunc_def_of(self);
    if (uf == nullptr) throw py::type_error("reduce: self must be a kiln.ufunc");
    ReduceArgs r{s[0], s[1], s[2], s[3], s[4], s[5], s[6]};
    r.axis_default_all = false;
    return reduce_call(*uf, r);
  });
}

// Note [Reductions of foreign arrays]
// kiln.sum(a) of an object that is no kiln array or scalar but has a method
// of the reduction's name (a NumPy array, a traced value of kiln.fuse) and
// is no device array of another library calls
// a.sum(axis=, dtype=, out=) with keepdims=, initial= and where= when given,
// as numpy.sum does for objects that are not NumPy arrays (and cupy.sum for
// NumPy arrays). Returns nullptr when there is no such method.
PyObject* foreign_reduction(const UfuncDef& uf, const ReduceArgs& r) {
  static const std::pair<const char*, const char*> methods[] = {{"add", "sum"},       {"multiply", "prod"},
                                                                {"maximum", "max"},   {"minimum", "min"},
                                                                {"logical_or", "any"}, {"logical_and", "all"}};
  const char* method = nullptr;
  for (const auto& [ufunc_name, m] : methods)
    if (uf.name == ufunc_name) method = m;
  if (method == nullptr || !PyObject_HasAttrString(r.array, method) ||
      PyObject_HasAttrString(r.array, "__cuda_array_interface__") || PyObject_HasAttrString(r.array, "__cupy_get_ndarray__"))
    return nullptr;   // device arrays of other libraries are read in place (Note [Foreign device operands])
  py::dict kw;
  kw["axis"] = py::handle(r.axis ? r.axis : Py_None);
  if (r.dtype != nullptr && r.dtype != Py_None) kw["dtype"] = py::handle(r.dtype);
  kw["out"] = py::handle(r.out ? r.out : Py_None);
  if (r.keepdims != nullptr && PyObject_IsTrue(r.keepdims) == 1) kw["keepdims"] = py::handle(r.keepdims);
  if (r.initial != nullptr && r.initial != g_no_value) kw["initial"] = py::handle(r.initial);
  if (r.where != nullptr && r.where != Py_True) kw["where"] = py::handle(r.where);
  return py::handle(r.array).attr(method)(**kw).release().ptr();
}

// _reduce_apply(ufunc, array, axis=None, dtype=None, out=None, keepdims=False, initial=<no value>, where=True,
//               skip_nan=False): kiln.sum and its kin.
PyObject* reduce_apply_fn(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded_call([&] {
    static const char* const names[] = {"ufunc", "array", "axis", "dtype", "out", "keepdims", "initial", "where",
                                        "skip_nan"};
    PyObject* s[9] = {};
    parse_fastcall("_reduce_apply", args, nargs, kwnames, names, 9, s);
    const UfuncDef* uf = s[0] ? ufunc_def_of(s[0]) : nullptr;
    if (uf == nullptr || s[1] == nullptr) throw py::type_error("_reduce_apply(ufunc, array, ...)");
    ReduceArgs r{s[1], s[2], s[3], s[4], s[5], s[6], s[7]};
    r.skip_nan = s[8] != nullptr && PyObject_IsTrue(s[8]) == 1;
    if (ndarray_of(r.array) == nullptr && !r.skip_nan && !is_python_or_numpy_scalar(r.array))
      if (PyObject* m = foreign_reduction(*uf, r)) return m;
    return reduce_call(*uf, r);
  });
}

// The ndarray methods: sum and prod take dtype=, any and all no initial=.
const UfuncDef* g_method_ufunc[6];
enum Method { kSum, kProd, kMax, kMin, kAny, kAll };

template <int M>
PyObject* reduction_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded_call([&] {
    static const char* const fname[] = {"sum", "prod", "max", "min", "any", "all"};
    ReduceArgs r;
    r.array = self;
    if (M == kSum || M == kProd) {
      static const char* const names[] = {"axis", "dtype", "out", "keepdims", "initial", "where"};
      PyObject* s[6] = {};
      parse_fastcall(fname[M], args, nargs, kwnames, names, 6, s);
      r.axis = s[0]; r.dtype = s[1]; r.out = s[2]; r.keepdims = s[3]; r.initial = s[4]; r.where = s[5];
    } else if (M == kMax || M == kMin) {
      static const char* const names[] = {"axis", "out", "keepdims", "initial", "where"};
      PyObject* s[5] = {};
      parse_fastcall(fname[M], args, nargs, kwnames, names, 5, s);
      r.axis = s[0]; r.out = s[1]; r.keepdims = s[2]; r.initial = s[3]; r.where = s[4];
    } else {
      static const char* const names[] = {"axis", "out", "keepdims", "where"};
      PyObject* s[4] = {};
      parse_fastcall(fname[M], args, nargs, kwnames, names, 3, s);
      r.axis = s[0]; r.out = s[1]; r.keepdims = s[2]; r.where = s[3];
    }
    return reduce_call(*g_method_ufunc[M], r);
  });
}


PyMethodDef g_ufunc_reduce_def = {
    "reduce", KILN_FASTCALL(ufunc_reduce),
    "reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=<no value>, where=True)\n\n"
    "Reduces `array` along `axis` (an int, a tuple, or None for all) by applying the ufunc, as "
    "numpy.ufunc.reduce; a 0-d kiln array for a full reduction. Differs from NumPy only in the rounding of "
    "float results (Note [Pairwise passes] in arraycore/reduce_apply.cpp)."};
PyMethodDef g_reduce_apply_def = {
    "_reduce_apply", KILN_FASTCALL(reduce_apply_fn),
    "_reduce_apply(ufunc, array, axis=None, dtype=None, out=None, keepdims=False, initial=_no_value, where=True, "
    "skip_nan=False): ufunc.reduce with axis=None by default; skip_nan (add, multiply) counts NaNs as the "
    "identity (nansum, nanprod)."};
PyMethodDef g_method_defs[] = {
    {"sum", KILN_FASTCALL(reduction_method<kSum>),
     "sum(axis=None, dtype=None, out=None, keepdims=False, initial=<no value>, where=True)\n\nSum over axis (all by default), as numpy.sum; the same call as kiln.sum(self, ...)."},
    {"prod", KILN_FASTCALL(reduction_method<kProd>),
     "prod(axis=None, dtype=None, out=None, keepdims=False, initial=<no value>, where=True)\n\nProduct over axis, as numpy.prod; the same call as kiln.prod(self, ...)."},
    {"max", KILN_FASTCALL(reduction_method<kMax>),
     "max(axis=None, out=None, keepdims=False, initial=<no value>, where=True)\n\nMaximum over axis, the first NaN when there is one, as numpy.max; the same call as kiln.max(self, ...)."},
    {"min", KILN_FASTCALL(reduction_method<kMin>),
     "min(axis=None, out=None, keepdims=False, initial=<no value>, where=True)\n\nMinimum over axis, the first NaN when there is one, as numpy.min; the same call as kiln.min(self, ...)."},
    {"any", KILN_FASTCALL(reduction_method<kAny>),
     "any(axis=None, out=None, keepdims=False, *, where=True)\n\nWhether any element over axis is nonzero, as numpy.any; the same call as kiln.any(self, ...)."},
    {"all", KILN_FASTCALL(reduction_method<kAll>),
     "all(axis=None, out=None, keepdims=False, *, where=True)\n\nWhether every element over axis is nonzero, as numpy.all; the same call as kiln.all(self, ...)."},
};

}  // namespace

void register_reduction(py::module_& m) {
  py::class_<ReductionSpec, std::shared_ptr<ReductionSpec>>(m, "_ReductionSpec")
      .def(py::init([](std::string name, std::vector<std::pair<std::string, std::string>> params, std::string map_expr,
                       std::string reduce_expr, std::string post_map_expr, std::string identity, py::handle reduce_dtype,
                       std::string out_ctype, std::string preamble, std::vector<std::string> options,
                       std::string reduce_ctype, size_t reduce_itemsize, bool ordered, std::string fold_expr,
                       std::vector<std::pair<std::string, std::string>> raw_params) {
             auto s = std::make_shared<ReductionSpec>();
             s->name = std::move(name);
             for (auto& [pname, ctype] : params) s->params.push_back({pname, ctype, "", arraycore::EwParam::Input});
             for (auto& [pname, ctype] : raw_params) s->raw_params.push_back({pname, ctype, "", arraycore::EwParam::Raw});
             s->map_expr = std::move(map_expr);
             s->reduce_expr = std::move(reduce_expr);
             s->post_map_expr = std::move(post_map_expr);
             s->identity = std::move(identity);
             s->reduce_dtype = to_dtype(reduce_dtype);
             s->out_ctype = std::move(out_ctype);
             s->preamble = std::move(preamble);
             s->options = std::move(options);
             s->reduce_ctype = std::move(reduce_ctype);
             s->reduce_itemsize = reduce_itemsize;
             s->ordered = ordered;
             s->fold_expr = std::move(fold_expr);
             return s;
           }),
           py::arg("name"), py::arg("params"), py::arg("map_expr"), py::arg("reduce_expr"), py::arg("post_map_expr"),
           py::arg("identity"), py::arg("reduce_dtype"), py::arg("out_ctype"), py::arg("preamble") = "",
           py::arg("options") = std::vector<std::string>{}, py::arg("reduce_ctype") = "",
           py::arg("reduce_itemsize") = 0, py::arg("ordered") = true, py::arg("fold_expr") = "",
           py::arg("raw_params") = std::vector<std::pair<std::string, std::string>>{})
      .def_property_readonly("name", [](const ReductionSpec& s) { return s.name; });
  m.def(
      "_reduce",
      [](const ReductionSpec& spec, const std::vector<const NDArray*>& inputs, const std::vector<int>& axes,
         const NDArray& out, const std::vector<const NDArray*>& raw_inputs) {
        arraycore::reduction_launch(spec, inputs, axes, out, raw_inputs);
      },
      py::arg("spec"), py::arg("inputs"), py::arg("axes"), py::arg("out"),
      py::arg("raw_inputs") = std::vector<const NDArray*>{},
      "Reduces inputs (kiln arrays of one shape) over axes into out (their shape without those axes); raw_inputs "
      "are the spec's raw params' arrays, passed whole.");
  m.def(
      "_reduction_source",
      [](const ReductionSpec& spec, py::sequence input_dtypes, py::handle out_dtype) {
        std::vector<arraycore::DType> d;
        for (py::handle h : input_dtypes) d.push_back(to_dtype(h));
        return arraycore::reduction_source(spec, d, to_dtype(out_dtype));
      },
      py::arg("spec"), py::arg("input_dtypes"), py::arg("out_dtype"));
  m.attr("_no_value") = py::module_::import("builtins").attr("object")();
  g_no_value = m.attr("_no_value").ptr();
  static const char* const method_ufuncs[] = {"add", "multiply", "maximum", "minimum", "logical_or", "logical_and"};
  for (int k = 0; k < 6; ++k) {
    g_method_ufunc[k] = &arraycore::ufunc(method_ufuncs[k]);
    install_method(m.attr("ndarray"), &g_method_defs[k]);
  }
  install_method(m.attr("ufunc"), &g_ufunc_reduce_def);
  m.def(
      "_ufunc_at",
      [](py::handle uf, const NDArray& a, const NDArray& positions, const NDArray* b) {
        const UfuncDef* d = ufunc_def_of(uf.ptr());
        if (d == nullptr) throw py::type_error("_ufunc_at: not a kiln.ufunc");
        arraycore::ufunc_at_apply(*d, a, positions, b);
      },
      py::arg("ufunc"), py::arg("a"), py::arg("positions"), py::arg("b").none(true),
      "ufunc.at's update loop (arraycore/ufunc_at.h): a.flat[positions] = ufunc(a.flat[positions], b) in order.");
  m.def(
      "_reduction_loop_dtype",
      [](py::handle uf, py::handle dtype, py::handle requested, py::handle out_dtype) {
        const UfuncDef* d = ufunc_def_of(uf.ptr());
        if (d == nullptr) throw py::type_error("_reduction_loop_dtype: not a kiln.ufunc");
        auto opt = [](py::handle h) {
          return h.is_none() ? std::nullopt : std::optional<arraycore::DType>(to_dtype(h));
        };
        return to_numpy_dtype(arraycore::reduction_loop_dtype(*d, to_dtype(dtype), opt(requested), opt(out_dtype)));
      },
      py::arg("ufunc"), py::arg("dtype"), py::arg("requested"), py::arg("out_dtype"),
      "The dtype ufunc.reduce and ufunc.accumulate run in for an operand of `dtype`, dtype= `requested`, out= "
      "of out_dtype (None: not given).");
  m.add_object("_reduce_apply",
               py::reinterpret_steal<py::object>(PyCFunction_NewEx(&g_reduce_apply_def, nullptr, m.attr("__name__").ptr())));
}

}  // namespace kiln::py_bind
