// CUDA arrays, texture and surface objects of the cuda backend
// (runtime/texture.h) through the Driver API: cuArray3DCreate,
// cuMemcpy3DAsync, cuTexObjectCreate, cuSurfObjectCreate, as the runtime
// API's cudaMalloc3DArray / cudaMemcpy3DAsync / cudaCreateTextureObject /
// cudaCreateSurfaceObject do with the same descriptions.
#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include "runtime/cuda/driver_calls.h"
#include "runtime/cuda/library_search.h"
#include "runtime/cuda/texture_api.h"
#include "runtime/texture.h"

namespace kiln::runtime::cuda {
namespace {

const DriverApi& driver(const char* what) { return driver_for(std::string("kiln.cuda.texture.") + what); }

// The CUarray_format of a checked channel format.
int array_format(const ChannelFormat& f) {
  namespace af = cu_array_format;
  if (f.kind == kChannelFloat) return f.x == 16 ? af::kHalf : af::kFloat;
  const bool s = f.kind == kChannelSigned;
  if (f.x == 8) return s ? af::kSignedInt8 : af::kUnsignedInt8;
  if (f.x == 16) return s ? af::kSignedInt16 : af::kUnsignedInt16;
  return s ? af::kSignedInt32 : af::kUnsignedInt32;
}

CuResourceDesc resource(const ResourceDesc& res) {
  CuResourceDesc d;
  std::memset(&d, 0, sizeof d);
  d.res_type = res.type;
  if (res.type == kResourceArray) {
    d.res.array.array = static_cast<CuArray>(res.array->handle());
  } else if (res.type == kResourceLinear) {
    d.res.linear.dev_ptr = reinterpret_cast<CuDevicePtr>(res.ptr);
    d.res.linear.format = array_format(res.format);
    d.res.linear.num_channels = static_cast<unsigned>(res.format.channels());
    d.res.linear.size_in_bytes = res.size_in_bytes;
  } else {
    d.res.pitch2d.dev_ptr = reinterpret_cast<CuDevicePtr>(res.ptr);
    d.res.pitch2d.format = array_format(res.format);
    d.res.pitch2d.num_channels = static_cast<unsigned>(res.format.channels());
    d.res.pitch2d.width = res.width;
    d.res.pitch2d.height = res.height;
    d.res.pitch2d.pitch_in_bytes = res.pitch_in_bytes;
  }
  return d;
}

class CudaTextures final : public TextureProvider {
 public:
  void* create_array(const TextureArray& a) override {
    const DriverApi& cu = driver("CUDAarray");
    CuArray3DDescriptor desc{a.width(), a.height(), a.depth(), array_format(a.format()),
                             static_cast<unsigned>(a.format().channels()), a.flags()};
    CuArray array = nullptr;
    check_call(cu, texture_api().array3d_create(&array, &desc), "cuArray3DCreate_v2");
    return array;
  }
  void destroy_array(void* handle) override {
    const DriverApi& cu = driver("CUDAarray");
    check_call(cu, texture_api().array_destroy(static_cast<CuArray>(handle)), "cuArrayDestroy");
  }
  void copy_array(const TextureArray& a, void* buffer, bool buffer_on_device, bool into_array,
                  StreamHandle stream) override {
    const DriverApi& cu = driver(into_array ? "CUDAarray.copy_from" : "CUDAarray.copy_to");
    CuMemcpy3D c;
    std::memset(&c, 0, sizeof c);
    // The extent counts at least one row and one slice, whatever the array's dimensions.
    c.width_in_bytes = a.width() * a.format().element_bytes();
    c.height = a.height() ? a.height() : 1;
    c.depth = a.depth() ? a.depth() : 1;
    const unsigned memory_type = buffer_on_device ? cu_memory_type::kDevice : cu_memory_type::kHost;
    if (into_array) {
      c.src_memory_type = memory_type;
      c.src_host = buffer;
      c.src_device = reinterpret_cast<CuDevicePtr>(buffer);
      c.src_pitch = c.width_in_bytes;
      c.src_height = c.height;
      c.dst_memory_type = cu_memory_type::kArray;
      c.dst_array = static_cast<CuArray>(a.handle());
    } else {
      c.src_memory_type = cu_memory_type::kArray;
      c.src_array = static_cast<CuArray>(a.handle());
      c.dst_memory_type = memory_type;
      c.dst_host = buffer;
      c.dst_device = reinterpret_cast<CuDevicePtr>(buffer);
      c.dst_pitch = c.width_in_bytes;
      c.dst_height = c.height;
    }
    check_call(cu, texture_api().memcpy3d_async(&c, static_cast<CuStream>(stream)), "cuMemcpy3DAsync_v2");
  }
  uint64_t create_texture(const ResourceDesc& res, const TextureDesc& desc) override {
    const DriverApi& cu = driver("TextureObject");
    CuResourceDesc r = resource(res);
    CuTextureDesc t;
    std::memset(&t, 0, sizeof t);
    for (int d = 0; d < 3; ++d) t.address_mode[d] = desc.address_mode[d];
    t.filter_mode = desc.filter_mode;
    // As cudaCreateTextureObject: integers are promoted to [0, 1] floats
    // unless read as the element type.
    const ChannelFormat& f = res.type == kResourceArray ? res.array->format() : res.format;
    if (desc.read_mode == kReadElementType && f.kind != kChannelFloat) t.flags |= kTextureReadAsInteger;
    if (desc.normalized_coords) t.flags |= kTextureNormalizedCoordinates;
    if (desc.srgb) t.flags |= kTextureSrgb;
    t.max_anisotropy = desc.max_anisotropy;
    for (int c = 0; c < 4; ++c) t.border_color[c] = desc.border_color[c];
    CuTexObject object = 0;
    check_call(cu, texture_api().tex_object_create(&object, &r, &t, nullptr), "cuTexObjectCreate");
    return object;
  }
  void destroy_texture(uint64_t handle) override {
    const DriverApi& cu = driver("TextureObject");
    check_call(cu, texture_api().tex_object_destroy(handle), "cuTexObjectDestroy");
  }
  uint64_t create_surface(const ResourceDesc& res) override {
    const DriverApi& cu = driver("SurfaceObject");
    CuResourceDesc r = resource(res);
    CuTexObject object = 0;
    check_call(cu, texture_api().surf_object_create(&object, &r), "cuSurfObjectCreate");
    return object;
  }
  void destroy_surface(uint64_t handle) override {
    const DriverApi& cu = driver("SurfaceObject");
    check_call(cu, texture_api().surf_object_destroy(handle), "cuSurfObjectDestroy");
  }
};

}  // namespace

const TextureApi& texture_api() {
  static TextureApi api{};
  static std::string missing;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    const DriverApi* cu = load_driver_api(&why);
    void* lib = cu ? dlopen(cu->library_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) : nullptr;
    if (!lib) {
      missing = cu ? "the loaded CUDA driver" : why;
      return;
    }
    resolve_symbol(lib, "cuArray3DCreate_v2", api.array3d_create, &missing);
    resolve_symbol(lib, "cuArrayDestroy", api.array_destroy, &missing);
    resolve_symbol(lib, "cuMemcpy3DAsync_v2", api.memcpy3d_async, &missing);
    resolve_symbol(lib, "cuTexObjectCreate", api.tex_object_create, &missing);
    resolve_symbol(lib, "cuTexObjectDestroy", api.tex_object_destroy, &missing);
    resolve_symbol(lib, "cuSurfObjectCreate", api.surf_object_create, &missing);
    resolve_symbol(lib, "cuSurfObjectDestroy", api.surf_object_destroy, &missing);
  });
  if (!missing.empty()) throw Error("kiln.cuda.texture: the CUDA driver has no " + missing);
  return api;
}

TextureProvider& cuda_texture_provider() {
  static CudaTextures* provider = new CudaTextures;   // leaked: objects may be destroyed at exit
  return *provider;
}

}  // namespace kiln::runtime::cuda
