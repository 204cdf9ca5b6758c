// kiln.cuda.texture (CuPy's cupy.cuda.texture): ChannelFormatDescriptor,
// CUDAarray, ResourceDescriptor, TextureDescriptor, TextureObject and
// SurfaceObject over runtime/texture.h, in the module kiln._core._texture;
// the cudaChannelFormatKind* ... cudaArray* values kiln.cuda.runtime offers
// are in kiln._core._texture_enums.
#include "pyfrontend/texture_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arraycore/copy.h"
#include "pyfrontend/bindings.h"
#include "runtime/stream.h"
#include "runtime/texture.h"

namespace kiln::py_bind {
namespace {

using runtime::ChannelFormat;

struct ChannelFormatDescriptor {
  ChannelFormat format;
};

struct CudaArray {
  std::shared_ptr<runtime::TextureArray> array;
  py::object desc;
};

struct ResourceDescriptor {
  runtime::ResourceDesc res;
  py::object cu_arr, arr, ch_desc;
};

struct TextureDescriptor {
  runtime::TextureDesc desc;
};

struct TextureObject {
  std::unique_ptr<runtime::TextureObject> object;
  py::object res_desc, tex_desc;
};
struct SurfaceObject : TextureObject {};   // its own Python type

PyTypeObject* g_texture_type = nullptr;
PyTypeObject* g_surface_type = nullptr;

py::dict channel_dict(const ChannelFormat& f) {
  py::dict d;
  d["x"] = f.x, d["y"] = f.y, d["z"] = f.z, d["w"] = f.w, d["f"] = f.kind;
  return d;
}

// The shape CuPy's CUDAarray copies take: ([depth,] [height,] channels * width).
std::vector<int64_t> copy_shape(const runtime::TextureArray& a) {
  std::vector<int64_t> shape;
  if (a.depth()) shape.push_back(static_cast<int64_t>(a.depth()));
  if (a.height()) shape.push_back(static_cast<int64_t>(a.height()));
  shape.push_back(static_cast<int64_t>(a.width()) * a.format().channels());
  return shape;
}

// The kind and bits of a dtype's elements against the array's channels ("dtype mismatch", as CuPy).
void check_copy(const runtime::TextureArray& a, py::handle dtype, const std::vector<int64_t>& shape) {
  if (shape != copy_shape(a)) throw std::invalid_argument("shape mismatch");
  const char kind = dtype.attr("kind").cast<std::string>()[0];
  const int bits = dtype.attr("itemsize").cast<int>() * 8;
  const int want = a.format().kind;
  const bool ok = dtype.attr("isnative").cast<bool>() && bits == a.format().x &&
                  ((kind == 'i' && want == runtime::kChannelSigned) || (kind == 'u' && want == runtime::kChannelUnsigned) ||
                   (kind == 'f' && want == runtime::kChannelFloat));
  if (!ok) throw std::invalid_argument("dtype mismatch");
}

// Copies between a CUDAarray and a kiln or NumPy array, C-contiguous (copy_from makes it so).
void copy_array(CudaArray& self, py::handle other, py::handle stream_obj, bool into_array) {
  runtime::StreamHandle stream = to_stream(stream_obj);
  if (const arraycore::NDArray* a = ndarray_of(other.ptr())) {
    arraycore::NDArray src = *a;
    if (!a->c_contiguous()) {
      if (!into_array) throw std::invalid_argument("The output array must be C-contiguous");
      runtime::StreamHandle previous = runtime::current_stream();   // the copy is ordered on `stream`
      runtime::set_current_stream(stream);
      try {
        src = arraycore::astype(*a, a->dtype(), arraycore::Order::C);
      } catch (...) {
        runtime::set_current_stream(previous);
        throw;
      }
      runtime::set_current_stream(previous);
    }
    check_copy(*self.array, to_numpy_dtype(src.dtype()), src.shape());
    self.array->copy(src.data(), true, into_array, stream);
    return;
  }
  py::module_ np = py::module_::import("numpy");
  if (!py::isinstance(other, np.attr("ndarray")))
    throw py::type_error("CUDAarray copies take a kiln.ndarray or a numpy.ndarray, not '" + type_name(other) + "'");
  py::array host = py::reinterpret_borrow<py::array>(other);
  if (into_array) {
    host = np.attr("ascontiguousarray")(other);
  } else if (!(host.flags() & py::array::c_style)) {
    throw std::invalid_argument("The output array must be C-contiguous");
  } else if (!host.writeable()) {
    throw std::invalid_argument("The output array is read-only");
  }
  std::vector<int64_t> shape(host.shape(), host.shape() + host.ndim());
  check_copy(*self.array, host.dtype(), shape);
  ReleaseGil nogil;
  self.array->copy(const_cast<void*>(host.data()), false, into_array, stream);
  if (!into_array) runtime::backend().synchronize_stream(stream);   // host memory is read when the call returns
}

}  // namespace

std::optional<uint64_t> texture_handle_of(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  if (g_texture_type == nullptr || (t != g_texture_type && t != g_surface_type)) return std::nullopt;
  if (t == g_surface_type) return py::handle(obj).cast<const SurfaceObject&>().object->handle();
  return py::handle(obj).cast<const TextureObject&>().object->handle();
}

void register_texture(py::module_& m) {
  py::module_ enums = m.def_submodule("_texture_enums", "CUDA's texture enumerations (kiln.cuda.runtime)");
  const std::pair<const char*, int> values[] = {
      {"cudaChannelFormatKindSigned", runtime::kChannelSigned},
      {"cudaChannelFormatKindUnsigned", runtime::kChannelUnsigned},
      {"cudaChannelFormatKindFloat", runtime::kChannelFloat},
      {"cudaChannelFormatKindNone", runtime::kChannelNone},
      {"cudaAddressModeWrap", runtime::kAddressWrap},
      {"cudaAddressModeClamp", runtime::kAddressClamp},
      {"cudaAddressModeMirror", runtime::kAddressMirror},
      {"cudaAddressModeBorder", runtime::kAddressBorder},
      {"cudaFilterModePoint", runtime::kFilterPoint},
      {"cudaFilterModeLinear", runtime::kFilterLinear},
      {"cudaReadModeElementType", runtime::kReadElementType},
      {"cudaReadModeNormalizedFloat", runtime::kReadNormalizedFloat},
      {"cudaResourceTypeArray", runtime::kResourceArray},
      {"cudaResourceTypeMipmappedArray", runtime::kResourceMipmappedArray},
      {"cudaResourceTypeLinear", runtime::kResourceLinear},
      {"cudaResourceTypePitch2D", runtime::kResourcePitch2D},
      {"cudaArrayDefault", static_cast<int>(runtime::kArrayDefault)},
      {"cudaArrayLayered", static_cast<int>(runtime::kArrayLayered)},
      {"cudaArraySurfaceLoadStore", static_cast<int>(runtime::kArraySurfaceLoadStore)},
      {"cudaArrayCubemap", static_cast<int>(runtime::kArrayCubemap)},
      {"cudaArrayTextureGather", static_cast<int>(runtime::kArrayTextureGather)},
      {"cudaBoundaryModeZero", 0},
      {"cudaBoundaryModeClamp", 1},
      {"cudaBoundaryModeTrap", 2},
  };
  for (const auto& [name, value] : values) enums.attr(name) = value;

  py::module_ t = m.def_submodule("_texture", "kiln.cuda.texture's classes");
  py::class_<ChannelFormatDescriptor>(t, "ChannelFormatDescriptor",
                                      "cudaChannelFormatDesc: bits of the x, y, z, w channels and their kind f "
                                      "(cudaChannelFormatKind*).")
      .def(py::init([](int x, int y, int z, int w, int f) { return ChannelFormatDescriptor{{x, y, z, w, f}}; }),
           py::arg("x"), py::arg("y"), py::arg("z"), py::arg("w"), py::arg("f"))
      .def("get_channel_format", [](const ChannelFormatDescriptor& d) { return channel_dict(d.format); },
           "The descriptor as a dict with keys 'x', 'y', 'z', 'w' and 'f'.");

  py::class_<CudaArray>(t, "CUDAarray",
                        "A CUDA array (cudaMalloc3DArray) of desc's elements: width, or width x height, or "
                        "width x height x depth (layers with cudaArrayLayered).")
      .def(py::init([](py::object desc, size_t width, size_t height, size_t depth, unsigned flags) {
             const ChannelFormat& f = desc.cast<const ChannelFormatDescriptor&>().format;
             return CudaArray{std::make_shared<runtime::TextureArray>(f, width, height, depth, flags), desc};
           }),
           py::arg("desc"), py::arg("width"), py::arg("height") = 0, py::arg("depth") = 0, py::arg("flags") = 0)
      .def_readonly("desc", &CudaArray::desc)
      .def_property_readonly("width", [](const CudaArray& a) { return a.array->width(); })
      .def_property_readonly("height", [](const CudaArray& a) { return a.array->height(); })
      .def_property_readonly("depth", [](const CudaArray& a) { return a.array->depth(); })
      .def_property_readonly("flags", [](const CudaArray& a) { return a.array->flags(); })
      .def_property_readonly("ndim", [](const CudaArray& a) { return a.array->ndim(); })
      .def_property_readonly("ptr", [](const CudaArray& a) { return reinterpret_cast<uintptr_t>(a.array->handle()); })
      .def(
          "copy_from", [](CudaArray& a, py::handle arr, py::handle stream) { copy_array(a, arr, stream, true); },
          py::arg("in_arr"), py::arg("stream") = py::none(),
          "Copy a kiln or NumPy array of shape ([depth,] [height,] channels * width) into the CUDA array.")
      .def(
          "copy_to", [](CudaArray& a, py::handle arr, py::handle stream) { copy_array(a, arr, stream, false); },
          py::arg("out_arr"), py::arg("stream") = py::none(),
          "Copy the CUDA array into a C-contiguous kiln or NumPy array of shape ([depth,] [height,] channels * width).");

  py::class_<ResourceDescriptor>(t, "ResourceDescriptor",
                                 "cudaResourceDesc: a CUDAarray (cudaResourceTypeArray) or a kiln array's memory "
                                 "(cudaResourceTypeLinear, cudaResourceTypePitch2D) with elements of chDesc.")
      .def(py::init([](int restype, py::object cu_arr, py::object arr, py::object ch_desc, size_t size_in_bytes,
                       size_t width, size_t height, size_t pitch_in_bytes) {
             if (restype == runtime::kResourceMipmappedArray) {
               PyErr_SetString(PyExc_NotImplementedError, "cudaResourceTypeMipmappedArray is currently not supported.");
               throw py::error_already_set();
             }
             ResourceDescriptor r{{}, cu_arr, arr, ch_desc};
             r.res.type = restype;
             if (!cu_arr.is_none()) r.res.array = cu_arr.cast<const CudaArray&>().array;
             if (!arr.is_none()) {
               const arraycore::NDArray* a = ndarray_of(arr.ptr());
               if (!a) throw py::type_error("ResourceDescriptor: arr must be a kiln.ndarray, not '" + type_name(arr) + "'");
               r.res.ptr = a->data();
             }
             if (!ch_desc.is_none()) r.res.format = ch_desc.cast<const ChannelFormatDescriptor&>().format;
             r.res.size_in_bytes = size_in_bytes;
             r.res.width = width;
             r.res.height = height;
             r.res.pitch_in_bytes = pitch_in_bytes;
             r.res.check();
             return r;
           }),
           py::arg("restype"), py::arg("cuArr") = py::none(), py::arg("arr") = py::none(),
           py::arg("chDesc") = py::none(), py::arg("sizeInBytes") = 0, py::arg("width") = 0, py::arg("height") = 0,
           py::arg("pitchInBytes") = 0)
      .def_readonly("cuArr", &ResourceDescriptor::cu_arr)
      .def_readonly("arr", &ResourceDescriptor::arr)
      .def_readonly("chDesc", &ResourceDescriptor::ch_desc)
      .def("get_resource_desc", [](const ResourceDescriptor& r) {
        py::dict d;
        d["resType"] = r.res.type;
        auto ptr = reinterpret_cast<uintptr_t>(r.res.ptr);
        if (r.res.type == runtime::kResourceArray) {
          d["array"] = py::dict(py::arg("array") = reinterpret_cast<uintptr_t>(r.res.array->handle()));
        } else if (r.res.type == runtime::kResourceLinear) {
          d["linear"] = py::dict(py::arg("devPtr") = ptr, py::arg("desc") = channel_dict(r.res.format),
                                 py::arg("sizeInBytes") = r.res.size_in_bytes);
        } else {
          d["pitch2D"] = py::dict(py::arg("devPtr") = ptr, py::arg("desc") = channel_dict(r.res.format),
                                  py::arg("width") = r.res.width, py::arg("height") = r.res.height,
                                  py::arg("pitchInBytes") = r.res.pitch_in_bytes);
        }
        return d;
      });

  py::class_<TextureDescriptor>(t, "TextureDescriptor",
                                "cudaTextureDesc: up to 3 address modes (cudaAddressMode*), the filter mode, the "
                                "read mode, sRGB, up to 4 border colours, normalized coordinates, max anisotropy.")
      .def(py::init([](py::object modes, int filter, int read, py::object srgb, py::object border, py::object normalized,
                       py::object anisotropy) {
             TextureDescriptor t;
             t.desc.filter_mode = filter;
             t.desc.read_mode = read;
             if (!modes.is_none()) {
               auto v = modes.cast<std::vector<int>>();
               if (v.size() > 3) throw std::invalid_argument("TextureDescriptor: at most 3 address modes");
               for (size_t i = 0; i < v.size(); ++i) t.desc.address_mode[i] = v[i];
             }
             if (!border.is_none()) {
               auto v = border.cast<std::vector<float>>();
               if (v.size() > 4) throw std::invalid_argument("TextureDescriptor: at most 4 border colours");
               for (size_t i = 0; i < v.size(); ++i) t.desc.border_color[i] = v[i];
             }
             if (!srgb.is_none()) t.desc.srgb = srgb.cast<int>();
             if (!normalized.is_none()) t.desc.normalized_coords = normalized.cast<int>();
             if (!anisotropy.is_none()) t.desc.max_anisotropy = anisotropy.cast<unsigned>();
             return t;
           }),
           py::arg("addressModes") = py::none(), py::arg("filterMode") = 0, py::arg("readMode") = 0,
           py::arg("sRGB") = py::none(), py::arg("borderColors") = py::none(), py::arg("normalizedCoords") = py::none(),
           py::arg("maxAnisotropy") = py::none())
      .def("get_texture_desc", [](const TextureDescriptor& t) {
        const runtime::TextureDesc& d = t.desc;
        py::dict r;
        r["addressMode"] = py::make_tuple(d.address_mode[0], d.address_mode[1], d.address_mode[2]);
        r["filterMode"] = d.filter_mode, r["readMode"] = d.read_mode, r["sRGB"] = d.srgb;
        r["borderColor"] = py::make_tuple(d.border_color[0], d.border_color[1], d.border_color[2], d.border_color[3]);
        r["normalizedCoords"] = d.normalized_coords, r["maxAnisotropy"] = d.max_anisotropy;
        return r;
      });

  auto texture = py::class_<TextureObject>(t, "TextureObject",
                                           "A texture object (cudaCreateTextureObject): pass it to a RawKernel's "
                                           "cudaTextureObject_t parameter or an ElementwiseKernel's.")
                     .def(py::init([](py::object res, py::object tex) {
                            const auto& r = res.cast<const ResourceDescriptor&>();
                            const auto& d = tex.cast<const TextureDescriptor&>();
                            return TextureObject{std::make_unique<runtime::TextureObject>(r.res, d.desc), res, tex};
                          }),
                          py::arg("ResDesc"), py::arg("TexDesc"))
                     .def_readonly("ResDesc", &TextureObject::res_desc)
                     .def_readonly("TexDesc", &TextureObject::tex_desc)
                     .def_property_readonly("ptr", [](const TextureObject& o) { return o.object->handle(); });
  auto surface = py::class_<SurfaceObject>(t, "SurfaceObject",
                                           "A surface object (cudaCreateSurfaceObject) of a CUDAarray made with "
                                           "cudaArraySurfaceLoadStore: pass it to a cudaSurfaceObject_t parameter.")
                     .def(py::init([](py::object res) {
                            const auto& r = res.cast<const ResourceDescriptor&>();
                            SurfaceObject s;
                            s.object = std::make_unique<runtime::TextureObject>(r.res);
                            s.res_desc = res;
                            return s;
                          }),
                          py::arg("ResDesc"))
                     .def_readonly("ResDesc", &SurfaceObject::res_desc)
                     .def_property_readonly("ptr", [](const SurfaceObject& o) { return o.object->handle(); });
  // Importable by name (`from kiln._core._texture import ...`), as pybind11 does not register submodules.
  py::dict modules = py::module_::import("sys").attr("modules");
  modules[py::str(t.attr("__name__"))] = t;
  modules[py::str(enums.attr("__name__"))] = enums;
  g_texture_type = reinterpret_cast<PyTypeObject*>(texture.ptr());
  g_surface_type = reinterpret_cast<PyTypeObject*>(surface.ptr());
}

}  // namespace kiln::py_bind
