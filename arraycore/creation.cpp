#include "arraycore/creation.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "arraycore/elementwise.h"
#include "arraycore/ufunc_apply.h"
#include "kiln/bfloat16.h"
#include "kiln/strided_index.h"

#include "runtime/kernel_memo.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

void check_supported(DType dtype) {
  char kind = dtype_info(dtype).kind;
  if (kind == 'c' || kind == 'b')
    throw std::invalid_argument("arange does not yet support dtype " +
                                std::string(dtype_info(dtype).name));
}

constexpr uint32_t kBlock = 256;

// One grid-stride kernel per (dtype, integer-or-float arithmetic).
void launch_arange(const NDArray& out, bool integer, int64_t istart, int64_t istep, double fstart,
                   double fstep) {
  // Note [Kernel memo]: one module per (device, dtype, arithmetic), found without building the source.
  static runtime::KernelMemo<int, std::shared_ptr<runtime::LoadedModule>> memo;
  auto& be = runtime::backend();
  const int device = be.current_device();
  const int key = (device * kNumDTypes + static_cast<int>(out.dtype())) * 2 + (integer ? 1 : 0);
  const auto& module = memo.get(key, [&] {
    std::string type(dtype_info(out.dtype()).c_type);
    std::string value = integer ? "(" + type + ")(start_i + i * step_i)"
                                : "(" + type + ")(start_f + (double)i * step_f)";
    if (out.dtype() == DType::BFloat16)   // in float, as ml_dtypes' fill
      value = "(" + type + ")((float)start_f + (float)i * (float)step_f)";
    runtime::CompileRequest request;
    request.source_name = "kiln_arange.cu";
    request.source =
        std::string(out.dtype() == DType::Float16    ? "#include <kiln/half.h>\n"
                    : out.dtype() == DType::BFloat16 ? "#include <kiln/bfloat16.h>\n"
                                                     : "") +
        "extern \"C\" __global__ void kiln_arange(" + type +
        "* out, long long n, long long start_i, long long step_i, double start_f, double step_f) {\n"
        "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
        "       i += (long long)blockDim.x * gridDim.x)\n"
        "    out[i] = " + value + ";\n"
        "}\n";
    return runtime::load_module_cached(request, device);
  });
  runtime::KernelFunction f = module->function("kiln_arange");
  void* ptr = out.data();
  long long n = out.size();
  long long a = istart, b = istep;
  void* args[] = {&ptr, &n, &a, &b, &fstart, &fstep};
  be.launch(f.handle, {grid_stride_blocks(n, kBlock), 1, 1}, {kBlock, 1, 1}, 0, runtime::current_stream(), args);
}

