#include "arraycore/creation.h"

#include <stdexcept>
#include <string>

#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

void check_supported(DType dtype) {
  char kind = dtype_info(dtype).kind;
  if (dtype == DType::Float16 || kind == 'c' || kind == 'b')
    throw std::invalid_argument("arange does not yet support dtype " +
                                std::string(dtype_info(dtype).name));
}

// One grid-stride kernel per (dtype, integer-or-float arithmetic).
void launch_arange(const NDArray& out, bool integer, int64_t istart, int64_t istep, double fstart,
                   double fstep) {
  std::string type(dtype_info(out.dtype()).c_type);
  std::string value = integer ? "(" + type + ")(start_i + i * step_i)"
                              : "(" + type + ")(start_f + (double)i * step_f)";
  runtime::CompileRequest request;
  request.source_name = "kiln_arange.cu";
  request.source =
      "extern \"C\" __global__ void kiln_arange(" + type +
      "* out, long long n, long long start_i, long long step_i, double start_f, double step_f) {\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
      "       i += (long long)blockDim.x * gridDim.x)\n"
      "    out[i] = " + value + ";\n"
      "}\n";
  auto& be = runtime::backend();
  int device = be.current_device();
  auto module = runtime::load_module_cached(request, device);
  runtime::KernelFunction f = module->function("kiln_arange");
  void* ptr = out.data();
  long long n = out.size();
  long long a = istart, b = istep;
  void* args[] = {&ptr, &n, &a, &b, &fstart, &fstep};
  uint32_t block = 256;
  int64_t blocks = (n + block - 1) / block;
  uint32_t grid = static_cast<uint32_t>(std::min<int64_t>(std::max<int64_t>(blocks, 1), 65535));
  be.launch(f.handle, {grid, 1, 1}, {block, 1, 1}, 0, runtime::current_stream(), args);
}

}  // namespace

NDArray arange(double start, double step, int64_t n, DType dtype) {
  check_supported(dtype);
  NDArray out = NDArray::empty({n}, dtype);
  if (n > 0) launch_arange(out, false, 0, 0, start, step);
  return out;
}

NDArray arange_int(int64_t start, int64_t step, int64_t n, DType dtype) {
  check_supported(dtype);
  NDArray out = NDArray::empty({n}, dtype);
  if (n > 0) launch_arange(out, true, start, step, 0.0, 0.0);
  return out;
}

}  // namespace kiln::arraycore
