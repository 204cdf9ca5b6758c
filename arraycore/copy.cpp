#include "arraycore/copy.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "arraycore/axes.h"
#include "arraycore/creation.h"
#include "arraycore/elementwise.h"
#include "arraycore/record_dtype.h"
#include "arraycore/strided_plan.h"
#include "arraycore/views.h"
#include "kiln/strided_index.h"
#include "runtime/kernel_memo.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// One module per (source dtype, destination dtype): a contiguous kernel, a
// strided one and a masked strided one. The casts are kiln::numpy_cast
// (kiln/cast.h), NumPy's: complex -> real takes the real part (Note [Half
// conversions are NumPy's], Note [Float to integer casts]).
//
// Note [Bool bytes]
// A bool array may hold bytes other than 0 and 1 (a view of uint8 data).
// NumPy reads any nonzero byte as True: casting from bool gives 1, a where=
// mask selects; bool -> bool copies the bytes as they are. So bool sources
// and masks are read as unsigned char and tested against 0, never loaded as
// C++ bool (whose other byte values are undefined).
runtime::CompileRequest copy_source(DType from, DType to) {
  const bool bool_to_bool = from == DType::Bool && to == DType::Bool;
  std::string src = from == DType::Bool ? "unsigned char" : std::string(dtype_info(from).c_type);
  std::string dst = bool_to_bool ? "unsigned char" : std::string(dtype_info(to).c_type);
  std::string cast = from == DType::Bool && !bool_to_bool ? "(dst_t)(x != 0)" : "kiln::numpy_cast<dst_t>(x)";
  runtime::CompileRequest r;
  r.source_name = "kiln_copy.cu";
  r.source =
      "#include <kiln/cast.h>\n"
      "#include <kiln/strided_index.h>\n"
      "typedef " + src + " src_t;\n"
      "typedef " + dst + " dst_t;\n"
      "__device__ __forceinline__ dst_t kiln_convert(src_t x) { return " + cast + "; }\n"
      "extern \"C\" __global__ void kiln_copy_contiguous(const src_t* src, dst_t* dst, long long n) {\n"
      "  long long step = (long long)blockDim.x * gridDim.x;\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)\n"
      "    dst[i] = kiln_convert(src[i]);\n"
      "}\n"
      "extern \"C\" __global__ void kiln_copy_strided(const char* src, char* dst, long long n,\n"
      "                                               kiln::Layout<2> layout) {\n"
      "  long long step = (long long)blockDim.x * gridDim.x;\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {\n"
      "    long long off[2];\n"
      "    layout.offsets(i, off);\n"
      "    *(dst_t*)(dst + off[1]) = kiln_convert(*(const src_t*)(src + off[0]));\n"
      "  }\n"
      "}\n"
      "extern \"C\" __global__ void kiln_copy_where(const char* src, char* dst, const unsigned char* mask,\n"
      "                                            long long n, kiln::Layout<3> layout) {\n"
      "  long long step = (long long)blockDim.x * gridDim.x;\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {\n"
      "    long long off[3];\n"
      "    layout.offsets(i, off);\n"
      "    if (mask[off[2]] != 0)\n"
      "      *(dst_t*)(dst + off[1]) = kiln_convert(*(const src_t*)(src + off[0]));\n"
      "  }\n"
      "}\n";
  return r;
}

// The loaded copy module of (from, to) on the current device (Note [Kernel memo]).
const std::shared_ptr<runtime::LoadedModule>& copy_module(DType from, DType to) {
  static runtime::KernelMemo<int, std::shared_ptr<runtime::LoadedModule>> memo;
  const int device = runtime::backend().current_device();
  const int key = (device * kNumDTypes + static_cast<int>(from)) * kNumDTypes + static_cast<int>(to);
  return memo.get(key, [&] { return runtime::load_module_cached(copy_source(from, to), device); });
}

// z = x with z of `to`; the engine converts x from the source's dtype.
const EwSpec& cast_spec(DType to) {
  static const std::array<EwSpec, kNumDTypes> specs = [] {
    std::array<EwSpec, kNumDTypes> out;
    for (int d = 0; d < kNumDTypes; ++d) {
      std::string ctype(dtype_info(static_cast<DType>(d)).c_type);
      out[d].name = "kiln_cast_to_" + std::string(dtype_info(static_cast<DType>(d)).name);
      out[d].params = {{"x", ctype, "", EwParam::Input}, {"z", ctype, "", EwParam::Output}};
      out[d].operation = "z = x;";
      out[d].outputs_write_only = true;
    }
    return out;
  }();
  return specs[static_cast<int>(to)];
}

}  // namespace

// Note [Overlapping copies]
// Threads copy elements in no particular order, so a source (or mask) that
// shares bytes with the destination without being the very same view is
// first copied to fresh memory, as NumPy's assignment does. The very same
// view is safe: each element is read and written by one thread. Same offset
// and strides with another shape is not the same view: broadcast to the
// destination's shape (a[:1] into a), one source element feeds many threads.
// Addresses, not Memory objects, are compared: two Memory objects may hold
// the same bytes (an array imported through __cuda_array_interface__ from
// kiln's own memory).
bool shares_bytes(const NDArray& a, const NDArray& b) {
  if (a.size() == 0 || b.size() == 0) return false;
  auto [alow, ahigh] = byte_extent(a.shape(), a.strides(), a.itemsize());
  auto [blow, bhigh] = byte_extent(b.shape(), b.strides(), b.itemsize());
  const auto pa = reinterpret_cast<intptr_t>(a.data()), pb = reinterpret_cast<intptr_t>(b.data());
  return pa + alow < pb + bhigh && pb + blow < pa + ahigh;
}

