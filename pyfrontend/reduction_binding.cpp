// kiln._core._ReductionSpec, _reduce, _reduction_source: the reduction engine
// (arraycore/reduction.h) for the Python layer (ufunc.reduce); and
// _plain_reduction_method, _remember_plain_reduction: ndarray.sum() and its
// kin without arguments, straight to the engine (Note [Plain reduction methods]).
//
//   spec = _core._ReductionSpec("sum_f4", [("x", "float")], "x", "a + b", "out = a;", "0.0f",
//                               numpy.float32, "float")
//   _core._reduce(spec, [x], (1,), out)     # out: x's shape without axis 1
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <numeric>

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
std::map<std::pair<std::string, int>, PlainReduction> plain_reductions;   // (ufunc name, input dtype)

}  // namespace

void register_reduction(py::module_& m) {
  py::class_<ReductionSpec, std::shared_ptr<ReductionSpec>>(m, "_ReductionSpec")
      .def(py::init([](std::string name, std::vector<std::pair<std::string, std::string>> params, std::string map_expr,
                       std::string reduce_expr, std::string post_map_expr, std::string identity, py::handle reduce_dtype,
                       std::string out_ctype, std::string preamble, std::vector<std::string> options,
                       std::string reduce_ctype, size_t reduce_itemsize, bool ordered) {
             auto s = std::make_shared<ReductionSpec>();
             s->name = std::move(name);
             for (auto& [pname, ctype] : params) s->params.push_back({pname, ctype, "", arraycore::EwParam::Input});
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
             return s;
           }),
           py::arg("name"), py::arg("params"), py::arg("map_expr"), py::arg("reduce_expr"), py::arg("post_map_expr"),
           py::arg("identity"), py::arg("reduce_dtype"), py::arg("out_ctype"), py::arg("preamble") = "",
           py::arg("options") = std::vector<std::string>{}, py::arg("reduce_ctype") = "",
           py::arg("reduce_itemsize") = 0, py::arg("ordered") = true)
      .def_property_readonly("name", [](const ReductionSpec& s) { return s.name; });
  m.def(
      "_reduce",
      [](const ReductionSpec& spec, const std::vector<const NDArray*>& inputs, const std::vector<int>& axes,
         const NDArray& out) { arraycore::reduction_launch(spec, inputs, axes, out); },
      py::arg("spec"), py::arg("inputs"), py::arg("axes"), py::arg("out"),
      "Reduces inputs (kiln arrays of one shape) over axes into out (their shape without those axes).");
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
        plain_reductions[{ufunc, static_cast<int>(to_dtype(in_dtype))}] = {std::move(spec), to_dtype(out_dtype)};
      },
      py::arg("ufunc"), py::arg("in_dtype"), py::arg("spec"), py::arg("out_dtype"),
      "Makes _plain_reduction_method(ufunc)'s no-argument calls on in_dtype arrays launch spec.");
  m.def(
      "_plain_reduction_method",
      [](std::string ufunc, py::function fallback, py::handle cls) {
        auto doc = py::getattr(fallback, "__doc__", py::none());
        auto name = py::str(fallback.attr("__name__")).cast<std::string>();
        auto method = [ufunc, fallback](py::handle self, py::args args, py::kwargs kwargs) -> py::object {
          if (args.empty() && kwargs.empty() && py::isinstance<NDArray>(self)) {
            const NDArray& a = self.cast<const NDArray&>();
            if (a.size() > 0) {
              std::shared_ptr<ReductionSpec> spec;
              arraycore::DType out_dtype{};
              {
                std::lock_guard<std::mutex> lock(plain_mutex);
                auto it = plain_reductions.find({ufunc, static_cast<int>(a.dtype())});
                if (it != plain_reductions.end()) std::tie(spec, out_dtype) = std::tie(it->second.spec, it->second.out_dtype);
              }
              if (spec) {
                NDArray out = NDArray::empty({}, out_dtype);
                std::vector<int> axes(a.shape().size());
                std::iota(axes.begin(), axes.end(), 0);
                const NDArray* in[] = {&a};
                arraycore::reduction_launch(*spec, in, axes, out);
                return py::cast(std::move(out));
              }
            }
          }
          return fallback(self, *args, **kwargs);
        };
        return py::cpp_function(method, py::is_method(cls), py::name(name.c_str()),
                                py::doc(doc.is_none() ? "" : py::str(doc).cast<std::string>().c_str()));
      },
      py::arg("ufunc"), py::arg("fallback"), py::arg("cls"),
      "An ndarray method for ufunc's full reduction: no-argument calls launch the remembered spec, others call "
      "fallback.");
}

}  // namespace kiln::py_bind
