// collapse_dims: Note [Collapsing dimensions].
#include <gtest/gtest.h>

#include "arraycore/strided_plan.h"

namespace kiln::arraycore {
namespace {

TEST(StridedPlan, CContiguousCollapsesToOneDim) {
  auto p = collapse_dims({2, 3, 4}, {{48, 16, 4}, {96, 32, 8}});
  EXPECT_EQ(p.shape, (Shape{24}));
  EXPECT_EQ(p.strides[0], (Strides{4}));
  EXPECT_EQ(p.strides[1], (Strides{8}));
  EXPECT_EQ(p.size, 24);
}

TEST(StridedPlan, FortranAgainstCKeepsEveryDim) {
  auto p = collapse_dims({2, 3}, {{4, 8}, {12, 4}});
  EXPECT_EQ(p.shape, (Shape{2, 3}));
}

TEST(StridedPlan, SizeOneDimsDropAndPartialMerges) {
  // Operand 0 is a[:, :, :, :5] of a float32 (4, 1, 6, 10) array; operand 1 is
  // contiguous. Dims 0 and 2 merge (the size-1 dim drops); the last stays apart.
  auto p = collapse_dims({4, 1, 6, 5}, {{240, 999, 40, 4}, {120, 7, 20, 4}});
  EXPECT_EQ(p.shape, (Shape{24, 5}));
  EXPECT_EQ(p.strides[0], (Strides{40, 4}));
  EXPECT_EQ(p.strides[1], (Strides{20, 4}));
  // Both contiguous: one dimension.
  EXPECT_EQ(collapse_dims({4, 1, 6, 5}, {{120, 999, 20, 4}}).shape, (Shape{120}));
}

TEST(StridedPlan, ZeroDAndEmpty) {
  auto scalar = collapse_dims({}, {{}, {}});
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.size, 1);
  auto empty = collapse_dims({3, 0}, {{4, 4}, {4, 4}});
  EXPECT_EQ(empty.size, 0);
}

TEST(StridedPlan, NegativeStridesMergeWhenConsistent) {
  auto p = collapse_dims({3, 4}, {{-16, -4}, {16, 4}});
  EXPECT_EQ(p.shape, (Shape{12}));
  EXPECT_EQ(p.strides[0], (Strides{-4}));
}

}  // namespace
}  // namespace kiln::arraycore