// The kernel of Note [Spaced values], one module per value type (double or
// kiln::complex<double>); `spacing` is run-time data, so linspace, logspace,
// geomspace and retstep share one compiled module. The complex helpers
// follow NumPy's definitions: log10(z) = log10|z| + i arg(z) / ln 10; z ** w
// is 1 for w == 0, repeated multiplication for integral real w in
// (-100, 100), exp(w log z) otherwise.
runtime::CompileRequest spaced_source(bool complex) {
  runtime::CompileRequest r;
  r.source_name = "kiln_spaced.cu";
  r.source = std::string(
      "#include <kiln/complex.h>\n"
      "#include <kiln/strided_index.h>\n"
      "typedef kiln::complex<double> cdouble;\n"
      "__device__ __forceinline__ double spaced_sign(double a) { return a > 0 ? 1.0 : (a < 0 ? -1.0 : a); }\n"
      "__device__ __forceinline__ cdouble spaced_sign(cdouble a) { return a / hypot(a.real(), a.imag()); }\n"
      "__device__ __forceinline__ double spaced_log10(double a) { return log10(a); }\n"
      "__device__ __forceinline__ cdouble spaced_log10(cdouble a) {\n"
      "  return cdouble(log10(hypot(a.real(), a.imag())), atan2(a.imag(), a.real()) * 0.43429448190325182);\n"
      "}\n"
      "__device__ __forceinline__ double spaced_pow(double b, double y) { return pow(b, y); }\n"
      "__device__ __forceinline__ cdouble spaced_pow(cdouble b, cdouble y) {\n"
      "  if (y.real() == 0.0 && y.imag() == 0.0) return cdouble(1.0, 0.0);\n"
      "  double n = y.real();\n"
      "  if (y.imag() == 0.0 && n == floor(n) && n > -100.0 && n < 100.0) {\n"
      "    long long e = (long long)(n < 0 ? -n : n);\n"
      "    cdouble result(1.0, 0.0), square = b;\n"
      "    for (; e > 0; e >>= 1) {\n"
      "      if (e & 1) result = result * square;\n"
      "      square = square * square;\n"
      "    }\n"
      "    return n < 0 ? cdouble(1.0, 0.0) / result : result;\n"
      "  }\n"
      "  cdouble w = y * cdouble(log(hypot(b.real(), b.imag())), atan2(b.imag(), b.real()));\n"
      "  double m = exp(w.real());\n"
      "  return cdouble(m * cos(w.imag()), m * sin(w.imag()));\n"
      "}\n"
      "__device__ __forceinline__ double spaced_floor(double y) { return floor(y); }\n"
      "__device__ __forceinline__ cdouble spaced_floor(cdouble y) { return y; }\n") +
      "typedef " + (complex ? "cdouble" : "double") + " value_t;\n" +
      "__device__ __forceinline__ value_t spaced_linear(value_t a, value_t b, long long k, long long div) {\n"
      "  value_t delta = b - a;\n"
      "  if (div <= 0) return (double)k * delta + a;\n"
      "  value_t step = delta / (double)div;\n"
      "  if (step == value_t(0.0)) return ((double)k / (double)div) * delta + a;\n"
      "  return (double)k * step + a;\n"
      "}\n"
      "extern \"C\" __global__ void kiln_spaced(char* out, const char* start, const char* stop, const char* base,\n"
      "    long long n, long long inner, long long num, long long div, int endpoint, int spacing,\n"
      "    int floor_values, double nan_value, kiln::Layout<4> layout) {\n"
      "  long long grid_step = (long long)blockDim.x * gridDim.x;\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += grid_step) {\n"
      "    long long off[4];\n"
      "    layout.offsets(i, off);\n"
      "    long long k = i / inner;\n"
      "    bool last = endpoint && num > 1 && k == num - 1;\n"
      "    value_t a = *(const value_t*)(start + off[1]), b = *(const value_t*)(stop + off[2]);\n"
      "    value_t r;\n"
      "    if (spacing == 3) {\n"
      "      r = div > 0 ? (b - a) / (double)div : value_t(nan_value);\n"
      "    } else if (spacing == 2) {\n"
      "      value_t sign = spaced_sign(a), ra = a / sign, rb = b / sign;\n"
      "      value_t y = last ? spaced_log10(rb) : spaced_linear(spaced_log10(ra), spaced_log10(rb), k, div);\n"
      "      r = k == 0 ? ra : (last ? rb : spaced_pow(value_t(10.0), y));\n"
      "      r = r * sign;\n"
      "    } else {\n"
      "      r = last ? b : spaced_linear(a, b, k, div);\n"
      "      if (spacing == 1) r = spaced_pow(*(const value_t*)(base + off[3]), r);\n"
      "    }\n"
      "    if (floor_values) r = spaced_floor(r);\n"
      "    *(value_t*)(out + off[0]) = r;\n"
      "  }\n"
      "}\n";
  return r;
}

}  // namespace

NDArray arange(double start, double step, int64_t n, DType dtype) {
  check_supported(dtype);
  if (dtype == DType::BFloat16) {
    // NumPy fills a user dtype from its first two values: start and
    // start + step rounded to bfloat16, their difference (in float) the step.
    const double first = static_cast<float>(kiln::bfloat16(start));
    step = static_cast<float>(kiln::bfloat16(start + step)) - first;
    start = first;
  }
  NDArray out = NDArray::empty({n}, dtype);
  if (n > 0) launch_arange(out, false, 0, 0, start, step);
  return out;
}

NDArray arange_int(int64_t start, int64_t step, int64_t n, DType dtype) {
  check_supported(dtype);
  // NumPy 2 converts `start` as a Python int (Note [Assigned host values] in
  // pyfrontend/ndarray_binding.cpp): out of the dtype's range it is OverflowError.
  const DTypeInfo& info = dtype_info(dtype);
  const int bits = static_cast<int>(info.itemsize) * 8;
  const bool fits = info.kind == 'u' ? start >= 0 && (bits == 64 || start < (int64_t{1} << bits))
                                     : bits == 64 || (start >= -(int64_t{1} << (bits - 1)) &&
                                                      start < (int64_t{1} << (bits - 1)));
  if (!fits)
    throw ScalarOverflow("Python integer " + std::to_string(start) + " out of bounds for " + std::string(info.name));
  NDArray out = NDArray::empty({n}, dtype);
  if (n > 0) launch_arange(out, true, start, step, 0.0, 0.0);
  return out;
}

