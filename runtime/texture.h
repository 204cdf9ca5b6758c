// Texture and surface memory (kiln.cuda.texture, as CuPy's cupy.cuda.texture):
// CUDA arrays, texture objects and surface objects, described with the CUDA
// runtime API's values on every backend.
//
//   ChannelFormat f{32, 0, 0, 0, kChannelFloat};
//   auto arr = std::make_shared<TextureArray>(f, 64, 32, 0, 0);  // cudaMalloc3DArray
//   arr->copy(host_ptr, /*on_device=*/false, /*into_array=*/true, stream);  // (32, 64) C order
//   ResourceDesc res;  res.array = arr;
//   TextureDesc desc;  desc.filter_mode = kFilterLinear;
//   TextureObject tex(res, desc);   // tex.handle(): the cudaTextureObject_t a kernel takes
//
// On the cuda backend these are the driver's CUarray, CUtexObject and
// CUsurfObject (runtime/cuda/texture_objects.cpp). On the host backend a CUDA
// array is host memory, row-major with no padding, and a handle is the
// address of a kiln_host::TextureData (kiln/host_abi.h) that the fetches of
// kiln/host_texture.h read (runtime/host/host_textures.cpp; Note [Host
// texture fetches] there says how they match the GPU's).
//
// The checks are here, once for both: std::invalid_argument (ValueError) for
// a bad description, with CUDA's rules (formats, extents, which resource
// takes which fields).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/backend.h"

namespace kiln::runtime {

// cudaChannelFormatKind, cudaAddressMode, cudaFilterMode, cudaReadMode,
// cudaResourceType and cudaArray* flags.
inline constexpr int kChannelSigned = 0, kChannelUnsigned = 1, kChannelFloat = 2, kChannelNone = 3;
inline constexpr int kAddressWrap = 0, kAddressClamp = 1, kAddressMirror = 2, kAddressBorder = 3;
inline constexpr int kFilterPoint = 0, kFilterLinear = 1;
inline constexpr int kReadElementType = 0, kReadNormalizedFloat = 1;
inline constexpr int kResourceArray = 0, kResourceMipmappedArray = 1, kResourceLinear = 2, kResourcePitch2D = 3;
inline constexpr unsigned kArrayDefault = 0, kArrayLayered = 1, kArraySurfaceLoadStore = 2, kArrayCubemap = 4,
                          kArrayTextureGather = 8;

// cudaChannelFormatDesc: bits per channel and their kind.
struct ChannelFormat {
  int x = 0, y = 0, z = 0, w = 0;
  int kind = kChannelNone;
  // Throws std::invalid_argument unless 1, 2 or 4 channels of one size that
  // CUDA arrays hold: 8/16/32-bit integers, 16/32-bit floats.
  void check() const;
  int channels() const { return (x > 0) + (y > 0) + (z > 0) + (w > 0); }
  size_t element_bytes() const { return static_cast<size_t>(channels()) * static_cast<size_t>(x / 8); }
};

// A CUDA array (cudaMalloc3DArray): width x height x depth elements; height
// and depth 0 for fewer dimensions (depth counts layers with kArrayLayered).
class TextureArray {
 public:
  TextureArray(const ChannelFormat& format, size_t width, size_t height, size_t depth, unsigned flags);
  ~TextureArray();
  TextureArray(const TextureArray&) = delete;
  TextureArray& operator=(const TextureArray&) = delete;

  // Copies every element between the array and `buffer`, C-contiguous
  // (depth, height, width * channels), device memory of this backend or host
  // memory, queued on `stream`.
  void copy(void* buffer, bool buffer_on_device, bool into_array, StreamHandle stream);

  const ChannelFormat& format() const { return format_; }
  size_t width() const { return width_; }
  size_t height() const { return height_; }
  size_t depth() const { return depth_; }
  unsigned flags() const { return flags_; }
  int ndim() const { return depth_ ? 3 : height_ ? 2 : 1; }
  size_t nbytes() const;       // every element, packed
  void* handle() const { return handle_; }  // CUarray, or the host memory
  int device() const { return device_; }

 private:
  ChannelFormat format_;
  size_t width_, height_, depth_;
  unsigned flags_;
  int device_;
  void* handle_ = nullptr;
};

// cudaResourceDesc: a CUDA array, or linear or pitched 2-D device memory
// (`ptr`, owned by the caller) holding elements of `format`.
struct ResourceDesc {
  int type = kResourceArray;
  std::shared_ptr<TextureArray> array;
  void* ptr = nullptr;
  ChannelFormat format;
  size_t size_in_bytes = 0;            // linear
  size_t width = 0, height = 0;        // pitch2D, in elements
  size_t pitch_in_bytes = 0;           // pitch2D
  void check() const;                  // std::invalid_argument for what CUDA rejects
};

// cudaTextureDesc (the fields kiln supports; mipmaps are not).
struct TextureDesc {
  std::array<int, 3> address_mode{kAddressWrap, kAddressWrap, kAddressWrap};
  int filter_mode = kFilterPoint;
  int read_mode = kReadElementType;
  int srgb = 0;
  std::array<float, 4> border_color{0, 0, 0, 0};
  int normalized_coords = 0;
  unsigned max_anisotropy = 0;
  void check(const ResourceDesc& res) const;
};

// cudaCreateTextureObject / cudaCreateSurfaceObject; destroyed with the object.
// Keep the resource (its array or memory) alive as long as the object.
class TextureObject {
 public:
  TextureObject(const ResourceDesc& res, const TextureDesc& desc);   // a texture
  explicit TextureObject(const ResourceDesc& res);                   // a surface (CUDA arrays only)
  ~TextureObject();
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  uint64_t handle() const { return handle_; }  // cudaTextureObject_t / cudaSurfaceObject_t
  bool is_surface() const { return surface_; }

 private:
  uint64_t handle_ = 0;
  bool surface_;
  int device_;
};

// What a backend implements (runtime/cuda/texture_objects.cpp,
// runtime/host/host_textures.cpp); the classes above check their arguments
// first and call these on the current device.
class TextureProvider {
 public:
  virtual ~TextureProvider() = default;
  virtual void* create_array(const TextureArray& array) = 0;
  virtual void destroy_array(void* handle) = 0;
  virtual void copy_array(const TextureArray& array, void* buffer, bool buffer_on_device, bool into_array,
                          StreamHandle stream) = 0;
  virtual uint64_t create_texture(const ResourceDesc& res, const TextureDesc& desc) = 0;
  virtual void destroy_texture(uint64_t handle) = 0;
  virtual uint64_t create_surface(const ResourceDesc& res) = 0;
  virtual void destroy_surface(uint64_t handle) = 0;
};

// The selected backend's (Note [Backend traits]: CUDA's objects where its
// memory is CUDA's, host emulation where it is host memory).
TextureProvider& texture_provider();
namespace cuda {
TextureProvider& cuda_texture_provider();
}
namespace host {
TextureProvider& host_texture_provider();
}

}  // namespace kiln::runtime
