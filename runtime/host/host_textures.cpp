// Texture and surface objects of the host backend (runtime/texture.h): a
// CUDA array is host memory holding its elements row-major without padding;
// a texture or surface object is a kiln_host::TextureData (kiln/host_abi.h)
// whose address is the handle kernels receive, read by the fetches of
// kiln/host_texture.h (Note [Host texture fetches] there).
#include <cstring>
#include <memory>

#include "kiln/host_abi.h"
#include "runtime/texture.h"

namespace kiln::runtime::host {
namespace {

kiln_host::TextureData describe(const ResourceDesc& res) {
  kiln_host::TextureData t{};
  const ChannelFormat& f = res.type == kResourceArray ? res.array->format() : res.format;
  t.channels = f.channels();
  t.channel_bits = f.x;
  t.channel_kind = f.kind;
  const size_t elem = f.element_bytes();
  t.extent[0] = t.extent[1] = t.extent[2] = 1;
  if (res.type == kResourceArray) {
    const TextureArray& a = *res.array;
    t.data = static_cast<unsigned char*>(a.handle());
    const bool layered = a.flags() & kArrayLayered;
    const size_t sizes[3] = {a.width(), a.height(), a.depth()};
    int n = 0;   // axes with an extent: width, then height, then depth (the layers of a layered array)
    for (size_t s : sizes)
      if (s) t.extent[n++] = s;
    t.layered = layered;
    t.dims = layered ? n - 1 : n;
    t.pitch[0] = a.width() * elem;
    t.pitch[1] = t.pitch[0] * (a.height() ? a.height() : 1);   // a 1-D layered array: layers pitch[0] apart
  } else if (res.type == kResourceLinear) {
    t.data = static_cast<unsigned char*>(res.ptr);
    t.extent[0] = res.size_in_bytes / elem;
    t.dims = 1;
    t.linear = 1;
    t.pitch[0] = res.size_in_bytes;
  } else {
    t.data = static_cast<unsigned char*>(res.ptr);
    t.extent[0] = res.width;
    t.extent[1] = res.height;
    t.dims = 2;
    t.pitch[0] = res.pitch_in_bytes;
    t.pitch[1] = res.pitch_in_bytes * res.height;
  }
  return t;
}

class HostTextures final : public TextureProvider {
 public:
  void* create_array(const TextureArray& array) override {
    void* p = backend().allocate(array.nbytes());
    std::memset(p, 0, array.nbytes());
    return p;
  }
  void destroy_array(void* handle) override { backend().deallocate(handle); }
  void copy_array(const TextureArray& array, void* buffer, bool buffer_on_device, bool into_array,
                  StreamHandle stream) override {
    // Both sides are host memory; the kinds keep the backend's ordering rules.
    void* a = array.handle();
    const CopyKind kind = buffer_on_device ? CopyKind::DeviceToDevice
                          : into_array     ? CopyKind::HostToDevice
                                           : CopyKind::DeviceToHost;
    if (into_array) backend().copy_async(a, buffer, array.nbytes(), kind, stream);
    else backend().copy_async(buffer, a, array.nbytes(), kind, stream);
  }
  uint64_t create_texture(const ResourceDesc& res, const TextureDesc& desc) override {
    auto t = std::make_unique<kiln_host::TextureData>(describe(res));
    for (int d = 0; d < 3; ++d) t->address_mode[d] = desc.address_mode[d];
    t->filter_mode = desc.filter_mode;
    t->read_mode = desc.read_mode;
    t->normalized_coords = desc.normalized_coords != 0;
    for (int c = 0; c < 4; ++c) t->border_color[c] = desc.border_color[c];
    return reinterpret_cast<uint64_t>(t.release());
  }
  void destroy_texture(uint64_t handle) override { delete reinterpret_cast<kiln_host::TextureData*>(handle); }
  uint64_t create_surface(const ResourceDesc& res) override {
    return reinterpret_cast<uint64_t>(new kiln_host::TextureData(describe(res)));
  }
  void destroy_surface(uint64_t handle) override { destroy_texture(handle); }
};

}  // namespace

TextureProvider& host_texture_provider() {
  static HostTextures* provider = new HostTextures;   // leaked: objects may be destroyed at exit
  return *provider;
}

}  // namespace kiln::runtime::host