bool overlaps_partially(const NDArray& a, const NDArray& dst) {
  if (a.data() == dst.data() && a.strides() == dst.strides() && a.shape() == dst.shape() &&
      a.itemsize() == dst.itemsize())
    return false;
  return shares_bytes(a, dst);
}

namespace {

NDArray detached(const NDArray& a, const NDArray& dst) {
  return overlaps_partially(a, dst) ? astype(a, a.dtype(), Order::C) : a;
}

template <int N>
kiln::Layout<N> layout_of(const StridedPlan& plan) {
  if (plan.shape.size() > static_cast<size_t>(kiln::kMaxDims))
    throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  kiln::Layout<N> layout{};
  layout.ndim = static_cast<int>(plan.shape.size());
  for (size_t d = 0; d < plan.shape.size(); ++d) {
    layout.shape[d] = plan.shape[d];
    for (int k = 0; k < N; ++k) layout.strides[k][d] = plan.strides[k][d];
  }
  return layout;
}

}  // namespace

void copy_into(const NDArray& source, const NDArray& dst) {
  require_writeable(dst);   // Note [Read-only arrays]
  if (source.shape() != dst.shape()) throw std::invalid_argument("copy_into: shapes differ");
  const int64_t n = source.size();
  if (n == 0) return;
  const NDArray src = detached(source, dst);
  auto& be = runtime::backend();
  runtime::StreamHandle stream = runtime::current_stream();
  if (src.dtype() == dst.dtype() && src.c_contiguous() && dst.c_contiguous()) {
    be.copy_async(dst.data(), src.data(), dst.nbytes(), runtime::CopyKind::DeviceToDevice, stream);
    return;
  }
  if (is_record(src.dtype()) || is_record(dst.dtype())) {
    record_copy(src, dst);   // Note [Record dtypes]
    return;
  }
  if (src.dtype() != DType::Bool || dst.dtype() != DType::Bool) {
    // Note [Casts through the elementwise engine]: its vectorised contiguous
    // kernel moves 4 elements per thread (astype at copy bandwidth); its loads
    // convert with the same kiln::numpy_cast. bool -> bool keeps raw bytes
    // (Note [Bool bytes]), which the engine would normalise: that stays below.
    EwArg args[] = {EwArg::of(src), EwArg::of(dst)};
    elementwise_launch(cast_spec(dst.dtype()), args, dst.shape());
    return;
  }
  const auto& module = copy_module(src.dtype(), dst.dtype());
  StridedPlan plan = collapse_dims(src.shape(), {src.strides(), dst.strides()});
  const uint32_t block = 256;
  const void* sp = src.data();
  void* dp = dst.data();
  long long count = n;
  bool contiguous = plan.shape.size() <= 1 &&
                    (plan.shape.empty() || (plan.strides[0][0] == static_cast<int64_t>(src.itemsize()) &&
                                            plan.strides[1][0] == static_cast<int64_t>(dst.itemsize())));
  if (contiguous) {
    void* args[] = {&sp, &dp, &count};
    be.launch(module->function("kiln_copy_contiguous").handle, {grid_stride_blocks(n, block), 1, 1}, {block, 1, 1}, 0,
              stream, args);
    return;
  }
  kiln::Layout<2> layout = layout_of<2>(plan);
  void* args[] = {&sp, &dp, &count, &layout};
  be.launch(module->function("kiln_copy_strided").handle, {grid_stride_blocks(n, block), 1, 1}, {block, 1, 1}, 0, stream,
            args);
}

void copy_into_where(const NDArray& source, const NDArray& dst, const NDArray& where) {
  require_writeable(dst);   // Note [Read-only arrays]
  if (source.shape() != dst.shape() || where.shape() != dst.shape())
    throw std::invalid_argument("copy_into_where: shapes differ");
  if (where.dtype() != DType::Bool) throw std::invalid_argument("copy_into_where: the mask must be bool");
  if (is_record(source.dtype()) || is_record(dst.dtype()))
    throw TypeError("where= is not supported for structured or void arrays");
  const int64_t n = dst.size();
  if (n == 0) return;
  const NDArray src = detached(source, dst), mask = detached(where, dst);
  auto& be = runtime::backend();
  const auto& module = copy_module(src.dtype(), dst.dtype());
  StridedPlan plan = collapse_dims(dst.shape(), {src.strides(), dst.strides(), mask.strides()});
  kiln::Layout<3> layout = layout_of<3>(plan);
  const uint32_t block = 256;
  const void* sp = src.data();
  void* dp = dst.data();
  const void* mp = mask.data();
  long long count = n;
  void* args[] = {&sp, &dp, &mp, &count, &layout};
  be.launch(module->function("kiln_copy_where").handle, {grid_stride_blocks(n, block), 1, 1}, {block, 1, 1}, 0,
            runtime::current_stream(), args);
}

NDArray astype(const NDArray& a, DType dtype, Order order) {
  NDArray out = NDArray::empty(a.shape(), dtype, order);
  copy_into(a, out);
  return out;
}

NDArray astype_keeping_order(const NDArray& a, DType dtype) {
  if (a.c_contiguous() || a.ndim() <= 1) return astype(a, dtype, Order::C);
  if (a.f_contiguous()) return astype(a, dtype, Order::F);
  NDArray out = empty_in_axis_order(a.shape(), dtype, memory_order_axes(a.strides()));
  copy_into(a, out);
  return out;
}

}  // namespace kiln::arraycore
