// kiln._core._quantile: median, quantile, percentile and their nan-versions
// (arraycore/order_statistics.h) for kiln/_statistics_order.py, which keeps
// their signatures and docstrings. Arguments are read here as NumPy's
// functions take them (q through numpy.asarray, kiln arrays of q fetched);
// the RuntimeWarnings arraycore decides on are given here, attributed to the
// caller of the Python function (stacklevel 2).
//
//   _core._quantile(a, q, axis, out, method, keepdims, weights, skip_nan, percentile, overwrite_input)
//   # q None: the median
#include "arraycore/order_statistics.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::AxisArg;
using arraycore::NDArray;

// Array-likes as kiln._manipulation._asarray takes them: kiln arrays as they
// are, anything else uploaded.
NDArray array_of(py::handle obj) {
  if (const NDArray* a = ndarray_of(obj.ptr())) return *a;
  static py::handle asarray =   // kept to exit
      py::module_::import("kiln._creation").attr("asarray").cast<py::object>().release();
  return asarray(obj).cast<NDArray>();
}

// axis=: None, an int, or a tuple or list of ints.
AxisArg order_axis(py::handle axis) {
  if (axis.is_none()) return AxisArg::all();
  if (PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr())) {
    std::vector<int64_t> axes;
    for (py::handle h : axis) axes.push_back(to_index(h));
    return AxisArg::of(std::move(axes));
  }
  return AxisArg::one(to_index(axis));
}

// q as numpy.asarray(q) reads it (a kiln array fetched first); Python ints
// and floats are weak (NEP 50).
arraycore::QuantileQ to_q(py::handle q) {
  static py::handle np = py::module_::import("numpy").release();   // kept to exit
  py::object qa = ndarray_of(q.ptr()) ? py::reinterpret_borrow<py::object>(q).attr("get")() : py::object();
  qa = np.attr("asarray")(qa ? qa : py::reinterpret_borrow<py::object>(q));
  arraycore::QuantileQ r;
  r.weak = PyLong_CheckExact(q.ptr()) || PyFloat_CheckExact(q.ptr());
  const char kind = py::str(qa.attr("dtype").attr("kind")).cast<std::string>()[0];
  r.integer = kind == 'i' || kind == 'u';
  if (kind == 'f' && !r.weak) r.dtype = to_dtype(qa.attr("dtype"));
  r.shape = to_shape(qa.attr("shape"));
  for (py::handle v : qa.attr("astype")("float64").attr("ravel")().attr("tolist")())
    r.values.push_back(v.cast<double>());
  return r;
}

}  // namespace

void register_order_statistics(py::module_& m) {
  m.def(
      "_quantile",
      [](py::handle a, py::handle q, py::handle axis, py::handle out, py::handle method, py::handle keepdims,
         py::handle weights, bool skip_nan, bool percentile, bool overwrite_input) {
        const NDArray x = array_of(a);
        arraycore::OrderArgs args;
        if (!q.is_none()) args.q = to_q(q);
        args.percentile = percentile;
        args.axis = order_axis(axis);
        args.method = py::str(method).cast<std::string>();
        args.method_repr = py::repr(method).cast<std::string>();
        std::optional<NDArray> w;
        if (!weights.is_none()) w = array_of(weights);
        args.weights = w ? &*w : nullptr;
        if (!out.is_none() && ndarray_of(out.ptr()) == nullptr)
          throw py::type_error("copyto() argument 1 must be a kiln.ndarray, not " + type_name(out));
        args.out = out.is_none() ? nullptr : ndarray_of(out.ptr());
        args.keepdims = truth(keepdims);
        args.skip_nan = skip_nan;
        args.overwrite_input = overwrite_input;
        return give(arraycore::quantile_apply(x, args), py::reinterpret_borrow<py::object>(out));
      },
      py::arg("a"), py::arg("q"), py::arg("axis"), py::arg("out"), py::arg("method"), py::arg("keepdims"),
      py::arg("weights"), py::arg("skip_nan"), py::arg("percentile"), py::arg("overwrite_input") = false,
      "numpy.quantile (percentile: numpy.percentile; skip_nan: the nan-versions; q None: numpy.median) of an "
      "array-like.");
}

}  // namespace kiln::py_bind
