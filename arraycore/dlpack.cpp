// DLPack export and import (see dlpack.h).
#include "arraycore/dlpack.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::arraycore::dlpack {
namespace {

// What an exported managed tensor owns: a reference to the memory, and the
// shape and element strides its DLTensor points into.
struct ExportContext {
  std::shared_ptr<Memory> memory;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

// Note [DLPack deleters]
// A kiln export's deleter frees the context (dropping the memory reference:
// the pool takes the block back once no array uses it either) and the
// managed tensor itself. It may run on any thread, with or without the GIL:
// it touches no Python object (memory a Python allocator owns is released
// through keep_alive, which takes the GIL itself).
template <class Managed>
void delete_export(Managed* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

template <class Managed>
Managed* make_export(const NDArray& a, DLDevice device) {
  auto ctx = std::make_unique<ExportContext>();
  ctx->memory = a.memory();
  ctx->shape.assign(a.shape().begin(), a.shape().end());
  const auto item = static_cast<int64_t>(a.itemsize());
  for (size_t d = 0; d < a.shape().size(); ++d) {
    int64_t s = a.strides()[d];
    // A stride on an axis of length <= 1 is never followed: any value will do.
    if (s % item != 0 && a.shape()[d] <= 1) s = 0;
    if (s % item != 0)
      throw Error("DLPack strides count elements: the byte stride " + std::to_string(a.strides()[d]) +
                  " of axis " + std::to_string(d) + " is not a multiple of the itemsize " +
                  std::to_string(item) + " (export a copy)");
    ctx->strides.push_back(s / item);
  }
  auto managed = std::make_unique<Managed>();
  DLTensor& t = managed->dl_tensor;
  t.data = a.data();
  t.device = device;
  t.ndim = a.ndim();
  t.dtype = to_dl_dtype(a.dtype());
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
  t.byte_offset = 0;
  managed->manager_ctx = ctx.release();
  managed->deleter = &delete_export<Managed>;
  return managed.release();
}

// The NDArray viewing t's elements; `release` runs when its memory goes.
NDArray view_of(const DLTensor& t, int device, Memory::Release release) {
  if (t.dtype.lanes != 1)
    throw Error("kiln arrays hold one value per element: DLPack lanes=" + std::to_string(t.dtype.lanes));
  std::optional<DType> dtype = from_dl_dtype(t.dtype);
  if (!dtype)
    throw Error("DLPack dtype (code " + std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) +
                " bits) has no kiln dtype");
  if (t.ndim < 0) throw Error("DLPack tensor with negative ndim");
  const auto item = static_cast<int64_t>(itemsize(*dtype));
  Shape shape(t.shape, t.shape + t.ndim);
  Strides strides(shape.size());
  if (t.strides == nullptr) {
    strides = contiguous_strides(shape, static_cast<size_t>(item), Order::C);
  } else {
    for (size_t d = 0; d < shape.size(); ++d) strides[d] = t.strides[d] * item;
  }
  checked_nbytes(shape, static_cast<size_t>(item));   // Note [Array size limit], before the extent
  if (t.data == nullptr && shape_size(shape) != 0)
    throw Error("DLPack tensor of shape " + shape_repr(shape) + " has a null data pointer");
  auto [low, high] = byte_extent(shape, strides, static_cast<size_t>(item));
  char* first = static_cast<char*>(t.data) + t.byte_offset;
  // The memory starts at the lowest byte the view reaches, so kiln's bounds
  // checks (views, as_strided) see exactly the exported extent.
  auto memory = std::make_shared<Memory>(first + low, static_cast<size_t>(high - low), device, std::move(release));
  return NDArray(std::move(memory), *dtype, std::move(shape), std::move(strides), -low);
}

}  // namespace

DLDataType to_dl_dtype(DType dtype) {
  const DTypeInfo& info = dtype_info(dtype);
  uint8_t code = dtype == DType::BFloat16 ? kDLBfloat : kDLFloat;
  switch (info.kind) {
    case 'b': code = kDLBool; break;
    case 'i': code = kDLInt; break;
    case 'u': code = kDLUInt; break;
    case 'c': code = kDLComplex; break;
    default: break;
  }
  return DLDataType{code, static_cast<uint8_t>(info.itemsize * 8), 1};
}

std::optional<DType> from_dl_dtype(DLDataType dtype) {
  if (dtype.lanes != 1) return std::nullopt;
  switch (dtype.code) {
    case kDLBool:
      if (dtype.bits == 8) return DType::Bool;
      return std::nullopt;
    case kDLInt:
      switch (dtype.bits) {
        case 8: return DType::Int8;
        case 16: return DType::Int16;
        case 32: return DType::Int32;
        case 64: return DType::Int64;
        default: return std::nullopt;
      }
    case kDLUInt:
      switch (dtype.bits) {
        case 8: return DType::UInt8;
        case 16: return DType::UInt16;
        case 32: return DType::UInt32;
        case 64: return DType::UInt64;
        default: return std::nullopt;
      }
    case kDLFloat:
      switch (dtype.bits) {
        case 16: return DType::Float16;
        case 32: return DType::Float32;
        case 64: return DType::Float64;
        default: return std::nullopt;
      }
    case kDLBfloat:
      if (dtype.bits == 16) return DType::BFloat16;
      return std::nullopt;
    case kDLComplex:
      switch (dtype.bits) {
        case 64: return DType::Complex64;
        case 128: return DType::Complex128;
        default: return std::nullopt;
      }
    default:
      return std::nullopt;
  }
}

DLManagedTensorVersioned* export_versioned(const NDArray& a, DLDevice device, uint64_t flags) {
  DLManagedTensorVersioned* t = make_export<DLManagedTensorVersioned>(a, device);
  t->version = DLPackVersion{kMajorVersion, kMinorVersion};
  t->flags = flags;
  return t;
}

DLManagedTensor* export_legacy(const NDArray& a, DLDevice device) {
  return make_export<DLManagedTensor>(a, device);
}

bool is_kiln_export(const DLManagedTensorVersioned* t) {
  return t->deleter == &delete_export<DLManagedTensorVersioned>;
}

bool is_kiln_export(const DLManagedTensor* t) { return t->deleter == &delete_export<DLManagedTensor>; }

NDArray import_versioned(DLManagedTensorVersioned* t, int device) {
  if (t->version.major != kMajorVersion)
    throw Error("DLPack major version " + std::to_string(t->version.major) + " is not supported (kiln reads " +
                std::to_string(kMajorVersion) + ".x)");
  return view_of(t->dl_tensor, device, [t](void*) {
    if (t->deleter) t->deleter(t);
  });
}

NDArray import_legacy(DLManagedTensor* t, int device) {
  return view_of(t->dl_tensor, device, [t](void*) {
    if (t->deleter) t->deleter(t);
  });
}

}  // namespace kiln::arraycore::dlpack
