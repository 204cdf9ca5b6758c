// kiln._core: the compiled half of the kiln package.
#include "pyfrontend/bindings.h"
#include "pyfrontend/operation_bindings.h"

namespace kiln::py_bind {
// random_binding.cpp. Declared here, not with the others in bindings.h: a line
// there recompiles every binding file (about 30 minutes on the shared build
// machine this round); it moves there when bindings.h next changes anyway.
void register_random(py::module_& m);
void register_einsum(py::module_& m);   // einsum_binding.cpp, here for the same reason
void register_memory_ranges(py::module_& m);   // memory_ranges_binding.cpp, the same
void register_flat_access(py::module_& m);     // flat_access_binding.cpp (issue 22), the same
void register_bit_packing(py::module_& m);     // bit_packing_binding.cpp (issue 22), the same
void register_stride_tricks(py::module_& m);   // stride_tricks_binding.cpp (issue 22), the same
void register_cuda_runtime(py::module_& m);    // cuda_runtime_binding.cpp (issue 22), the same
void register_records(py::module_& m);         // record_binding.cpp (issue 22), the same
void register_texture(py::module_& m);         // texture_binding.cpp (issue 23), the same
}  // namespace kiln::py_bind

PYBIND11_MODULE(_core, m) {
  m.doc() = "kiln's C++ core: arrays, memory, streams and kernels";
  m.attr("__version__") = KILN_VERSION;
  kiln::py_bind::register_errors(m);
  kiln::py_bind::register_exit_flag();
  kiln::py_bind::register_memory(m);
  kiln::py_bind::register_cuda(m);
  kiln::py_bind::register_cuda_runtime(m);
  kiln::py_bind::register_ndarray(m);
  kiln::py_bind::register_views(m);
  kiln::py_bind::register_raw_kernel(m);
  kiln::py_bind::register_promotion(m);
  kiln::py_bind::register_creation(m);
  kiln::py_bind::register_copy(m);
  kiln::py_bind::register_memory_ranges(m);
  kiln::py_bind::register_elementwise(m);
  kiln::py_bind::register_statistics(m);
  kiln::py_bind::register_order_statistics(m);
  kiln::py_bind::register_ufunc_types(m);
  kiln::py_bind::register_ufunc(m);
  kiln::py_bind::register_reduction(m);   // after ufunc: installs ufunc.reduce
  kiln::py_bind::register_scan(m);
  kiln::py_bind::register_advanced_indexing(m);
  kiln::py_bind::register_sort(m);
  kiln::py_bind::register_matmul(m);
  kiln::py_bind::register_solver(m);
  kiln::py_bind::register_fft(m);
  kiln::py_bind::register_random(m);
  kiln::py_bind::register_jit(m);
  kiln::py_bind::register_jit_device(m);
  kiln::py_bind::register_dlpack(m);
  kiln::py_bind::register_interop(m);
  kiln::py_bind::register_selection(m);
  kiln::py_bind::register_counting(m);
  kiln::py_bind::register_math_functions(m);
  kiln::py_bind::register_einsum(m);
  kiln::py_bind::register_fusion(m);
  kiln::py_bind::register_polynomial(m);
  kiln::py_bind::register_numeric(m);
  kiln::py_bind::register_flat_access(m);
  kiln::py_bind::register_bit_packing(m);
  kiln::py_bind::register_stride_tricks(m);
  kiln::py_bind::register_records(m);
  kiln::py_bind::register_texture(m);
}
