// The Driver API's CUDA arrays, texture and surface objects (for
// runtime/cuda/texture_objects.cpp), declared ABI-compatibly with cuda.h as
// driver_api.h does and resolved from the same libcuda the backend loaded
// (tests/cpp/test_cuda_abi.cpp compares the layouts with the SDK's).
//
//   const TextureApi& tx = texture_api();   // throws Error naming a missing entry point
//   CuArray a = nullptr;
//   check_call(cu, tx.array3d_create(&a, &desc), "cuArray3DCreate_v2");
#pragma once

#include <cstddef>

#include "runtime/cuda/driver_api.h"

namespace kiln::runtime::cuda {

using CuArray = struct CuArrayOpaque*;   // CUarray
using CuTexObject = unsigned long long;  // CUtexObject / CUsurfObject

// CUarray_format values.
namespace cu_array_format {
inline constexpr int kUnsignedInt8 = 0x01, kUnsignedInt16 = 0x02, kUnsignedInt32 = 0x03;
inline constexpr int kSignedInt8 = 0x08, kSignedInt16 = 0x09, kSignedInt32 = 0x0a;
inline constexpr int kHalf = 0x10, kFloat = 0x20;
}  // namespace cu_array_format

// CUDA_TEXTURE_DESC flags (CU_TRSF_*).
inline constexpr unsigned kTextureReadAsInteger = 0x01;
inline constexpr unsigned kTextureNormalizedCoordinates = 0x02;
inline constexpr unsigned kTextureSrgb = 0x10;

struct CuArray3DDescriptor {   // CUDA_ARRAY3D_DESCRIPTOR_v2
  size_t width, height, depth;
  int format;                  // CUarray_format
  unsigned num_channels;
  unsigned flags;              // CUDA_ARRAY3D_LAYERED 0x01, CUDA_ARRAY3D_SURFACE_LDST 0x02
};

struct CuMemcpy3D {            // CUDA_MEMCPY3D_v2
  size_t src_x_in_bytes, src_y, src_z, src_lod;
  unsigned src_memory_type;    // CUmemorytype
  const void* src_host;
  CuDevicePtr src_device;
  CuArray src_array;
  void* reserved0;
  size_t src_pitch, src_height;
  size_t dst_x_in_bytes, dst_y, dst_z, dst_lod;
  unsigned dst_memory_type;
  void* dst_host;
  CuDevicePtr dst_device;
  CuArray dst_array;
  void* reserved1;
  size_t dst_pitch, dst_height;
  size_t width_in_bytes, height, depth;
};

struct CuResourceDesc {        // CUDA_RESOURCE_DESC_v1
  int res_type;                // CUresourcetype (= cudaResourceType)
  union {
    struct {
      CuArray array;
    } array;
    struct {
      CuDevicePtr dev_ptr;
      int format;
      unsigned num_channels;
      size_t size_in_bytes;
    } linear;
    struct {
      CuDevicePtr dev_ptr;
      int format;
      unsigned num_channels;
      size_t width, height, pitch_in_bytes;
    } pitch2d;
    int reserved[32];
  } res;
  unsigned flags;
};

struct CuTextureDesc {         // CUDA_TEXTURE_DESC_v1
  int address_mode[3];         // CUaddress_mode (= cudaAddressMode)
  int filter_mode;             // CUfilter_mode (= cudaFilterMode)
  unsigned flags;              // CU_TRSF_*
  unsigned max_anisotropy;
  int mipmap_filter_mode;
  float mipmap_level_bias, min_mipmap_level_clamp, max_mipmap_level_clamp;
  float border_color[4];
  int reserved[12];
};

struct TextureApi {
  CuResult (*array3d_create)(CuArray* array, const CuArray3DDescriptor* desc);   // cuArray3DCreate_v2
  CuResult (*array_destroy)(CuArray array);                                       // cuArrayDestroy
  CuResult (*memcpy3d_async)(const CuMemcpy3D* copy, CuStream stream);            // cuMemcpy3DAsync_v2
  CuResult (*tex_object_create)(CuTexObject* object, const CuResourceDesc* res, const CuTextureDesc* tex,
                                const void* view);                                // cuTexObjectCreate
  CuResult (*tex_object_destroy)(CuTexObject object);                             // cuTexObjectDestroy
  CuResult (*surf_object_create)(CuTexObject* object, const CuResourceDesc* res);  // cuSurfObjectCreate
  CuResult (*surf_object_destroy)(CuTexObject object);                            // cuSurfObjectDestroy
};

// Resolved once from the loaded driver; throws Error when an entry is missing.
const TextureApi& texture_api();

}  // namespace kiln::runtime::cuda
