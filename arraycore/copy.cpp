#include "arraycore/copy.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "arraycore/strided_plan.h"
#include "kiln/strided_index.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

bool plain_type(DType d) { return d != DType::Float16 && dtype_info(d).kind != 'c'; }

// One module per (source dtype, destination dtype): a contiguous kernel and a
// strided one.
runtime::CompileRequest copy_source(DType from, DType to) {
  std::string src(dtype_info(from).c_type), dst(dtype_info(to).c_type);
  runtime::CompileRequest r;
  r.source_name = "kiln_copy.cu";
  r.source =
      "#include <kiln/strided_index.h>\n"
      "typedef " + src + " src_t;\n"
      "typedef " + dst + " dst_t;\n"
      "extern \"C\" __global__ void kiln_copy_contiguous(const src_t* src, dst_t* dst, long long n) {\n"
      "  long long step = (long long)blockDim.x * gridDim.x;\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)\n"
      "    dst[i] = (dst_t)src[i];\n"
      "}\n"
      "extern \"C\" __global__ void kiln_copy_strided(const char* src, char* dst, long long n,\n"
      "                                               kiln::Layout<2> layout) {\n"
      "  long long step = (long long)blockDim.x * gridDim.x;\n"
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {\n"
      "    long long off[2];\n"
      "    layout.offsets(i, off);\n"
      "    *(dst_t*)(dst + off[1]) = (dst_t)(*(const src_t*)(src + off[0]));\n"
      "  }\n"
      "}\n";
  return r;
}

uint32_t grid_for(int64_t n, uint32_t block) {
  static thread_local int max_blocks = 0;
  if (max_blocks == 0) {
    auto& be = runtime::backend();
    max_blocks = std::max(1, be.device_properties(be.current_device()).multiprocessor_count) * 8;
  }
  int64_t blocks = (n + block - 1) / block;
  return static_cast<uint32_t>(std::clamp<int64_t>(blocks, 1, max_blocks));
}

}  // namespace

bool copy_supported(DType from, DType to) { return plain_type(from) && plain_type(to); }

void copy_into(const NDArray& src, const NDArray& dst) {
  if (src.shape() != dst.shape()) throw std::invalid_argument("copy_into: shapes differ");
  const int64_t n = src.size();
  if (n == 0) return;
  auto& be = runtime::backend();
  runtime::StreamHandle stream = runtime::current_stream();
  if (src.dtype() == dst.dtype() && src.c_contiguous() && dst.c_contiguous()) {
    be.copy_async(dst.data(), src.data(), dst.nbytes(), runtime::CopyKind::DeviceToDevice, stream);
    return;
  }
  if (!copy_supported(src.dtype(), dst.dtype()))
    throw std::logic_error(std::string("copies between ") + std::string(dtype_info(src.dtype()).name) +
                           " and " + std::string(dtype_info(dst.dtype()).name) +
                           " are not supported yet (float16 and complex casts arrive with the "
                           "half and complex device headers)");
  auto module = runtime::load_module_cached(copy_source(src.dtype(), dst.dtype()), be.current_device());
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
    be.launch(module->function("kiln_copy_contiguous").handle, {grid_for(n, block), 1, 1}, {block, 1, 1}, 0,
              stream, args);
    return;
  }
  if (plan.shape.size() > static_cast<size_t>(kiln::kMaxDims))
    throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  kiln::Layout<2> layout{};
  layout.ndim = static_cast<int>(plan.shape.size());
  for (size_t d = 0; d < plan.shape.size(); ++d) {
    layout.shape[d] = plan.shape[d];
    layout.strides[0][d] = plan.strides[0][d];
    layout.strides[1][d] = plan.strides[1][d];
  }
  void* args[] = {&sp, &dp, &count, &layout};
  be.launch(module->function("kiln_copy_strided").handle, {grid_for(n, block), 1, 1}, {block, 1, 1}, 0, stream,
            args);
}

NDArray astype(const NDArray& a, DType dtype, Order order) {
  NDArray out = NDArray::empty(a.shape(), dtype, order);
  copy_into(a, out);
  return out;
}

}  // namespace kiln::arraycore
