// kiln._core._choose and _select: numpy.choose and numpy.select
// (arraycore/selection.h). kiln/_selection.py shapes the arguments (choices
// as a list, out=, the ndarray method) and calls these.
//
//   _core._choose(idx, [x, y, 0], "clip")          # -> a new kiln array
//   _core._select([c0, c1], [x, y, 0])             # the last value is the default
#include <string>
#include <vector>

#include "arraycore/selection.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;
using arraycore::UfuncInput;

std::vector<UfuncInput> to_inputs(py::handle seq) {
  std::vector<UfuncInput> inputs;
  for (py::handle item : seq) {
    UfuncInput in;
    to_input(item, in, true);
    inputs.push_back(in);
  }
  return inputs;
}

arraycore::ChooseMode to_mode(const std::string& mode) {
  if (mode == "raise") return arraycore::ChooseMode::Raise;
  if (mode == "wrap") return arraycore::ChooseMode::Wrap;
  if (mode == "clip") return arraycore::ChooseMode::Clip;
  throw py::value_error("clipmode must be one of 'clip', 'raise', or 'wrap' (got '" + mode + "')");
}

}  // namespace

void register_selection(py::module_& m) {
  m.def(
      "_choose",
      [](const NDArray& index, py::list choices, const std::string& mode) {
        std::vector<UfuncInput> in = to_inputs(choices);   // the list keeps the arrays alive
        return arraycore::choose(index, in, to_mode(mode));
      },
      py::arg("index"), py::arg("choices"), py::arg("mode"),
      "numpy.choose over kiln arrays and scalars (Note [Selection kernels]).");
  m.def(
      "_select",
      [](py::list conditions, py::list values) {
        std::vector<UfuncInput> c = to_inputs(conditions), v = to_inputs(values);
        return arraycore::select(c, v);
      },
      py::arg("conditions"), py::arg("values"),
      "numpy.select: `values` are the choices followed by the default (Note [Selection kernels]).");
}

}  // namespace kiln::py_bind
