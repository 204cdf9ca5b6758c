// kiln._core's counting kernels (arraycore/counting.h): _bins_direction,
// _bin_counts, _linspace_edges, _uniform_bin_counts, _edge_bin_counts and
// _histogram2d_counts. kiln/_counting.py checks the arguments as NumPy does,
// finds the edges' scalars in NumPy's scalar types and composes these.
//
//   _core._bin_counts(x, None, 10)                       # bincount, 10 bins
//   _core._linspace_edges(numpy.float64(0), numpy.float64(1), d, s, 11, numpy.float64)
#include <vector>

#include "arraycore/counting.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;
using arraycore::ScalarValue;

// A NumPy (or Python) scalar argument.
ScalarValue scalar_of(py::handle obj) {
  arraycore::UfuncInput in;
  to_input(obj, in, true);
  if (in.array) throw py::type_error("expected a scalar, got a kiln array");
  return in.scalar;
}

}  // namespace

void register_counting(py::module_& m) {
  m.def("_bins_direction", &arraycore::bins_direction, py::arg("bins"),
        "1 when the 1-d bins never decrease, -1 when they never increase, else 0 (numpy.digitize's check).");
  m.def("_bin_counts", &arraycore::bin_counts, py::arg("x"), py::arg("weights").none(true), py::arg("length"),
        "numpy.bincount's counts (or float64 weight sums) into `length` bins (Note [Atomic bin sums]).");
  m.def(
      "_linspace_edges",
      [](py::handle start, py::handle stop, py::handle delta, py::handle step, int64_t num, py::handle dtype) {
        return arraycore::linspace_edges(scalar_of(start), scalar_of(stop), scalar_of(delta), scalar_of(step), num,
                                         to_dtype(dtype));
      },
      py::arg("start"), py::arg("stop"), py::arg("delta"), py::arg("step"), py::arg("num"), py::arg("dtype"),
      "Uniform histogram edges by NumPy's linspace (Note [Histogram edges]).");
  m.def(
      "_uniform_bin_counts",
      [](const NDArray& a, const NDArray* weights, py::handle lo, py::handle hi, py::handle first, py::handle denom,
         int64_t nbins, const NDArray& edges) {
        return arraycore::uniform_bin_counts(a, weights, scalar_of(lo), scalar_of(hi), scalar_of(first),
                                             scalar_of(denom), nbins, edges);
      },
      py::arg("a"), py::arg("weights").none(true), py::arg("lo"), py::arg("hi"), py::arg("first"), py::arg("denom"),
      py::arg("nbins"), py::arg("edges"), "Counts over uniform bins (Note [Histogram edges]).");
  m.def("_edge_bin_counts", &arraycore::edge_bin_counts, py::arg("a"), py::arg("weights").none(true),
        py::arg("edges"), "Counts in the bins between increasing edges, the last bin closed.");
  m.def("_histogram2d_counts", &arraycore::histogram2d_counts, py::arg("x"), py::arg("y"),
        py::arg("weights").none(true), py::arg("ex"), py::arg("ey"), "numpy.histogram2d's float64 counts.");
  m.def(
      "_histogramdd_counts",
      [](const NDArray& sample, const NDArray* weights, py::sequence edges) {
        std::vector<NDArray> e;
        for (py::handle h : edges) e.push_back(h.cast<NDArray>());
        return arraycore::histogramdd_counts(sample, weights, e);
      },
      py::arg("sample"), py::arg("weights").none(true), py::arg("edges"),
      "numpy.histogramdd's float64 counts of the (N, D) sample's rows.");
}

}  // namespace kiln::py_bind
