// DLPack 1.x: the C ABI for sharing arrays between libraries, and the
// conversions between it and NDArray. No Python here: the capsules and the
// __dlpack__ protocol live in pyfrontend/dlpack_binding.cpp.
//
//   DLManagedTensorVersioned* t = export_versioned(a, {kDLCUDA, 0}, 0);
//   ... hand t to a consumer, which calls t->deleter(t) when done ...
//   NDArray b = import_versioned(t, 0);   // b views t's memory; the deleter
//                                         // runs when b's last view goes
//
// The structs below are written from the DLPack specification
// (https://dmlc.github.io/dlpack/latest/c_api.html); their layout is the ABI
// and must not change.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "arraycore/ndarray.h"

namespace kiln::arraycore::dlpack {

extern "C" {

enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
};

struct DLDevice {
  int32_t device_type;  // a DLDeviceType
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDataType {
  uint8_t code;    // a DLDataTypeCode
  uint8_t bits;    // of one lane
  uint16_t lanes;  // 1 for scalars (the only kind kiln exchanges)
};

struct DLTensor {
  void* data;  // data + byte_offset is element 0
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means C-contiguous
  uint64_t byte_offset;
};

// The legacy (pre-1.0, unversioned) managed tensor: capsule name "dltensor".
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

// The 1.x managed tensor: capsule name "dltensor_versioned". Everything up
// to `flags` keeps its layout across major versions, so a consumer can read
// the version and call the deleter of any of them.
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

}  // extern "C"

inline constexpr uint32_t kMajorVersion = 1;
inline constexpr uint32_t kMinorVersion = 1;
inline constexpr uint64_t kFlagReadOnly = 1ULL << 0;
inline constexpr uint64_t kFlagIsCopied = 1ULL << 1;

// What cannot be exchanged (a dtype, lanes, strides that are not whole
// elements, an unknown major version); the front end raises BufferError.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

DLDataType to_dl_dtype(DType dtype);
std::optional<DType> from_dl_dtype(DLDataType dtype);

// A managed tensor viewing a's elements and holding a reference to its
// memory, which its deleter drops. Throws Error when a's byte strides are not
// whole elements.
DLManagedTensorVersioned* export_versioned(const NDArray& a, DLDevice device, uint64_t flags);
DLManagedTensor* export_legacy(const NDArray& a, DLDevice device);

// Whether a managed tensor came from export_* (its deleter is kiln's).
bool is_kiln_export(const DLManagedTensorVersioned* t);
bool is_kiln_export(const DLManagedTensor* t);

// An NDArray viewing the tensor's elements. On success the NDArray owns t:
// t->deleter(t) runs when the last array sharing the memory goes. Throws
// Error, leaving t to the caller, when the tensor cannot be viewed (dtype,
// lanes, major version). `device` is the kiln device the memory belongs to.
NDArray import_versioned(DLManagedTensorVersioned* t, int device);
NDArray import_legacy(DLManagedTensor* t, int device);

}  // namespace kiln::arraycore::dlpack
