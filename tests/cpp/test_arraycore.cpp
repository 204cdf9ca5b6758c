// arraycore without a backend: the dtype table, strides, extents, reshape and the views.
#include <gtest/gtest.h>

#include <vector>

#include "arraycore/axes.h"
#include "arraycore/dtype.h"
#include "arraycore/ndarray.h"
#include "arraycore/views.h"

namespace kiln::arraycore {
namespace {

std::shared_ptr<Memory> host_memory(size_t nbytes) {
  auto* p = new char[nbytes ? nbytes : 1];
  return std::make_shared<Memory>(p, nbytes, 0, [](void* q) { delete[] static_cast<char*>(q); });
}

TEST(Axes, NormalizedAsNumPy) {
  EXPECT_EQ(normalize_axis(-1, 3), 2);
  EXPECT_EQ(normalize_axis(0, 1), 0);
  EXPECT_THROW(normalize_axis(3, 3), AxisError);
  EXPECT_THROW(normalize_axis(-4, 3), AxisError);
  EXPECT_THROW(normalize_axis(0, 0), AxisError);
  try {
    normalize_axis(5, 2, "axis1");
    FAIL() << "no AxisError";
  } catch (const AxisError& e) {
    EXPECT_EQ(e.axis, 5);
    EXPECT_EQ(e.ndim, 2);
    EXPECT_EQ(e.argname, "axis1");
    EXPECT_STREQ(e.what(), "axis 5 is out of bounds for array of dimension 2");
  }
  const int64_t axes[] = {0, -1};
  EXPECT_EQ(normalize_axes(axes, 3), (std::vector<int>{0, 2}));
  const int64_t repeated[] = {1, -2};
  EXPECT_THROW(normalize_axes(repeated, 3), std::invalid_argument);
}

TEST(DTypeTable, RowsMatchNumPy) {
  EXPECT_EQ(dtype_info(DType::Float32).itemsize, 4);
  EXPECT_EQ(dtype_info(DType::Float32).char_code, 'f');
  EXPECT_EQ(dtype_info(DType::Complex128).itemsize, 16);
  EXPECT_EQ(dtype_info(DType::UInt16).kind, 'u');
  EXPECT_EQ(dtype_info(DType::Bool).name, "bool");
  for (int i = 0; i < kNumDTypes; ++i) {
    auto d = static_cast<DType>(i);
    EXPECT_EQ(dtype_info(d).dtype, d) << "row " << i << " is out of order";
    EXPECT_EQ(dtype_from_char(dtype_info(d).char_code), d);
    EXPECT_EQ(dtype_from_name(dtype_info(d).name), d);
  }
  EXPECT_EQ(dtype_from_char('l'), DType::Int64);
  EXPECT_FALSE(dtype_from_char('O').has_value());
  EXPECT_FALSE(dtype_from_name("object").has_value());
}

TEST(Strides, ContiguousCAndF) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}, 8, Order::C), (Strides{96, 32, 8}));
  EXPECT_EQ(contiguous_strides({2, 3, 4}, 8, Order::F), (Strides{8, 16, 48}));
  EXPECT_EQ(contiguous_strides({}, 4, Order::C), Strides{});
  EXPECT_EQ(contiguous_strides({3, 0, 2}, 4, Order::C), (Strides{8, 8, 4}));
}

