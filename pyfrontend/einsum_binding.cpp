// kiln._core._einsum and _einsum_path: numpy.einsum and numpy.einsum_path
// (arraycore/einsum.h) for kiln/_einsum.py, which keeps their signatures and
// docstrings. Here: einsum's two call forms (the subscripts string, or
// operands and sublists, whose subscripts become letters), the operands
// (kiln arrays as they are, anything else through kiln.asarray), and the
// keywords as NumPy takes them.
//
//   _core._einsum(("ij,jk->ik", a, b), out, dtype, order, casting, optimize)
//   _core._einsum((a, [0, 1], b, [1, 2], [0, 2]), None, None, "K", "safe", False)   # the same
//   _core._einsum_path(("ij,jk", a, b), "greedy")    # (['einsum_path', (0, 1)], text)
#include <cctype>
#include <string>
#include <vector>

#include "arraycore/einsum.h"
#include "arraycore/views.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::EinsumOptimize;
using arraycore::NDArray;

std::string sublist_text(py::handle sublist) {
  std::string text;
  for (py::handle s : sublist) {
    if (s.ptr() == Py_Ellipsis) text += "...";
    else text += arraycore::sublist_letter(to_index(s));
  }
  return text;
}

// The subscripts text of einsum's two call forms, and the operands.
std::string split_arguments(const py::tuple& args, std::vector<py::object>& operands) {
  const size_t n = args.size();
  if (n == 0)
    throw py::value_error("must specify the einstein sum subscripts string and at least one operand, or at least "
                          "one operand and its corresponding subscripts list");
  if (py::isinstance<py::str>(args[0])) {
    for (size_t i = 1; i < n; ++i) operands.push_back(args[i]);
    return args[0].cast<std::string>();
  }
  if (n < 2) throw py::value_error("must provide at least an operand and a subscripts list to einsum");
  std::string text;
  for (size_t i = 0; i + 1 < n; i += 2) {
    operands.push_back(args[i]);
    if (i) text += ",";
    text += sublist_text(args[i + 1]);
  }
  if (n % 2) text += "->" + sublist_text(args[n - 1]);
  return text;
}

EinsumOptimize to_optimize(py::handle optimize) {
  EinsumOptimize o;
  PyObject* p = optimize.ptr();
  if ((PyList_Check(p) || PyTuple_Check(p)) && py::len(optimize) > 0) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(optimize);
    py::object first = seq[0];
    if (py::isinstance<py::str>(first) && first.cast<std::string>() == "einsum_path") {
      o.kind = EinsumOptimize::Kind::Path;
      for (size_t i = 1; i < seq.size(); ++i) {
        std::vector<int64_t> step;
        for (py::handle k : seq[i]) step.push_back(to_index(k));
        o.path.push_back(std::move(step));
      }
      return o;
    }
  }
  py::object strategy = PyTuple_Check(p) && py::len(optimize) == 2 ? py::reinterpret_borrow<py::tuple>(optimize)[0]
                                                                     : py::reinterpret_borrow<py::object>(optimize);
  if (strategy.ptr() == Py_False || strategy.is_none()) return o;
  if (strategy.ptr() == Py_True ||
      (py::isinstance<py::str>(strategy) &&
       (strategy.cast<std::string>() == "greedy" || strategy.cast<std::string>() == "optimal"))) {
    o.kind = EinsumOptimize::Kind::Greedy;
    return o;
  }
  throw py::type_error("Did not understand the path: " + std::string(py::str(optimize)));
}

char to_order_letter(py::handle order) {
  if (order.is_none()) return 'K';
  if (py::isinstance<py::str>(order)) {
    const std::string s = order.cast<std::string>();
    if (s.size() == 1 && std::string("CFAK").find(static_cast<char>(std::toupper(s[0]))) != std::string::npos)
      return static_cast<char>(std::toupper(s[0]));
  }
  throw py::value_error("order must be one of 'C', 'F', 'A', or 'K' (got " + std::string(py::repr(order)) + ")");
}

}  // namespace

void register_einsum(py::module_& m) {
  m.def(
      "_einsum",
      [](const py::tuple& args, py::handle out, py::handle dtype, py::handle order, py::handle casting,
         py::handle optimize) -> py::object {
        std::vector<py::object> objects;
        const std::string subscripts = split_arguments(args, objects);
        arraycore::EinsumOptions o;
        o.casting = to_casting(casting);
        o.order = to_order_letter(order);
        std::vector<NDArray> operands;
        for (py::object& x : objects) {
          if (ndarray_of(x.ptr()) == nullptr) x = py::module_::import("kiln._creation").attr("asarray")(x);
          operands.push_back(*ndarray_of(x.ptr()));
        }
        if (!dtype.is_none()) o.dtype = to_dtype(dtype);
        if (!out.is_none()) {
          o.out = ndarray_of(out.ptr());
          if (o.out == nullptr) throw py::type_error("einsum's out must be a kiln array, not " + type_name(out));
        }
        o.optimize = to_optimize(optimize);
        arraycore::EinsumResult r = arraycore::einsum_apply(subscripts, operands, o);
        if (r.discards_imaginary) warn_discarded_imaginary();
        if (!out.is_none()) return py::reinterpret_borrow<py::object>(out);
        for (size_t i = 0; i < operands.size(); ++i)
          if (arraycore::is_view_of(r.result, operands[i])) return make_view(objects[i], std::move(r.result));
        return py::cast(std::move(r.result));
      },
      py::arg("operands"), py::arg("out"), py::arg("dtype"), py::arg("order"), py::arg("casting"),
      py::arg("optimize"), "numpy.einsum of the call's positional arguments (either form).");
  m.def(
      "_einsum_path",
      [](const py::tuple& args, py::handle optimize) {
        std::vector<py::object> objects;
        const std::string subscripts = split_arguments(args, objects);
        std::vector<arraycore::Shape> shapes;
        for (const py::object& x : objects) {
          const NDArray* a = ndarray_of(x.ptr());
          shapes.push_back(a != nullptr ? a->shape() : to_shape(py::module_::import("numpy").attr("shape")(x)));
        }
        arraycore::EinsumPath p = arraycore::einsum_path(subscripts, shapes, to_optimize(optimize));
        py::list path;
        path.append("einsum_path");
        for (const auto& step : p.path) path.append(to_tuple(step));
        return py::make_tuple(path, p.text);
      },
      py::arg("operands"), py::arg("optimize"),
      "numpy.einsum_path of the call's positional arguments (kiln or host arrays: shapes suffice).");
}

}  // namespace kiln::py_bind
