// kiln._core._FftPlan and _cufft_usable: cuFFT plans (arraycore/fft.h) for
// kiln.fft (pyfrontend/kiln/fft/), which prepares operands, caches plans and
// normalises.
//
//   p = _core._FftPlan("C2C", False, (512, 512), 256)   # complex64, 256 transforms of 512 x 512
//   p.execute(x, y, True)                                # y = unnormalised forward FFT of x
//   _core._cufft_usable()                                # (True, '') or (False, why)
#include <string>

#include "arraycore/fft.h"
#include "pyfrontend/bindings.h"
#include "runtime/cuda/cufft_api.h"

namespace kiln::py_bind {

using arraycore::FftKind;
using arraycore::FftPlan;
using arraycore::NDArray;

namespace {

const char* const kKindNames[] = {"C2C", "R2C", "C2R"};

FftKind to_fft_kind(const std::string& name) {
  for (int i = 0; i < 3; ++i)
    if (name == kKindNames[i]) return static_cast<FftKind>(i);
  throw py::value_error("FFT plan kind must be 'C2C', 'R2C' or 'C2R', got '" + name + "'");
}

}  // namespace

void register_fft(py::module_& m) {
  py::class_<FftPlan>(m, "_FftPlan", "A cuFFT plan on one device (arraycore/fft.h)")
      .def(py::init([](const std::string& kind, bool double_precision, py::handle n, int64_t batch) {
             return new FftPlan({to_fft_kind(kind), double_precision, to_shape(n), batch});
           }),
           py::arg("kind"), py::arg("double_precision"), py::arg("n"), py::arg("batch"))
      .def_property_readonly("kind", [](const FftPlan& p) { return kKindNames[static_cast<int>(p.desc().kind)]; })
      .def_property_readonly("double_precision", [](const FftPlan& p) { return p.desc().double_precision; })
      .def_property_readonly("n", [](const FftPlan& p) { return to_tuple(p.desc().n); })
      .def_property_readonly("batch", [](const FftPlan& p) { return p.desc().batch; })
      .def_property_readonly("device", &FftPlan::device)
      .def_property_readonly("work_bytes", &FftPlan::work_bytes)
      .def_property_readonly("input_shape", [](const FftPlan& p) { return to_tuple(p.input_shape()); })
      .def_property_readonly("output_shape", [](const FftPlan& p) { return to_tuple(p.output_shape()); })
      .def_property_readonly("input_dtype", [](const FftPlan& p) { return to_numpy_dtype(p.input_dtype()); })
      .def_property_readonly("output_dtype", [](const FftPlan& p) { return to_numpy_dtype(p.output_dtype()); })
      .def("execute", &FftPlan::execute, py::arg("input"), py::arg("output"), py::arg("forward"),
           "Queues the unnormalised transform of input into output on the current stream.");
  m.def(
      "_cufft_usable",
      [] {
        std::string why;
        const bool ok = arraycore::fft_usable(&why);
        return py::make_tuple(ok, why);
      },
      "(whether cuFFT plans can be made now, why not)");
  m.def(
      "_cufft_version",
      [] {
        const runtime::cuda::CufftApi* api = runtime::cuda::load_cufft_api(nullptr);
        int version = 0;
        if (!api || api->get_version(&version) != runtime::cuda::kCufftSuccess) return -1;
        return version;
      },
      "cufftGetVersion() of the libcufft loaded, -1 when none loads.");
}

}  // namespace kiln::py_bind