TEST(Extent, CoversNegativeStridesAndEmpty) {
  EXPECT_EQ(byte_extent({3, 4}, {16, 4}, 4), (std::pair<int64_t, int64_t>{0, 48}));
  EXPECT_EQ(byte_extent({3}, {-8}, 4), (std::pair<int64_t, int64_t>{-16, 4}));
  EXPECT_EQ(byte_extent({2, 0}, {4, 4}, 4), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(byte_extent({}, {}, 8), (std::pair<int64_t, int64_t>{0, 8}));
}

TEST(NDArrayCore, ContiguityFlags) {
  NDArray c(host_memory(96), DType::Float32, {4, 6}, {24, 4}, 0);
  EXPECT_TRUE(c.c_contiguous());
  EXPECT_FALSE(c.f_contiguous());
  NDArray f(host_memory(96), DType::Float32, {4, 6}, {4, 16}, 0);
  EXPECT_TRUE(f.f_contiguous());
  EXPECT_FALSE(f.c_contiguous());
  NDArray strided(host_memory(96), DType::Float32, {4, 3}, {24, 8}, 0);
  EXPECT_FALSE(strided.c_contiguous());
  EXPECT_FALSE(strided.f_contiguous());
  // Size-1 dimensions do not count, whatever their stride (NumPy's rule).
  NDArray column(host_memory(96), DType::Float32, {4, 1}, {4, 100}, 0);
  EXPECT_TRUE(column.c_contiguous());
  NDArray sliced_column(host_memory(96), DType::Float32, {4, 1}, {24, 4}, 0);
  EXPECT_FALSE(sliced_column.c_contiguous());
}

TEST(NDArrayCore, ReshapeIsAViewWithInferredDim) {
  NDArray a(host_memory(96), DType::Int32, {24}, {4}, 8);
  NDArray b = a.reshape({2, -1, 4});
  EXPECT_EQ(b.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(b.strides(), (Strides{48, 16, 4}));
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(b.memory(), a.memory());
  EXPECT_THROW(a.reshape({5, 5}), std::invalid_argument);
  EXPECT_THROW(a.reshape({-1, -1}), std::invalid_argument);
  EXPECT_THROW(a.reshape({0, -1}), std::invalid_argument);
  // Evenly strided axes merge into a view (every other element here) ...
  NDArray strided(host_memory(96), DType::Float32, {4, 3}, {24, 8}, 0);
  EXPECT_EQ(strided.reshape({12}).strides(), (Strides{8}));
  // ... unevenly strided ones need a copy, which the member reshape refuses.
  NDArray rows(host_memory(192), DType::Float32, {4, 3}, {48, 8}, 0);
  EXPECT_THROW(rows.reshape({12}), std::invalid_argument);
}

// Note [Reshape views]: a view whenever NumPy's reshape is one, in C and F order.
TEST(Views, ReshapeMergesOnlyEvenlyStridedAxes) {
  auto mem = host_memory(8 * 4 * 6 * 5);
  NDArray c(mem, DType::Float64, {4, 6, 5}, {240, 40, 8}, 0);
  NDArray t = transpose(c);                                 // (5, 6, 4), strides (8, 40, 240)
  // Sliced along the first axis: the last two axes still merge, the first does not.
  NDArray rows(mem, DType::Float64, {2, 6, 5}, {480, 40, 8}, 0);
  std::optional<Strides> s = reshape_strides(rows, {2, 30}, Order::C);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{480, 8}));
  EXPECT_FALSE(reshape_strides(rows, {60}, Order::C));
  // Splitting an axis is always a view, whatever its stride.
  s = reshape_strides(rows, {2, 3, 2, 5}, Order::C);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{480, 80, 40, 8}));
  // The transpose is F-contiguous: a view in F order, a copy in C order.
  EXPECT_FALSE(reshape_strides(t, {120}, Order::C));
  s = reshape_strides(t, {120}, Order::F);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{8}));
  s = reshape_strides(t, {5, 24}, Order::F);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{8, 40}));
  // Length-1 axes are ignored on the way in and get contiguous strides on the way out.
  NDArray col(mem, DType::Float64, {4, 1}, {240, 999}, 0);
  s = reshape_strides(col, {1, 2, 1, 2}, Order::C);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{960, 480, 480, 240}));
  // Negative strides merge when evenly strided.
  NDArray rev(mem, DType::Float64, {4, 6}, {-48, -8}, 184);
  s = reshape_strides(rev, {24}, Order::C);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{-8}));
  // Empty arrays are always views.
  NDArray empty(mem, DType::Float64, {0, 6}, {480, 16}, 0);
  s = reshape_strides(empty, {3, 0}, Order::C);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Strides{8, 8}));
}

TEST(Views, ReshapeResolvesUnknownAndRefusesCopiesWhenAsked) {
  auto mem = host_memory(8 * 24);
  NDArray a(mem, DType::Float64, {4, 6}, {48, 8}, 0);
  NDArray v = reshape(a, {3, -1}, 'C', CopyMode::Never);
  EXPECT_EQ(v.shape(), (Shape{3, 8}));
  EXPECT_TRUE(is_view_of(v, a));
  NDArray f = reshape(a, {-1}, 'A', CopyMode::IfNeeded);   // 'A' of a C array is C
  EXPECT_EQ(f.strides(), (Strides{8}));
  EXPECT_EQ(resolve_reshape({2, -1, 3}, 12), (Shape{2, 2, 3}));
  try {
    resolve_reshape({5, -1}, 24);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "cannot reshape array of size 24 into shape (5,-1)");
  }
  EXPECT_THROW(resolve_reshape({-1, -1}, 24), std::invalid_argument);
  EXPECT_THROW(resolve_reshape({0, -1}, 24), std::invalid_argument);
  try {
    reshape(transpose(a), {24}, 'C', CopyMode::Never);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Unable to avoid creating a copy while reshaping.");
  }
  EXPECT_TRUE(is_view_of(reshape(transpose(a), {24}, 'F', CopyMode::Never), a));
  EXPECT_TRUE(is_view_of(ravel(transpose(a), 'K'), a));
  EXPECT_TRUE(is_view_of(ravel(transpose(a), 'A'), a));
  EXPECT_TRUE(is_view_of(ravel(a, 'C'), a));
}

