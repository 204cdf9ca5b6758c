// The view operations (arraycore/views.h) as ndarray methods (reshape,
// transpose, T, mT, swapaxes, squeeze, ravel, flatten) and as the _core
// functions behind kiln.moveaxis, expand_dims, flip and broadcast_to. The
// bindings only turn Python arguments into C++ ones; the rules and NumPy's
// messages live in arraycore. A result that shares memory becomes a view of
// its source (Note [View bases]); a copy owns its memory.
#include <pybind11/stl.h>

#include <cctype>
#include <optional>
#include <string>

#include "arraycore/copy.h"
#include "arraycore/views.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

py::object view_or_copy(py::handle source, const NDArray& a, NDArray result) {
  if (arraycore::is_view_of(result, a)) return make_view(source, std::move(result));
  return py::cast(std::move(result));
}

// An axis argument: an int or a tuple/list of ints (NumPy's _axis_tuple spellings).
std::vector<int64_t> to_axes(py::handle axis) {
  std::vector<int64_t> axes;
  if (PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr())) {
    for (py::handle item : axis) axes.push_back(to_index(item));
  } else {
    axes.push_back(to_index(axis));
  }
  return axes;
}

std::optional<std::vector<int64_t>> to_optional_axes(py::handle axis) {
  if (axis.is_none()) return std::nullopt;
  return to_axes(axis);
}

// An order= argument as one upper-case letter of `allowed` (None is 'C');
// 0 when it is not one of them (the caller raises its own message).
char to_order_char(py::handle order, const char* allowed) {
  if (order.is_none()) return 'C';
  std::string s = py::str(order);
  if (s.size() != 1) return 0;
  char c = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return std::string(allowed).find(c) == std::string::npos ? 0 : c;
}

char ravel_order(py::handle order) {
  char o = to_order_char(order, "CFAK");
  if (o == 0)
    throw py::value_error("order must be one of 'C', 'F', 'A', or 'K' (got " + std::string(py::repr(order)) + ")");
  return o;
}

const NDArray& array_arg(py::handle obj) {
  const NDArray* a = ndarray_of(obj.ptr());
  if (a == nullptr) throw py::type_error("expected a kiln.ndarray, got " + type_name(obj));
  return *a;
}

// ndarray.reshape(*shape, order='C', copy=None) without pybind11's dispatcher:
// the common x.reshape(...) call (Note [Launch fast path]).
PyObject* ndarray_reshape(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    const NDArray* a = ndarray_of(self);
    if (a == nullptr) throw py::type_error("reshape needs a kiln.ndarray");
    py::handle order = Py_None, copy = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      std::string name = py::str(PyTuple_GET_ITEM(kwnames, k));
      if (name == "order") order = args[nargs + k];
      else if (name == "copy") copy = args[nargs + k];
      else throw py::type_error("reshape() got an unexpected keyword argument '" + name + "'");
    }
    if (nargs == 0) throw py::type_error("reshape() takes exactly 1 argument (0 given)");
    arraycore::Shape shape;
    if (nargs == 1) {
      shape = to_shape(args[0]);
    } else {
      for (Py_ssize_t i = 0; i < nargs; ++i) shape.push_back(to_index(args[i]));
    }
    char o = to_order_char(order, "CFA");
    if (o == 0) throw py::value_error("order " + std::string(py::repr(order)) + " is not permitted for reshaping");
    if (PyUnicode_Check(copy.ptr()))
      throw py::value_error("strings are not allowed for 'copy' keyword. Use True/False/None instead.");
    arraycore::CopyMode mode = copy.ptr() == Py_True    ? arraycore::CopyMode::Always
                               : copy.ptr() == Py_False ? arraycore::CopyMode::Never
                                                        : arraycore::CopyMode::IfNeeded;
    return view_or_copy(self, *a, arraycore::reshape(*a, shape, o, mode)).release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

PyMethodDef g_reshape_def = {
    "reshape", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ndarray_reshape)),
    METH_FASTCALL | METH_KEYWORDS,
    "reshape(*shape, order='C', copy=None)\n--\n\n"
    "A view with a new shape where NumPy's would be one (also for non-contiguous arrays whose strides "
    "allow it), else a copy: a.reshape(2, 3) and a.reshape((2, 3)) alike. order ('C', 'F' or 'A') is the "
    "index order elements are read and placed in; one dimension may be -1. copy=True always copies, "
    "copy=False raises ValueError rather than copy."};

}  // namespace

