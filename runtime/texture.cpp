#include "runtime/texture.h"

#include <stdexcept>
#include <string>

namespace kiln::runtime {
namespace {

std::string str(size_t v) { return std::to_string(v); }

// Runs `destroy` with `device` current (objects belong to the device they were made on); never throws.
template <class F>
void on_device(int device, F destroy) {
  try {
    Backend& be = backend();
    const int current = be.current_device();
    if (current != device) be.set_device(device);
    try {
      destroy();
    } catch (...) {
    }
    if (current != device) be.set_device(current);
  } catch (...) {
  }
}

void check_address_mode(int mode) {
  if (mode < kAddressWrap || mode > kAddressBorder)
    throw std::invalid_argument("TextureDescriptor: address mode " + std::to_string(mode) +
                                " is not a cudaAddressMode (0 wrap, 1 clamp, 2 mirror, 3 border)");
}

}  // namespace

void ChannelFormat::check() const {
  if (kind != kChannelSigned && kind != kChannelUnsigned && kind != kChannelFloat)
    throw std::invalid_argument("ChannelFormatDescriptor: channel format kind " + std::to_string(kind) +
                                " is not supported (cudaChannelFormatKindSigned, Unsigned or Float)");
  const int bits[4] = {x, y, z, w};
  for (int c = 1; c < 4; ++c)
    if (bits[c] < 0 || (bits[c] != 0 && (bits[c] != x || bits[c - 1] == 0)))
      throw std::invalid_argument("ChannelFormatDescriptor: channels (" + std::to_string(x) + ", " +
                                  std::to_string(y) + ", " + std::to_string(z) + ", " + std::to_string(w) +
                                  ") must be the first 1, 2 or 4 of x, y, z, w, all of the same size");
  if (channels() == 3)
    throw std::invalid_argument("ChannelFormatDescriptor: CUDA arrays hold 1, 2 or 4 channels, not 3");
  const bool ok = kind == kChannelFloat ? (x == 16 || x == 32) : (x == 8 || x == 16 || x == 32);
  if (!ok)
    throw std::invalid_argument("ChannelFormatDescriptor: " + std::to_string(x) + "-bit " +
                                (kind == kChannelFloat ? "float" : "integer") +
                                " channels are not supported (integers: 8, 16 or 32 bits; floats: 16 or 32)");
}

TextureArray::TextureArray(const ChannelFormat& format, size_t width, size_t height, size_t depth, unsigned flags)
    : format_(format), width_(width), height_(height), depth_(depth), flags_(flags) {
  format.check();
  if (width == 0) throw std::invalid_argument("To create a CUDA array, width must be nonzero.");
  if (height == 0 && depth > 0 && !(flags & kArrayLayered))
    throw std::invalid_argument("To create a 2D CUDA array, height must be nonzero.");
  if (flags & ~(kArrayLayered | kArraySurfaceLoadStore))
    throw std::invalid_argument("CUDAarray: flags " + std::to_string(flags) +
                                " are not supported (cudaArrayDefault, cudaArrayLayered, cudaArraySurfaceLoadStore)");
  if ((flags & kArrayLayered) && depth == 0)
    throw std::invalid_argument("CUDAarray: a layered array needs depth (the number of layers) > 0");
  device_ = backend().current_device();
  handle_ = texture_provider().create_array(*this);
}

TextureArray::~TextureArray() {
  on_device(device_, [this] { texture_provider().destroy_array(handle_); });
}

size_t TextureArray::nbytes() const {
  return width_ * (height_ ? height_ : 1) * (depth_ ? depth_ : 1) * format_.element_bytes();
}

void TextureArray::copy(void* buffer, bool buffer_on_device, bool into_array, StreamHandle stream) {
  if (backend().current_device() != device_)
    throw std::invalid_argument("CUDAarray: the array is on device " + std::to_string(device_) +
                                ", the current device is " + std::to_string(backend().current_device()));
  texture_provider().copy_array(*this, buffer, buffer_on_device, into_array, stream);
}

void ResourceDesc::check() const {
  switch (type) {
    case kResourceArray:
      if (!array) throw std::invalid_argument("ResourceDescriptor: cudaResourceTypeArray needs cuArr (a CUDAarray)");
      return;
    case kResourceLinear:
    case kResourcePitch2D:
      break;
    case kResourceMipmappedArray:
      throw std::invalid_argument("cudaResourceTypeMipmappedArray is currently not supported.");
    default:
      throw std::invalid_argument("ResourceDescriptor: resource type " + std::to_string(type) +
                                  " is not a cudaResourceType");
  }
  const char* name = type == kResourceLinear ? "cudaResourceTypeLinear" : "cudaResourceTypePitch2D";
  if (!ptr) throw std::invalid_argument(std::string("ResourceDescriptor: ") + name + " needs arr (a kiln.ndarray)");
  format.check();
  const size_t elem = format.element_bytes();
  if (type == kResourceLinear) {
    if (size_in_bytes == 0 || size_in_bytes % elem != 0)
      throw std::invalid_argument("ResourceDescriptor: sizeInBytes " + str(size_in_bytes) +
                                  " must be a nonzero multiple of the element size (" + str(elem) + " bytes)");
    return;
  }
  if (width == 0 || height == 0)
    throw std::invalid_argument("ResourceDescriptor: cudaResourceTypePitch2D needs nonzero width and height");
  if (pitch_in_bytes < width * elem)
    throw std::invalid_argument("ResourceDescriptor: pitchInBytes " + str(pitch_in_bytes) + " is less than a row (" +
                                str(width) + " elements of " + str(elem) + " bytes)");
}

void TextureDesc::check(const ResourceDesc& res) const {
  for (int m : address_mode) check_address_mode(m);
  if (filter_mode != kFilterPoint && filter_mode != kFilterLinear)
    throw std::invalid_argument("TextureDescriptor: filter mode " + std::to_string(filter_mode) +
                                " is not a cudaFilterMode (0 point, 1 linear)");
  if (read_mode != kReadElementType && read_mode != kReadNormalizedFloat)
    throw std::invalid_argument("TextureDescriptor: read mode " + std::to_string(read_mode) +
                                " is not a cudaReadMode (0 element type, 1 normalized float)");
  // Linear filtering interpolates floats: float data, or 8/16-bit integers read as normalized floats.
  const ChannelFormat& f = res.type == kResourceArray ? res.array->format() : res.format;
  const bool float_fetch = f.kind == kChannelFloat || (read_mode == kReadNormalizedFloat && f.x <= 16);
  if (filter_mode == kFilterLinear && res.type != kResourceLinear && !float_fetch)
    throw std::invalid_argument(
        "TextureDescriptor: linear filtering needs a texture that returns floats (float channels, or 8/16-bit "
        "integers with cudaReadModeNormalizedFloat)");
}

namespace {
int current_device_for(const ResourceDesc& res) {
  const int device = backend().current_device();
  if (res.array && res.array->device() != device)
    throw std::invalid_argument("the CUDAarray is on device " + std::to_string(res.array->device()) +
                                ", the current device is " + std::to_string(device));
  return device;
}
}  // namespace

TextureObject::TextureObject(const ResourceDesc& res, const TextureDesc& desc) : surface_(false) {
  res.check();
  desc.check(res);
  device_ = current_device_for(res);
  handle_ = texture_provider().create_texture(res, desc);
}

TextureObject::TextureObject(const ResourceDesc& res) : surface_(true) {
  res.check();
  if (res.type != kResourceArray)
    throw std::invalid_argument("SurfaceObject: surfaces are made of CUDA arrays (cudaResourceTypeArray)");
  if (!(res.array->flags() & kArraySurfaceLoadStore))
    throw std::invalid_argument("SurfaceObject: the CUDAarray must be created with cudaArraySurfaceLoadStore");
  device_ = current_device_for(res);
  handle_ = texture_provider().create_surface(res);
}

TextureObject::~TextureObject() {
  on_device(device_, [this] {
    if (surface_) texture_provider().destroy_surface(handle_);
    else texture_provider().destroy_texture(handle_);
  });
}

TextureProvider& texture_provider() {
  return backend().caps().cuda_interop ? cuda::cuda_texture_provider() : host::host_texture_provider();
}

}  // namespace kiln::runtime