NDArray empty_in_axis_order(const Shape& shape, DType dtype, const std::vector<int>& axis_order) {
  const size_t ndim = shape.size();
  std::vector<bool> seen(ndim, false);
  if (axis_order.size() != ndim) throw std::invalid_argument("empty_in_axis_order: axis_order has the wrong length");
  Shape stored(ndim);
  for (size_t d = 0; d < ndim; ++d) {
    int axis = axis_order[d];
    if (axis < 0 || static_cast<size_t>(axis) >= ndim || seen[axis])
      throw std::invalid_argument("empty_in_axis_order: axis_order is not a permutation");
    seen[axis] = true;
    stored[d] = shape[axis];
  }
  NDArray memory_order = NDArray::empty(stored, dtype);
  Strides strides(ndim);
  for (size_t d = 0; d < ndim; ++d) strides[axis_order[d]] = memory_order.strides()[d];
  return NDArray(memory_order.memory(), dtype, shape, strides, 0);
}

NDArray zeros_in_axis_order(const Shape& shape, DType dtype, const std::vector<int>& axis_order) {
  NDArray a = empty_in_axis_order(shape, dtype, axis_order);
  if (a.nbytes() > 0) runtime::backend().memset_async(a.data(), 0, a.nbytes(), runtime::current_stream());
  return a;
}

void fill_spaced(const NDArray& out, const NDArray& start, const NDArray& stop, const NDArray& base,
                 int64_t num, bool endpoint, Spacing spacing, bool floor_values) {
  const DType dtype = out.dtype();
  if (dtype != DType::Float64 && dtype != DType::Complex128)
    throw std::invalid_argument("fill_spaced: out must be float64 or complex128");
  for (const NDArray* operand : {&start, &stop, &base}) {
    if (operand->dtype() != dtype) throw std::invalid_argument("fill_spaced: operands must share out's dtype");
    if (operand->shape() != out.shape()) throw std::invalid_argument("fill_spaced: operand shapes differ");
  }
  if (out.ndim() < 1) throw std::invalid_argument("fill_spaced: out needs the spaced axis");
  if (out.ndim() > kiln::kMaxDims) throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  const int64_t n = out.size();
  if (n == 0) return;
  kiln::Layout<4> layout{};
  layout.ndim = out.ndim();
  const NDArray* operands[] = {&out, &start, &stop, &base};
  for (int d = 0; d < out.ndim(); ++d) {
    layout.shape[d] = out.shape()[d];
    for (int k = 0; k < 4; ++k) layout.strides[k][d] = operands[k]->strides()[d];
  }
  static runtime::KernelMemo<int, std::shared_ptr<runtime::LoadedModule>> memo;   // Note [Kernel memo]
  auto& be = runtime::backend();
  const int device = be.current_device();
  const bool complex = dtype == DType::Complex128;
  const auto& module = memo.get(device * 2 + (complex ? 1 : 0),
                                [&] { return runtime::load_module_cached(spaced_source(complex), device); });
  void* out_ptr = out.data();
  const void* start_ptr = start.data();
  const void* stop_ptr = stop.data();
  const void* base_ptr = base.data();
  long long count = n, inner = n / out.shape()[0], count_num = num;
  long long div = endpoint ? num - 1 : num;
  int endpoint_flag = endpoint ? 1 : 0, spacing_flag = static_cast<int>(spacing), floor_flag = floor_values ? 1 : 0;
  double nan_value = std::numeric_limits<double>::quiet_NaN();
  void* args[] = {&out_ptr, &start_ptr, &stop_ptr, &base_ptr, &count,      &inner,     &count_num,
                  &div,     &endpoint_flag, &spacing_flag, &floor_flag, &nan_value, &layout};
  be.launch(module->function("kiln_spaced").handle, {grid_stride_blocks(n, kBlock), 1, 1}, {kBlock, 1, 1}, 0,
            runtime::current_stream(), args);
}

}  // namespace kiln::arraycore
