// arraycore/dlpack: the dtype table, export/import of views, and who calls
// the deleter when (no backend: host memory with a counting release).
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "arraycore/dlpack.h"

namespace kiln::arraycore::dlpack {
namespace {

// Host memory whose release counts into *released.
std::shared_ptr<Memory> counted_memory(size_t nbytes, int* released) {
  auto* p = new char[nbytes ? nbytes : 1];
  return std::make_shared<Memory>(p, nbytes, 0, [released](void* q) {
    delete[] static_cast<char*>(q);
    ++*released;
  });
}

TEST(DLPackABI, StructLayoutsAreTheSpecifications) {
  // Offsets and sizes of the exchange structs (x86_64 / aarch64 LP64).
  EXPECT_EQ(sizeof(DLDevice), 8u);
  EXPECT_EQ(sizeof(DLDataType), 4u);
  EXPECT_EQ(offsetof(DLTensor, device), 8u);
  EXPECT_EQ(offsetof(DLTensor, ndim), 16u);
  EXPECT_EQ(offsetof(DLTensor, dtype), 20u);
  EXPECT_EQ(offsetof(DLTensor, shape), 24u);
  EXPECT_EQ(offsetof(DLTensor, strides), 32u);
  EXPECT_EQ(offsetof(DLTensor, byte_offset), 40u);
  EXPECT_EQ(sizeof(DLTensor), 48u);
  EXPECT_EQ(offsetof(DLManagedTensor, manager_ctx), 48u);
  EXPECT_EQ(offsetof(DLManagedTensor, deleter), 56u);
  EXPECT_EQ(offsetof(DLManagedTensorVersioned, manager_ctx), 8u);
  EXPECT_EQ(offsetof(DLManagedTensorVersioned, deleter), 16u);
  EXPECT_EQ(offsetof(DLManagedTensorVersioned, flags), 24u);
  EXPECT_EQ(offsetof(DLManagedTensorVersioned, dl_tensor), 32u);
}

TEST(DLPackDTypes, EveryKilnDTypeRoundTrips) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto d = static_cast<DType>(i);
    DLDataType t = to_dl_dtype(d);
    EXPECT_EQ(t.lanes, 1);
    EXPECT_EQ(t.bits, itemsize(d) * 8);
    EXPECT_EQ(from_dl_dtype(t), d) << dtype_info(d).name;
  }
  EXPECT_EQ(to_dl_dtype(DType::Bool).code, kDLBool);
  EXPECT_EQ(to_dl_dtype(DType::Complex64).code, kDLComplex);
  EXPECT_EQ(to_dl_dtype(DType::UInt16).code, kDLUInt);
  EXPECT_EQ(to_dl_dtype(DType::BFloat16).code, kDLBfloat);
  EXPECT_FALSE(from_dl_dtype({kDLBfloat, 32, 1}).has_value());
  EXPECT_FALSE(from_dl_dtype({kDLFloat, 8, 1}).has_value());
  EXPECT_FALSE(from_dl_dtype({kDLFloat, 32, 4}).has_value());
  EXPECT_FALSE(from_dl_dtype({kDLBool, 1, 1}).has_value());
}

TEST(DLPackExport, ViewWithElementStridesAndOneDeleterCall) {
  int released = 0;
  {
    // A (3, 4) float32 view with a negative row stride, starting at row 2.
    NDArray a(counted_memory(48, &released), DType::Float32, {3, 4}, {-16, 4}, 32);
    DLManagedTensorVersioned* t = export_versioned(a, {kDLCPU, 0}, kFlagIsCopied);
    EXPECT_TRUE(is_kiln_export(t));
    EXPECT_EQ(t->version.major, 1u);
    EXPECT_EQ(t->flags, kFlagIsCopied);
    EXPECT_EQ(t->dl_tensor.data, a.data());
    EXPECT_EQ(t->dl_tensor.byte_offset, 0u);
    ASSERT_EQ(t->dl_tensor.ndim, 2);
    EXPECT_EQ(t->dl_tensor.shape[0], 3);
    EXPECT_EQ(t->dl_tensor.strides[0], -4);
    EXPECT_EQ(t->dl_tensor.strides[1], 1);
    EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
    a = NDArray(counted_memory(8, &released), DType::Int8, {8}, {1}, 0);  // drop a's reference
    EXPECT_EQ(released, 0) << "the managed tensor keeps the memory";
    t->deleter(t);
    EXPECT_EQ(released, 1);
  }
  EXPECT_EQ(released, 2);
}

