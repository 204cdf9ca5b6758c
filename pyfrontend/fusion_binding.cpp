// kiln._core._FusionTrace and _FusionPlan: kiln.fuse's code generation and
// plans (arraycore/fusion.h). kiln/_fusion.py traces the function with
// proxies that record each operation as a node of a _FusionTrace; the plan
// it makes is what every later call with arguments of the same kinds runs.
//
//   t = _core._FusionTrace("fused_f", (x, 2))      # nodes 0 and 1: the arguments
//   [(y, dtype, ndim)] = t.ufunc("multiply", [0, t.constant(3)], None, "same_kind")
//   s = t.reduce(y, "sum", None, None, False)
//   plan = t.plan([y, s, 1, (None,)], True)         # a 1-tuple: a constant result
//   y, total, two, none = plan((x, 2), None)         # None: no host values
#include <pybind11/stl.h>

#include "arraycore/fusion.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::FusionPlan;
using arraycore::FusionTrace;
using arraycore::ScalarValue;
using arraycore::UfuncInput;

std::vector<UfuncInput> call_args(const py::tuple& args) {
  std::vector<UfuncInput> in(args.size());
  for (size_t k = 0; k < in.size(); ++k)
    if (!args[k].is_none()) to_input(args[k], in[k], true);   // None: the function gets it as it is
  return in;
}

ScalarValue scalar(py::handle obj) {
  UfuncInput in;
  if (ndarray_of(obj.ptr()) || !to_input(obj, in, true))
    throw py::type_error("kiln.fuse: expected a scalar, got " + type_name(obj));
  return in.scalar;
}

std::optional<arraycore::DType> optional_dtype(py::handle obj) {
  if (obj.is_none()) return std::nullopt;
  return to_dtype(obj);
}

py::tuple value(const FusionTrace& t, int id) {
  const arraycore::FusionNode& n = t.node(id);
  return py::make_tuple(id, to_numpy_dtype(n.dtype), n.ndim);
}

// A plan and what the Python function returned around its kernel outputs:
// constants, and whether it returned a tuple.
struct Plan {
  FusionPlan plan;
  std::vector<std::optional<size_t>> node_result;   // per returned value: its index in plan.results(), or
  std::vector<py::object> constants;                // none for a constant (this entry)
  bool is_tuple;

  py::object operator()(const py::tuple& args, py::handle host_values) const {
    const std::vector<UfuncInput> in = call_args(args);
    std::vector<ScalarValue> host;
    if (!host_values.is_none())
      for (py::handle v : host_values) host.push_back(scalar(v));
    std::vector<arraycore::NDArray> outs;
    try {
      outs = plan.run(in, host);
    } catch (const arraycore::FusionArgumentsShareMemory&) {
      return py::reinterpret_borrow<py::object>(Py_NotImplemented);   // Note [Arguments sharing memory]
    }
    std::vector<py::object> arrays(outs.size());   // an output returned twice is one object
    py::tuple results(node_result.size());
    for (size_t k = 0; k < node_result.size(); ++k) {
      if (!node_result[k]) {
        results[k] = constants[k];
        continue;
      }
      const FusionPlan::Result& r = plan.results()[*node_result[k]];
      switch (r.kind) {
        case FusionPlan::Result::Kind::Output: {
          py::object& a = arrays[static_cast<size_t>(r.index)];
          if (!a) a = py::cast(std::move(outs[static_cast<size_t>(r.index)]));
          results[k] = a;
          break;
        }
        case FusionPlan::Result::Kind::Arg: results[k] = args[static_cast<size_t>(r.index)]; break;
        case FusionPlan::Result::Kind::Host: results[k] = host_values[py::int_(r.index)]; break;
      }
    }
    if (is_tuple) return results;
    return results[0];
  }
};

}  // namespace

