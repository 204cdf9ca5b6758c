#include "arraycore/transfer.h"

#include "arraycore/copy.h"

#include <cstring>
#include <stdexcept>
#include <vector>

namespace kiln::arraycore {
namespace {

// Gathers a strided view (base points at element 0) into C-order dst.
void gather_strided(const char* base, const Shape& shape, const Strides& strides, size_t itemsize,
                    char* dst) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<int64_t> index(ndim, 0);
  int64_t total = shape_size(shape);
  for (int64_t n = 0; n < total; ++n) {
    int64_t offset = 0;
    for (int d = 0; d < ndim; ++d) offset += index[d] * strides[d];
    std::memcpy(dst + n * itemsize, base + offset, itemsize);
    for (int d = ndim - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

void copy_to_host(const NDArray& src, void* dst, runtime::StreamHandle stream) {
  auto& be = runtime::backend();
  size_t nbytes = src.nbytes();
  if (nbytes == 0) return;
  if (src.c_contiguous()) {
    be.copy_async(dst, src.data(), nbytes, runtime::CopyKind::DeviceToHost, stream);
    be.synchronize_stream(stream);
    return;
  }
  // Note [Strided download]: pack on the device with the copy kernel, then
  // download the packed bytes. For dtypes the copy kernel does not convert yet,
  // fetch the byte span the view touches and gather on the host.
  if (copy_supported(src.dtype(), src.dtype())) {
    NDArray packed = astype(src, src.dtype(), Order::C);
    be.copy_async(dst, packed.data(), nbytes, runtime::CopyKind::DeviceToHost, stream);
    be.synchronize_stream(stream);
    return;
  }
  auto [low, high] = byte_extent(src.shape(), src.strides(), src.itemsize());
  std::vector<char> staging(static_cast<size_t>(high - low));
  be.copy_async(staging.data(), static_cast<const char*>(src.data()) + low, staging.size(),
                runtime::CopyKind::DeviceToHost, stream);
  be.synchronize_stream(stream);
  gather_strided(staging.data() - low, src.shape(), src.strides(), src.itemsize(),
                 static_cast<char*>(dst));
}

void copy_from_host(const NDArray& dst, const void* src, runtime::StreamHandle stream) {
  if (!dst.c_contiguous()) throw std::logic_error("copy_from_host needs a C-contiguous target");
  if (dst.nbytes() == 0) return;
  runtime::backend().copy_async(dst.data(), src, dst.nbytes(), runtime::CopyKind::HostToDevice,
                                stream);
}

}  // namespace kiln::arraycore