void register_views(py::module_& m) {
  py::object cls = m.attr("ndarray");
  install_method(cls, &g_reshape_def);
  auto array_class = py::reinterpret_borrow<py::class_<NDArray>>(cls);   // register_ndarray's class
  array_class
      .def(
          "transpose",
          [](py::handle self, py::args axes) {
            const NDArray& a = array_arg(self);
            py::handle spec = axes;
            if (axes.size() == 1) {
              spec = axes[0];
              if (spec.is_none() || (PyTuple_Check(spec.ptr()) && PyTuple_GET_SIZE(spec.ptr()) == 0))
                return make_view(self, arraycore::transpose(a));
              if (!PySequence_Check(spec.ptr())) spec = axes;   // one integer axis
            } else if (axes.size() == 0) {
              return make_view(self, arraycore::transpose(a));
            }
            std::vector<int64_t> order;
            for (py::handle item : spec) order.push_back(to_index(item));
            return make_view(self, arraycore::transpose(a, order));
          },
          "A view with axes permuted (reversed when none are given): a.transpose(1, 0, 2), "
          "a.transpose((1, 0, 2)).")
      .def_property_readonly(
          "T", [](py::handle self) { return make_view(self, arraycore::transpose(array_arg(self))); },
          "The transposed view.")
      .def_property_readonly(
          "mT",
          [](py::handle self) {
            const NDArray& a = array_arg(self);
            if (a.ndim() < 2) throw py::value_error("matrix transpose with ndim < 2 is undefined");
            return make_view(self, arraycore::swapaxes(a, -1, -2));
          },
          "Transpose of the last two axes.")
      .def(
          "swapaxes",
          [](py::handle self, py::handle axis1, py::handle axis2) {
            return make_view(self, arraycore::swapaxes(array_arg(self), to_index(axis1), to_index(axis2)));
          },
          py::arg("axis1"), py::arg("axis2"), "A view with two axes interchanged.")
      .def(
          "squeeze",
          [](py::handle self, py::handle axis) {
            return make_view(self, arraycore::squeeze(array_arg(self), to_optional_axes(axis)));
          },
          py::arg("axis") = py::none(), "A view without the given (or all) length-1 axes.")
      .def(
          "ravel",
          [](py::handle self, py::handle order) {
            const NDArray& a = array_arg(self);
            return view_or_copy(self, a, arraycore::ravel(a, ravel_order(order)));
          },
          py::arg("order") = "C", "1-d, read in order ('C', 'F', 'A', 'K'): a view when no copy is needed.")
      .def(
          "flatten",
          [](py::handle self, py::handle order) {
            const NDArray& a = array_arg(self);
            NDArray flat = arraycore::ravel(a, ravel_order(order));
            if (arraycore::is_view_of(flat, a)) flat = arraycore::astype(flat, flat.dtype(), arraycore::Order::C);
            return flat;
          },
          py::arg("order") = "C", "A 1-d copy, read in order ('C', 'F', 'A', 'K').");

  m.def(
      "_memory_order_axes", [](std::vector<int64_t> strides) { return arraycore::memory_order_axes(strides); },
      py::arg("strides"), "The axes, outermost first, as order 'K' reads them (Note [Memory order of axes]).");
  m.def(
      "moveaxis",
      [](py::handle a, py::handle source, py::handle destination) {
        return make_view(a, arraycore::moveaxis(array_arg(a), to_axes(source), to_axes(destination)));
      },
      py::arg("a"), py::arg("source"), py::arg("destination"),
      "kiln.moveaxis of a kiln array: a view with the source axes moved to the destination positions.");
  m.def(
      "expand_dims",
      [](py::handle a, py::handle axis) { return make_view(a, arraycore::expand_dims(array_arg(a), to_axes(axis))); },
      py::arg("a"), py::arg("axis"), "kiln.expand_dims of a kiln array (a view).");
  m.def(
      "flip",
      [](py::handle a, py::handle axis) {
        return make_view(a, arraycore::flip(array_arg(a), to_optional_axes(axis)));
      },
      py::arg("m"), py::arg("axis") = py::none(), "kiln.flip of a kiln array (a view).");
  m.def(
      "broadcast_to",
      [](py::handle a, py::handle shape) {
        arraycore::NDArray view = arraycore::broadcast_view(array_arg(a), to_shape(shape));
        view.set_writeable(false);   // Note [Read-only arrays]: NumPy's broadcast_to is read-only
        return make_view(a, std::move(view));
      },
      py::arg("array"), py::arg("shape"),
      "kiln.broadcast_to of a kiln array: a view with stride 0 on new and stretched axes (NumPy's messages "
      "when it does not broadcast).");
}

}  // namespace kiln::py_bind
