// kiln._core._ReductionSpec, _reduce, _reduction_source: the reduction engine
// (arraycore/reduction.h) for the Python layer (ufunc.reduce).
//
//   spec = _core._ReductionSpec("sum_f4", [("x", "float")], "x", "a + b", "out = a;", "0.0f",
//                               numpy.float32, "float")
//   _core._reduce(spec, [x], (1,), out)     # out: x's shape without axis 1
#include <pybind11/stl.h>

#include <memory>

#include "arraycore/reduction.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;
using arraycore::ReductionSpec;

void register_reduction(py::module_& m) {
  py::class_<ReductionSpec, std::shared_ptr<ReductionSpec>>(m, "_ReductionSpec")
      .def(py::init([](std::string name, std::vector<std::pair<std::string, std::string>> params, std::string map_expr,
                       std::string reduce_expr, std::string post_map_expr, std::string identity, py::handle reduce_dtype,
                       std::string out_ctype, std::string preamble, std::vector<std::string> options,
                       std::string reduce_ctype, size_t reduce_itemsize) {
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
             return s;
           }),
           py::arg("name"), py::arg("params"), py::arg("map_expr"), py::arg("reduce_expr"), py::arg("post_map_expr"),
           py::arg("identity"), py::arg("reduce_dtype"), py::arg("out_ctype"), py::arg("preamble") = "",
           py::arg("options") = std::vector<std::string>{}, py::arg("reduce_ctype") = "",
           py::arg("reduce_itemsize") = 0)
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
}

}  // namespace kiln::py_bind