void register_fusion(py::module_& m) {
  py::class_<Plan>(m, "_FusionPlan", "What calls of a fused function with arguments of one kind run.")
      .def("__call__", &Plan::operator(), py::arg("args"), py::arg("host"),
           "Runs the plan: `args` as the fused function got them, `host` the values of its host operations; "
           "NotImplemented (nothing run) when an argument it writes shares memory with another one (Note "
           "[Arguments sharing memory] in arraycore/fusion.cpp).");
  py::class_<FusionTrace>(m, "_FusionTrace", "The trace of one call of a fused function (kiln/_fusion.py).")
      .def(py::init([](const std::string& name, const py::tuple& args) {
             static const py::handle host_array = py::object(py::module_::import("numpy").attr("ndarray")).release();
             std::vector<UfuncInput> in(args.size());
             for (size_t k = 0; k < in.size(); ++k) {
               py::handle a = args[k];
               if (a.is_none()) continue;   // passed to the function as it is (an unused scalar node)
               if (py::isinstance(a, host_array))
                 throw py::type_error(name + ": argument " + std::to_string(k) +
                                      " is a NumPy array, which lives on the host; move it to the device with "
                                      "kiln.asarray first");
               if (PyList_Check(a.ptr()) || PyTuple_Check(a.ptr()) || !to_input(a, in[k], false))
                 throw py::type_error(name + ": argument " + std::to_string(k) + " has unsupported type " +
                                      type_name(a) + " (expected kiln.ndarray or a scalar)");
             }
             return std::make_unique<FusionTrace>(name, in);
           }),
           py::arg("kernel_name"), py::arg("args"))
      .def("constant",
           [](FusionTrace& t, py::handle v) {
             static const py::handle host_array = py::object(py::module_::import("numpy").attr("ndarray")).release();
             UfuncInput in;
             if (ndarray_of(v.ptr()))
               t.cannot("a kiln array that is not an argument (a global or closure variable) is used; pass it as "
                        "an argument of the fused function");
             if (py::isinstance(v, host_array))
               t.cannot("a NumPy array is used; kiln kernels read device arrays (kiln.asarray)");
             if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr()) || !to_input(v, in, false))
               t.cannot("an operand of type " + type_name(v) + " is used");
             return t.constant(in.scalar);
           })
      .def("host", [](FusionTrace& t, py::handle v) { return t.host(scalar(v)); })
      .def(
          "ufunc",
          [](FusionTrace& t, const std::string& name, const std::vector<int>& inputs, py::handle dtype,
             py::handle casting, const std::vector<int>& out) {
            std::vector<std::optional<arraycore::DType>> out_dtypes;
            for (int id : out) out_dtypes.push_back(t.node(id).dtype);
            std::vector<int> ids = t.ufunc(name, inputs, optional_dtype(dtype), to_casting(casting), out_dtypes);
            for (size_t k = 0; k < out.size(); ++k) ids[k] = t.store(out[k], ids[k]);
            py::list r;
            for (int id : ids) r.append(value(t, id));
            return r;
          },
          py::arg("name"), py::arg("inputs"), py::arg("dtype"), py::arg("casting"), py::arg("out") = std::vector<int>{},
          "Output nodes of a ufunc call on nodes, as (node, dtype, ndim); with `out` (nodes, one per output), "
          "the results are stored into them (Note [Stores] in arraycore/fusion.cpp).")
      .def("argument",
           [](FusionTrace& t, py::handle a) {
             UfuncInput in;
             to_input(a, in, true);
             return t.argument(in);
           })
      .def("store", &FusionTrace::store, py::arg("target"), py::arg("value"))
      .def("where", [](FusionTrace& t, int cond, int x, int y) { return value(t, t.where(cond, x, y)); })
      .def("astype", [](FusionTrace& t, int id, py::handle dtype) { return value(t, t.astype(id, to_dtype(dtype))); })
      .def("real", [](FusionTrace& t, int id) { return value(t, t.real(id)); })
      .def("imag", [](FusionTrace& t, int id) { return value(t, t.imag(id)); })
      .def("angle", [](FusionTrace& t, int id, bool deg) { return value(t, t.angle(id, deg)); })
      .def("i0", [](FusionTrace& t, int id) { return value(t, t.i0(id)); })
      .def("sinc", [](FusionTrace& t, int id) { return value(t, t.sinc(id)); })
      .def("inplace", &FusionTrace::inplace, py::arg("name"), py::arg("target"), py::arg("other"))
      .def(
          "reduce",
          [](FusionTrace& t, int id, const std::string& method, py::handle axis, py::handle dtype, bool keepdims) {
            std::optional<std::vector<int64_t>> axes;
            if (PyTuple_Check(axis.ptr())) {
              axes.emplace();
              for (py::handle a : axis) axes->push_back(to_index(a));
            } else if (!axis.is_none()) {
              axes = std::vector<int64_t>{to_index(axis)};
            }
            return value(t, t.reduce(id, method, axes, optional_dtype(dtype), keepdims));
          },
          py::arg("node"), py::arg("method"), py::arg("axis"), py::arg("dtype"), py::arg("keepdims"))
      .def(
          "plan",
          [](const FusionTrace& t, const py::list& returned, bool is_tuple) {
            std::vector<int> nodes;
            std::vector<std::optional<size_t>> node_result;
            std::vector<py::object> constants;
            for (py::handle r : returned) {
              if (PyTuple_Check(r.ptr())) {
                node_result.push_back(std::nullopt);
                constants.push_back(py::reinterpret_borrow<py::tuple>(r)[0]);
              } else {
                node_result.push_back(nodes.size());
                nodes.push_back(r.cast<int>());
                constants.push_back(py::none());
              }
            }
            return Plan{t.plan(nodes), std::move(node_result), std::move(constants), is_tuple};
          },
          py::arg("returned"), py::arg("is_tuple"),
          "The plan returning `returned`: nodes, or 1-tuples holding a constant.");
}

}  // namespace kiln::py_bind