TEST(DLPackExport, StridesThatAreNotWholeElementsAreRefused) {
  int released = 0;
  NDArray a(counted_memory(64, &released), DType::Float32, {3}, {6}, 0);
  EXPECT_THROW(export_legacy(a, {kDLCPU, 0}), Error);
  // A length-1 axis's stride is never followed: exported as 0.
  NDArray b(counted_memory(64, &released), DType::Float32, {1, 3}, {6, 4}, 0);
  DLManagedTensor* t = export_legacy(b, {kDLCPU, 0});
  EXPECT_EQ(t->dl_tensor.strides[0], 0);
  t->deleter(t);
}

TEST(DLPackImport, ViewsTheTensorAndCallsTheDeleterWhenTheLastViewGoes) {
  std::vector<double> storage(12);
  for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<double>(i);
  int64_t shape[2] = {3, 2};
  int64_t strides[2] = {-4, 2};  // elements: rows backwards, every other column
  static int deleted = 0;
  deleted = 0;
  auto* t = new DLManagedTensorVersioned{};
  t->version = {1, 0};
  t->deleter = [](DLManagedTensorVersioned* self) {
    ++deleted;
    delete self;
  };
  t->dl_tensor.data = storage.data();
  t->dl_tensor.byte_offset = 8 * 8;  // element 8 is [0, 0]
  t->dl_tensor.device = {kDLCPU, 0};
  t->dl_tensor.ndim = 2;
  t->dl_tensor.dtype = {kDLFloat, 64, 1};
  t->dl_tensor.shape = shape;
  t->dl_tensor.strides = strides;
  EXPECT_FALSE(is_kiln_export(t));
  {
    NDArray a = import_versioned(t, 0);
    EXPECT_EQ(a.shape(), (Shape{3, 2}));
    EXPECT_EQ(a.strides(), (Strides{-32, 16}));
    EXPECT_EQ(a.data(), storage.data() + 8);
    // The memory covers exactly the bytes the view reaches: elements 0 .. 10.
    EXPECT_EQ(a.memory()->ptr(), storage.data());
    EXPECT_EQ(a.memory()->nbytes(), 11 * 8u);
    NDArray view(a.memory(), a.dtype(), {2}, {16}, a.offset());
    a = NDArray(view);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackImport, RefusesWhatItCannotViewAndLeavesTheTensorToTheCaller) {
  static int deleted = 0;
  deleted = 0;
  int64_t shape[1] = {4};
  auto make = [&](uint32_t major, DLDataType dtype) {
    auto* t = new DLManagedTensorVersioned{};
    t->version = {major, 0};
    t->deleter = [](DLManagedTensorVersioned* self) {
      ++deleted;
      delete self;
    };
    t->dl_tensor.ndim = 1;
    t->dl_tensor.shape = shape;
    t->dl_tensor.dtype = dtype;
    t->dl_tensor.device = {kDLCPU, 0};
    return t;
  };
  int calls = 0;
  for (auto* t : {make(2, {kDLFloat, 32, 1}), make(1, {kDLBfloat, 16, 1}), make(1, {kDLFloat, 32, 2})}) {
    EXPECT_THROW(import_versioned(t, 0), Error);
    EXPECT_EQ(deleted, calls) << "a refused tensor stays the caller's";
    t->deleter(t);
    ++calls;
  }
  EXPECT_EQ(deleted, 3);
}

TEST(DLPackImport, NullDataIsRefusedUnlessEmpty) {
  int64_t shape[1] = {4};
  static int deleted = 0;
  deleted = 0;
  auto make = [&] {
    auto* t = new DLManagedTensor{};
    t->deleter = [](DLManagedTensor* self) {
      ++deleted;
      delete self;
    };
    t->dl_tensor = DLTensor{nullptr, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    return t;
  };
  DLManagedTensor* t = make();
  EXPECT_THROW(import_legacy(t, 0), Error);
  t->deleter(t);
  shape[0] = 0;
  { EXPECT_EQ(import_legacy(make(), 0).size(), 0); }
  EXPECT_EQ(deleted, 2);
}

TEST(DLPackImport, LegacyNullStridesAreCContiguous) {
  float storage[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
  static int deleted = 0;
  deleted = 0;
  auto* t = new DLManagedTensor{};
  t->deleter = [](DLManagedTensor* self) {
    ++deleted;
    delete self;
  };
  t->dl_tensor = DLTensor{storage, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, nullptr, 0};
  {
    NDArray a = import_legacy(t, 0);
    EXPECT_EQ(a.strides(), (Strides{12, 4}));
    EXPECT_TRUE(a.c_contiguous());
  }
  EXPECT_EQ(deleted, 1);
}

}  // namespace
}  // namespace kiln::arraycore::dlpack
