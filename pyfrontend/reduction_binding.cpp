// kiln._core._ReductionSpec, _reduce, _reduction_source: the reduction engine
// (arraycore/reduction.h) for the Python layer (ufunc.reduce); and
// _plain_reduction_method, _remember_plain_reduction: ndarray.sum() and its
// kin without arguments, straight to the engine (Note [Plain reduction methods]).
//
//   spec = _core._ReductionSpec("sum_f4", [("x", "float")], "x", "a + b", "out = a;", "0.0f",
//                               numpy.float32, "float")
//   _core._reduce(spec, [x], (1,), out)     # out: x's shape without axis 1
//   (raw_params=[("w", "float")] and _reduce(..., raw_inputs=[w]): Note [Reduction raw inputs])
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <unordered_map>

#include "arraycore/reduction.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;
using arraycore::ReductionSpec;

// Note [Plain reduction methods]
// x.sum(), x.max(), x.any() ... with no arguments are the commonest
// reductions and, on small arrays, all host cost: the Python path (argument
// checks, loop dtype, spec lookup) costs several times the launch. So these
// methods are C++ functions that, for a call with no arguments on a non-empty
// array, allocate the 0-d result and launch the spec that ufunc.reduce used
// for the same ufunc and input dtype (kiln/_ufunc_methods.py remembers it on
// its first plain full reduction: loop dtype = work dtype, start folded into
// the kernel); any other call, or a dtype not yet remembered, goes to the
// Python method, so results are the Python path's by construction.
namespace {

struct PlainReduction {
  std::shared_ptr<ReductionSpec> spec;
  arraycore::DType out_dtype;
};

std::mutex plain_mutex;
std::vector<std::string> plain_ufuncs;                     // a method's ufunc: its index here
std::unordered_map<int, PlainReduction> plain_reductions;  // ufunc index * 256 + input dtype

int plain_ufunc_id(const std::string& ufunc) {
  auto it = std::find(plain_ufuncs.begin(), plain_ufuncs.end(), ufunc);
  if (it != plain_ufuncs.end()) return static_cast<int>(it - plain_ufuncs.begin());
  plain_ufuncs.push_back(ufunc);
  return static_cast<int>(plain_ufuncs.size()) - 1;
}

struct PlainMethod {
  int ufunc;
  py::object fallback;
  std::string name, doc;   // the fallback's, for help(); def points into them
  PyMethodDef def;
};

const char* const kPlainMethodCapsule = "kiln.plain_reduction_method";

// The method: self is a capsule holding its PlainMethod; args[0] is the array
// (the function is wrapped in an instancemethod, so it binds like def).
// METH_FASTCALL, as Note [Launch fast path]. A C++ exception on the fast path
// (an out-of-memory, say) reruns the call through the Python method, which
// raises it the usual way.
PyObject* plain_method_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  auto* pm = static_cast<PlainMethod*>(PyCapsule_GetPointer(self, kPlainMethodCapsule));
  if (pm == nullptr) return nullptr;
  if (nargs == 1 && (kwnames == nullptr || PyTuple_GET_SIZE(kwnames) == 0)) {
    const NDArray* a = ndarray_of(args[0]);
    if (a != nullptr && a->size() > 0 && a->ndim() <= 64) {
      PlainReduction plain;
      {
        std::lock_guard<std::mutex> lock(plain_mutex);
        auto it = plain_reductions.find(pm->ufunc * 256 + static_cast<int>(a->dtype()));
        if (it != plain_reductions.end()) plain = it->second;
      }
      if (plain.spec) {
        try {
          NDArray out = NDArray::empty({}, plain.out_dtype);
          int axes[64];
          std::iota(axes, axes + a->ndim(), 0);
          const NDArray* in[] = {a};
          arraycore::reduction_launch(*plain.spec, in, std::span<const int>(axes, a->ndim()), out);
          return py::cast(std::move(out)).release().ptr();
        } catch (...) {
          PyErr_Clear();   // the Python method below reports it
        }
      }
    }
  }
  return PyObject_Vectorcall(pm->fallback.ptr(), args, nargs, kwnames);
}

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
  m.def(
      "_remember_plain_reduction",
      [](const std::string& ufunc, py::handle in_dtype, std::shared_ptr<ReductionSpec> spec, py::handle out_dtype) {
        std::lock_guard<std::mutex> lock(plain_mutex);
        plain_reductions[plain_ufunc_id(ufunc) * 256 + static_cast<int>(to_dtype(in_dtype))] = {std::move(spec),
                                                                                              to_dtype(out_dtype)};
      },
      py::arg("ufunc"), py::arg("in_dtype"), py::arg("spec"), py::arg("out_dtype"),
      "Makes _plain_reduction_method(ufunc)'s no-argument calls on in_dtype arrays launch spec.");
  m.def(
      "_plain_reduction_method",
      [](const std::string& ufunc, py::function fallback) {
        int id;
        {
          std::lock_guard<std::mutex> lock(plain_mutex);
          id = plain_ufunc_id(ufunc);
        }
        auto* pm = new PlainMethod{id, fallback, py::str(fallback.attr("__name__")).cast<std::string>(), "", {}};
        py::object doc = py::getattr(fallback, "__doc__", py::none());
        if (!doc.is_none()) pm->doc = py::str(doc).cast<std::string>();
        pm->def = {pm->name.c_str(), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(plain_method_call)),
                   METH_FASTCALL | METH_KEYWORDS, pm->doc.empty() ? nullptr : pm->doc.c_str()};
        // The capsule, the function's self, owns pm (and so def): both go together.
        py::capsule holder(pm, kPlainMethodCapsule,
                           [](PyObject* c) { delete static_cast<PlainMethod*>(PyCapsule_GetPointer(c, kPlainMethodCapsule)); });
        py::object fn = py::reinterpret_steal<py::object>(PyCFunction_NewEx(&pm->def, holder.ptr(), nullptr));
        if (!fn) throw py::error_already_set();
        py::object method = py::reinterpret_steal<py::object>(PyInstanceMethod_New(fn.ptr()));
        if (!method) throw py::error_already_set();
        return method;
      },
      py::arg("ufunc"), py::arg("fallback"),
      "An ndarray method (assign it to the class) for ufunc's full reduction: no-argument calls launch the "
      "remembered spec, others call fallback(self, ...).");
}

}  // namespace kiln::py_bind