TEST(Views, AxisPermutationsAndChecks) {
  auto mem = host_memory(8 * 24);
  NDArray a(mem, DType::Float64, {2, 3, 4}, {96, 32, 8}, 0);
  std::vector<int64_t> axes{1, -1, 0};
  NDArray t = transpose(a, axes);
  EXPECT_EQ(t.shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(t.strides(), (Strides{32, 8, 96}));
  EXPECT_EQ(transpose(a).shape(), (Shape{4, 3, 2}));
  std::vector<int64_t> short_axes{0, 1}, repeated{0, 1, 1}, out_of_range{0, 1, 3};
  EXPECT_THROW(transpose(a, short_axes), std::invalid_argument);
  EXPECT_THROW(transpose(a, repeated), std::invalid_argument);
  EXPECT_THROW(transpose(a, out_of_range), AxisError);
  EXPECT_EQ(swapaxes(a, 0, -1).shape(), (Shape{4, 3, 2}));
  std::vector<int64_t> src{0}, dst{-1};
  EXPECT_EQ(moveaxis(a, src, dst).shape(), (Shape{3, 4, 2}));
  std::vector<int64_t> src2{0, 1}, dst2{-1, 0};
  EXPECT_EQ(moveaxis(a, src2, dst2).shape(), (Shape{3, 4, 2}));
  EXPECT_THROW(moveaxis(a, src2, dst), std::invalid_argument);
  try {
    moveaxis(a, src, std::vector<int64_t>{3});
    FAIL();
  } catch (const AxisError& e) {
    EXPECT_EQ(e.argname, "destination");
  }
}

TEST(Views, SqueezeExpandFlipBroadcast) {
  auto mem = host_memory(8 * 24);
  NDArray a(mem, DType::Float64, {1, 6, 1, 4}, {0, 32, 0, 8}, 0);
  EXPECT_EQ(squeeze(a, std::nullopt).shape(), (Shape{6, 4}));
  EXPECT_EQ(squeeze(a, std::vector<int64_t>{-2}).shape(), (Shape{1, 6, 4}));
  EXPECT_THROW(squeeze(a, std::vector<int64_t>{1}), std::invalid_argument);
  EXPECT_THROW(squeeze(a, std::vector<int64_t>{0, 0}), std::invalid_argument);
  NDArray b(mem, DType::Float64, {6, 4}, {32, 8}, 0);
  std::vector<int64_t> where{0, -1};
  NDArray e = expand_dims(b, where);
  EXPECT_EQ(e.shape(), (Shape{1, 6, 4, 1}));
  EXPECT_EQ(e.strides(), (Strides{0, 32, 8, 0}));
  EXPECT_THROW(expand_dims(b, std::vector<int64_t>{0, -4}), std::invalid_argument);   // repeated
  EXPECT_THROW(expand_dims(b, std::vector<int64_t>{3}), AxisError);
  NDArray f = flip(b, std::vector<int64_t>{1});
  EXPECT_EQ(f.strides(), (Strides{32, -8}));
  EXPECT_EQ(f.offset(), 24);
  NDArray g = flip(b, std::nullopt);
  EXPECT_EQ(g.strides(), (Strides{-32, -8}));
  EXPECT_EQ(g.offset(), 5 * 32 + 3 * 8);
  NDArray h = broadcast_view(b, {2, 6, 4});
  EXPECT_EQ(h.strides(), (Strides{0, 32, 8}));
  try {
    broadcast_view(b, {6, 3});
    FAIL();
  } catch (const std::invalid_argument& err) {
    EXPECT_STREQ(err.what(), "operands could not be broadcast together with remapped shapes "
                             "[original->remapped]: (6,4)  and requested shape (6,3)");
  }
  EXPECT_THROW(broadcast_view(b, {}), std::invalid_argument);
}

TEST(NDArrayCore, ViewAsOtherDtypeRescalesTheLastAxis) {
  NDArray a(host_memory(192), DType::Float64, {4, 6}, {48, 8}, 0);
  NDArray narrow = a.view(DType::Int16);
  EXPECT_EQ(narrow.shape(), (Shape{4, 24}));
  EXPECT_EQ(narrow.strides(), (Strides{48, 2}));
  EXPECT_EQ(narrow.data(), a.data());
  NDArray wide = a.view(DType::Complex128);
  EXPECT_EQ(wide.shape(), (Shape{4, 3}));
  EXPECT_EQ(wide.strides(), (Strides{48, 16}));
  NDArray same = NDArray(host_memory(192), DType::Float64, {6, 4}, {8, 48}, 0).view(DType::Int64);
  EXPECT_EQ(same.strides(), (Strides{8, 48}));  // same itemsize: any layout
  NDArray transposed(host_memory(192), DType::Float64, {6, 4}, {8, 48}, 0);
  EXPECT_THROW(transposed.view(DType::Float32), std::invalid_argument);   // last axis not contiguous
  NDArray odd(host_memory(192), DType::Float32, {4, 3}, {48, 4}, 0);
  EXPECT_THROW(odd.view(DType::Float64), std::invalid_argument);          // 12 bytes / 8
  NDArray scalar(host_memory(8), DType::Float64, {}, {}, 0);
  EXPECT_THROW(scalar.view(DType::Float32), std::invalid_argument);
  EXPECT_EQ(scalar.view(DType::UInt64).shape(), Shape{});
}

TEST(NDArrayCore, ComplexPartsAreStridedFloatViews) {
  NDArray z(host_memory(96), DType::Complex64, {3, 2}, {-16, 8}, 32);
  NDArray re = z.complex_part(false), im = z.complex_part(true);
  EXPECT_EQ(re.dtype(), DType::Float32);
  EXPECT_EQ(re.strides(), z.strides());
  EXPECT_EQ(re.offset(), 32);
  EXPECT_EQ(im.offset(), 36);
  EXPECT_EQ(NDArray(host_memory(32), DType::Complex128, {2}, {16}, 0).complex_part(true).offset(), 8);
  EXPECT_THROW(NDArray(host_memory(8), DType::Float64, {1}, {8}, 0).complex_part(false), std::invalid_argument);
}

TEST(NDArrayCore, ShapeSizeRejectsNegative) {
  EXPECT_EQ(shape_size({}), 1);
  EXPECT_EQ(shape_size({3, 0}), 0);
  EXPECT_THROW(shape_size({2, -1}), std::invalid_argument);
}

// Note [Read-only arrays]: views keep the flag; writes are refused.
TEST(NDArrayCore, ReadOnlyFlagFollowsViews) {
  NDArray a(host_memory(96), DType::Float32, {4, 6}, {24, 4}, 0);
  EXPECT_TRUE(a.writeable());
  NDArray b = broadcast_view(a, {2, 4, 6});
  b.set_writeable(false);
  EXPECT_FALSE(b.writeable());
  EXPECT_TRUE(a.writeable()) << "the flag belongs to the view, not the memory";
  EXPECT_FALSE(transpose(b).writeable());
  EXPECT_FALSE(b.view(DType::Int32).writeable());
  EXPECT_FALSE(b.view_as({6}, {4}, 0).writeable());
  EXPECT_THROW(require_writeable(b), std::invalid_argument);
  EXPECT_NO_THROW(require_writeable(a));
}

// Note [Array size limit]: NumPy's shapes, and no array is built beyond it.
TEST(NDArrayCore, SizeLimitIsNumPys) {
  EXPECT_EQ(checked_nbytes({int64_t{1} << 59}, 8), int64_t{1} << 62);
  EXPECT_EQ(checked_nbytes({0, int64_t{1} << 40}, 8), 0);
  EXPECT_THROW(checked_nbytes({0, int64_t{1} << 62, int64_t{1} << 62}, 8), std::invalid_argument)
      << "NumPy skips zero extents: the others still overflow";
  EXPECT_THROW(checked_nbytes({int64_t{1} << 62, int64_t{1} << 62, 0}, 1), std::invalid_argument);
  EXPECT_THROW(checked_nbytes({int64_t{1} << 32, int64_t{1} << 32}, 1), std::invalid_argument);
  EXPECT_THROW(checked_nbytes({int64_t{1} << 60}, 8), std::invalid_argument);
  EXPECT_THROW(shape_size({int64_t{1} << 33, int64_t{1} << 31}), std::invalid_argument);
  EXPECT_THROW(NDArray(host_memory(8), DType::Float64, {int64_t{1} << 61}, {0}, 0), std::invalid_argument);
  EXPECT_THROW(checked_add(INT64_MAX, 1), std::invalid_argument);
  EXPECT_THROW(checked_mul(int64_t{1} << 62, 2), std::invalid_argument);
  EXPECT_THROW(byte_extent({3, 2}, {INT64_MAX / 2, 8}, 8), std::invalid_argument);
}

}  // namespace
}  // namespace kiln::arraycore
