// Record layouts (arraycore/record_dtype.h): interning, NumPy's repr, field
// views and their alignment rule, multi-field views, make_aligned_dtype and
// the kernel-type checks. Metadata only: no kernel runs.
#include <gtest/gtest.h>

#include "arraycore/copy.h"
#include "arraycore/record_dtype.h"

namespace kiln::arraycore {
namespace {

std::shared_ptr<Memory> host_memory(size_t nbytes) {
  auto* p = new char[nbytes];
  return std::make_shared<Memory>(p, nbytes, 0, [](void* q) { delete[] static_cast<char*>(q); });
}

RecordLayout packed(std::vector<std::pair<std::string, DType>> fields) {
  RecordLayout l;
  for (auto& [name, d] : fields) {
    l.fields.push_back({name, l.itemsize, d, {}});
    l.itemsize += static_cast<int64_t>(itemsize(d));
  }
  return l;
}

TEST(RecordDtype, EqualLayoutsAreOneDType) {
  const DType a = record_dtype(packed({{"f0", DType::Int32}, {"f1", DType::Float64}}));
  const DType b = record_dtype(packed({{"f0", DType::Int32}, {"f1", DType::Float64}}));
  const DType c = record_dtype(packed({{"f0", DType::Int32}, {"g", DType::Float64}}));
  EXPECT_TRUE(is_record(a));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(itemsize(a), 12u);
  EXPECT_EQ(dtype_info(a).kind, 'V');
  EXPECT_EQ(dtype_repr(a), "dtype([('f0', '<i4'), ('f1', '<f8')])");
  EXPECT_EQ(dtype_repr(void_dtype(8)), "dtype('V8')");
  RecordLayout holes = packed({{"f0", DType::Bool}});
  holes.itemsize = 4;
  EXPECT_EQ(dtype_repr(record_dtype(holes)),
            "dtype({'names': ['f0'], 'formats': ['?'], 'offsets': [0], 'itemsize': 4})");
  RecordLayout outside = packed({{"f0", DType::Int64}});
  outside.itemsize = 4;
  EXPECT_THROW(record_dtype(outside), std::invalid_argument);
}

TEST(RecordDtype, FieldViewsKeepOffsetAndStrides) {
  RecordLayout l = packed({{"a", DType::Int32}, {"b", DType::Int32}});
  l.fields.push_back({"c", 8, DType::Int16, {2, 2}});
  l.itemsize = 16;
  const DType r = record_dtype(l);
  auto mem = host_memory(16 * 6);
  NDArray a(mem, r, {3, 2}, {32, 16}, 0);   // every other record of six
  NDArray b = field_view(a, "b");
  EXPECT_EQ(b.dtype(), DType::Int32);
  EXPECT_EQ(b.offset(), 4);
  EXPECT_EQ(b.strides(), (Strides{32, 16}));
  NDArray c = field_view(a, "c");
  EXPECT_EQ(c.shape(), (Shape{3, 2, 2, 2}));
  EXPECT_EQ(c.strides(), (Strides{32, 16, 4, 2}));
  EXPECT_THROW(field_view(a, "nope"), std::invalid_argument);
  std::vector<std::string> names = {"c", "a"};
  NDArray both = fields_view(a, names);
  EXPECT_EQ(both.itemsize(), 16u);
  EXPECT_EQ(record_layout(both.dtype()).fields[0].name, "c");
  EXPECT_EQ(record_layout(both.dtype()).fields[0].offset, 8);
  names = {"a", "zz"};
  EXPECT_THROW(fields_view(a, names), std::out_of_range);
}

TEST(RecordDtype, MisalignedFieldsAreRefusedUnlessEmpty) {
  const DType r = record_dtype(packed({{"f0", DType::Bool}, {"f1", DType::Float64}}));   // "?,f8"
  auto mem = host_memory(9 * 4);
  NDArray a(mem, r, {4}, {9}, 0);
  EXPECT_THROW(field_view(a, "f1"), std::invalid_argument);
  EXPECT_NO_THROW(field_view(a, "f0"));
  NDArray empty(mem, r, {0}, {9}, 0);
  EXPECT_NO_THROW(field_view(empty, "f1"));
}

TEST(RecordDtype, MakeAlignedDtypeAlignsComplexToItsItemsize) {
  const DType r = record_dtype(packed({{"f0", DType::Bool}, {"f1", DType::Complex64}}));
  const DType aligned = make_aligned_dtype(r);
  EXPECT_EQ(itemsize(aligned), 16u);
  EXPECT_EQ(record_layout(aligned).fields[1].offset, 8);
  const DType nested = record_dtype(packed({{"a", r}, {"b", DType::Bool}}));
  EXPECT_EQ(itemsize(make_aligned_dtype(nested)), 24u);
  EXPECT_THROW(make_aligned_dtype(void_dtype(3)), std::invalid_argument);
  EXPECT_NO_THROW(require_kernel_record(aligned));
  try {
    require_kernel_record(r);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Field f1 with offset 1 is not", 0), 0u) << e.what();
  }
  const DType tail = record_dtype(packed({{"f0", DType::Float64}, {"f1", DType::Bool}}));
  try {
    require_kernel_record(tail);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Itemsize 9 is not a multiple", 0), 0u) << e.what();
  }
}

TEST(RecordDtype, SharedBytesAreFoundAcrossMemoryObjects) {
  auto mem = host_memory(64);
  auto alias = std::make_shared<Memory>(mem->ptr(), 64, 0, [](void*) {});   // the same bytes, imported
  NDArray a(mem, DType::Int64, {8}, {8}, 0), b(alias, DType::Int64, {4}, {8}, 32);
  NDArray c(alias, DType::Int64, {4}, {8}, 0);
  EXPECT_TRUE(shares_bytes(a, b));
  EXPECT_TRUE(overlaps_partially(b, a));
  EXPECT_FALSE(overlaps_partially(c, NDArray(mem, DType::Int64, {4}, {8}, 0)));   // the very same view
}

}  // namespace
}  // namespace kiln::arraycore
