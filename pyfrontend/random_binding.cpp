// kiln._core._random_*: kiln.random's kernels (arraycore/random.h) for the
// Python layer (pyfrontend/kiln/random), which checks arguments and shapes.
// `bitgen` is a kiln.random.Philox: a launch asks its _take(units) for the
// key and counter (Note [Random counters] in stdlib_kernels/kiln/philox.h).
//
//   x = _core._random_draw(bitgen, "normal", numpy.float32, (0.0, scales), (2, 3), None)
//   w = _core._random_words(bitgen, (8,), numpy.uint64)
#include <pybind11/stl.h>

#include <vector>

#include "arraycore/random.h"
#include "pyfrontend/bindings.h"
#include "runtime/capture.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;
using arraycore::PhiloxKey;
using arraycore::PhiloxTake;

PhiloxTake take_from(py::handle bitgen) {
  return [bitgen](int64_t units) {
    // Note [Stream capture]: the counter advances on the host, so a graph
    // would replay the same numbers at every launch.
    runtime::check_not_capturing(runtime::current_stream(),
                                 "drawing random numbers with kiln.random (cuRAND's place: a CUDA graph would replay "
                                 "the same numbers)");
    py::tuple k = bitgen.attr("_take")(units);
    PhiloxKey key;
    key.key0 = k[0].cast<uint32_t>();
    key.key1 = k[1].cast<uint32_t>();
    key.ctr_lo = k[2].cast<uint64_t>();
    key.ctr_hi = k[3].cast<uint64_t>();
    return key;
  };
}

// A kiln array, or a real Python scalar as a double (as numpy.float64(x) converts it).
arraycore::RandomParam to_param(py::handle x) {
  if (const NDArray* a = ndarray_of(x.ptr())) return {a, 0};
  const double v = PyFloat_AsDouble(x.ptr());
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return {nullptr, v};
}

// A uint64 kiln array, or an int taken mod 2^64.
arraycore::RandomBound to_bound(py::handle x) {
  if (const NDArray* a = ndarray_of(x.ptr())) return {a, 0};
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(x.ptr()));
  if (!i) throw py::error_already_set();
  const unsigned long long v = PyLong_AsUnsignedLongLongMask(i.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  return {nullptr, v};
}

}  // namespace

void register_random(py::module_& m) {
  m.def(
      "_random_draw",
      [](py::handle bitgen, const std::string& dist, py::handle dtype, py::sequence params, py::handle shape,
         py::handle out, bool any_dtype) {
        std::vector<arraycore::RandomParam> ps;
        for (py::handle p : params) ps.push_back(to_param(p));
        const NDArray* o = out.is_none() ? nullptr : ndarray_of(out.ptr());
        if (!out.is_none() && o == nullptr) throw py::type_error("out must be a kiln.ndarray");
        if (any_dtype && o == nullptr)
          return py::cast(arraycore::random_draw_as(dist, to_dtype(dtype), ps, to_shape(shape), take_from(bitgen)));
        NDArray r = arraycore::random_draw(dist, to_dtype(dtype), ps, to_shape(shape), take_from(bitgen), o);
        return o ? py::reinterpret_borrow<py::object>(out) : py::cast(std::move(r));
      },
      py::arg("bitgen"), py::arg("dist"), py::arg("dtype"), py::arg("params"), py::arg("shape"),
      py::arg("out") = py::none(), py::arg("any_dtype") = false,
      "Samples of distribution `dist` (params: Python scalars or kiln arrays broadcastable to `shape`); into "
      "`out` (C-contiguous, of `shape` and the samples' dtype) when given; in any dtype with `any_dtype` "
      "(Note [Samples in any dtype]).");
  m.def(
      "_random_words",
      [](py::handle bitgen, py::handle shape, py::handle dtype) {
        return arraycore::random_words(to_dtype(dtype), to_shape(shape), take_from(bitgen));
      },
      py::arg("bitgen"), py::arg("shape"), py::arg("dtype"),
      "Philox words as they come: uint32, or uint64 (high word first).");
  m.def(
      "_random_integers",
      [](py::handle bitgen, py::handle shape, py::handle dtype, py::handle low, py::handle span) {
        return arraycore::random_integers(to_dtype(dtype), to_shape(shape), to_bound(low), to_bound(span),
                                          take_from(bitgen));
      },
      py::arg("bitgen"), py::arg("shape"), py::arg("dtype"), py::arg("low"), py::arg("span"),
      "Uniform integers low + [0, span] in dtype, without bias (low, span: ints or uint64 kiln arrays).");
  m.def(
      "_random_multinomial",
      [](py::handle bitgen, const NDArray& n, const NDArray& pvals, py::handle shape) {
        return arraycore::random_multinomial(n, pvals, to_shape(shape), take_from(bitgen));
      },
      py::arg("bitgen"), py::arg("n"), py::arg("pvals"), py::arg("shape"));
  m.def(
      "_random_multivariate_hypergeometric",
      [](py::handle bitgen, const NDArray& colors, int64_t total, int64_t nsample, py::handle shape) {
        return arraycore::random_multivariate_hypergeometric(colors, total, nsample, to_shape(shape),
                                                             take_from(bitgen));
      },
      py::arg("bitgen"), py::arg("colors"), py::arg("total"), py::arg("nsample"), py::arg("shape"));
  m.def(
      "_random_dirichlet",
      [](py::handle bitgen, const NDArray& alpha, py::handle shape, py::handle dtype, bool any_dtype) {
        return arraycore::random_dirichlet(alpha, to_shape(shape), to_dtype(dtype), take_from(bitgen), any_dtype);
      },
      py::arg("bitgen"), py::arg("alpha"), py::arg("shape"), py::arg("dtype"), py::arg("any_dtype") = false,
      "Dirichlet rows of `shape` (it ends in len(alpha)); in any dtype with `any_dtype` (Note [Samples in any "
      "dtype]).");
}

}  // namespace kiln::py_bind
