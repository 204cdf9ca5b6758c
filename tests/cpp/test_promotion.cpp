// arraycore/promotion: spot checks against NumPy 2's documented behaviour.
// The full 14x14 tables are compared with NumPy itself in
// tests/python/core/test_promotion.py.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "arraycore/promotion.h"

namespace kiln::arraycore {
namespace {

// NumPy's own dtypes: the lattice properties below hold among them
// (bfloat16, ml_dtypes', has no common dtype with some: its own test below).
std::vector<DType> all_dtypes() {
  std::vector<DType> all;
  for (int i = 0; i < kNumDTypes; ++i)
    if (static_cast<DType>(i) != DType::BFloat16) all.push_back(static_cast<DType>(i));
  return all;
}

bool is_int(DType d) {
  char k = dtype_info(d).kind;
  return k == 'i' || k == 'u';
}

TEST(Promotion, TrickyPairs) {
  EXPECT_EQ(promote_types(DType::Int64, DType::UInt64), DType::Float64);
  EXPECT_EQ(promote_types(DType::Int8, DType::UInt8), DType::Int16);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int16), DType::Int16);
  EXPECT_EQ(promote_types(DType::Int32, DType::UInt32), DType::Int64);
  EXPECT_EQ(promote_types(DType::Float16, DType::Int16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Float16, DType::UInt8), DType::Float16);
  EXPECT_EQ(promote_types(DType::Float32, DType::Int32), DType::Float64);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int8), DType::Int8);
  EXPECT_EQ(promote_types(DType::Bool, DType::Bool), DType::Bool);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Float64), DType::Complex128);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Int16), DType::Complex64);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Int32), DType::Complex128);
}

TEST(Promotion, SameDtypeIsIdentity) {
  for (DType d : all_dtypes()) EXPECT_EQ(promote_types(d, d), d) << dtype_info(d).name;
}

TEST(Promotion, Commutative) {
  for (DType a : all_dtypes())
    for (DType b : all_dtypes())
      EXPECT_EQ(promote_types(a, b), promote_types(b, a)) << dtype_info(a).name << " " << dtype_info(b).name;
}

// NumPy's promote_types is associative except on triples that mix signed and
// unsigned integers with a float or complex, e.g. (int8, uint8, float16):
// float32 one way, float16 the other. kiln matches NumPy there too (the
// Python tests compare the full table); here the rest must be associative.
TEST(Promotion, AssociativeWhereNumPyIs) {
  for (DType a : all_dtypes())
    for (DType b : all_dtypes())
      for (DType c : all_dtypes()) {
        bool has_i = false, has_u = false, has_inexact = false;
        for (DType d : {a, b, c}) {
          char k = dtype_info(d).kind;
          has_i |= k == 'i';
          has_u |= k == 'u';
          has_inexact |= k == 'f' || k == 'c';
        }
        if (has_i && has_u && has_inexact) continue;
        EXPECT_EQ(promote_types(promote_types(a, b), c), promote_types(a, promote_types(b, c)))
            << dtype_info(a).name << " " << dtype_info(b).name << " " << dtype_info(c).name;
      }
  // The documented exception.
  EXPECT_EQ(promote_types(promote_types(DType::Int8, DType::UInt8), DType::Float16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Int8, promote_types(DType::UInt8, DType::Float16)), DType::Float16);
}

TEST(Promotion, PromotedTypeIsSafeTargetOfBoth) {
  for (DType a : all_dtypes())
    for (DType b : all_dtypes()) {
      DType p = promote_types(a, b);
      EXPECT_TRUE(can_cast(a, p, Casting::Safe));
      EXPECT_TRUE(can_cast(b, p, Casting::Safe));
    }
}

TEST(Promotion, CanCast) {
  EXPECT_TRUE(can_cast(DType::Int64, DType::Float64, Casting::Safe));
  EXPECT_TRUE(can_cast(DType::UInt64, DType::Float64, Casting::Safe));
  EXPECT_FALSE(can_cast(DType::Int64, DType::UInt64, Casting::Safe));
  EXPECT_FALSE(can_cast(DType::Int16, DType::Float16, Casting::Safe));
  EXPECT_TRUE(can_cast(DType::Int8, DType::Float16, Casting::Safe));
  EXPECT_FALSE(can_cast(DType::Complex64, DType::Float64, Casting::Safe));
  EXPECT_TRUE(can_cast(DType::Float64, DType::Float32, Casting::SameKind));
  EXPECT_TRUE(can_cast(DType::UInt64, DType::Int8, Casting::SameKind));
  EXPECT_FALSE(can_cast(DType::Int8, DType::UInt64, Casting::SameKind));
  EXPECT_FALSE(can_cast(DType::Float16, DType::Int64, Casting::SameKind));
  EXPECT_FALSE(can_cast(DType::Int32, DType::Int64, Casting::No));
  EXPECT_TRUE(can_cast(DType::Int32, DType::Int32, Casting::Equiv));
  EXPECT_TRUE(can_cast(DType::Complex128, DType::Bool, Casting::Unsafe));
  for (DType a : all_dtypes())
    for (DType b : all_dtypes()) {
      // Each level allows everything the stricter one does.
      EXPECT_LE(can_cast(a, b, Casting::No), can_cast(a, b, Casting::Equiv));
      EXPECT_LE(can_cast(a, b, Casting::Equiv), can_cast(a, b, Casting::Safe));
      EXPECT_LE(can_cast(a, b, Casting::Safe), can_cast(a, b, Casting::SameKind));
    }
}

DType rt(std::vector<DType> dtypes, std::vector<WeakScalar> weak) { return result_type(dtypes, weak); }

// Note [Bfloat16 promotion]: ml_dtypes' rules, checked against NumPy in
// tests/python/core/test_bfloat16.py.
TEST(Promotion, Bfloat16) {
  const DType b = DType::BFloat16;
  EXPECT_EQ(promote_types(b, b), b);
  EXPECT_EQ(promote_types(b, DType::Int8), b);
  EXPECT_EQ(promote_types(DType::Bool, b), b);
  EXPECT_EQ(promote_types(b, DType::Float32), DType::Float32);
  EXPECT_EQ(promote_types(DType::Complex64, b), DType::Complex64);
  EXPECT_THROW(promote_types(b, DType::Float16), DTypePromotionError);
  EXPECT_THROW(promote_types(DType::Int16, b), DTypePromotionError);
  EXPECT_TRUE(can_cast(DType::UInt8, b, Casting::Safe));
  EXPECT_FALSE(can_cast(DType::Float16, b, Casting::Safe));
  EXPECT_TRUE(can_cast(DType::Float64, b, Casting::SameKind));
  EXPECT_FALSE(can_cast(b, DType::Float16, Casting::SameKind));
  EXPECT_FALSE(can_cast(b, DType::Int64, Casting::SameKind));
  EXPECT_TRUE(can_cast(b, DType::Complex128, Casting::Safe));
  EXPECT_EQ(rt({b}, {WeakScalar::Int, WeakScalar::Float}), b);
  EXPECT_EQ(rt({b}, {WeakScalar::Complex}), DType::Complex64);
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    EXPECT_LE(can_cast(b, d, Casting::Safe), can_cast(b, d, Casting::SameKind));
    EXPECT_LE(can_cast(d, b, Casting::Safe), can_cast(d, b, Casting::SameKind));
  }
}

TEST(Promotion, ResultTypeWeakScalars) {
  using W = WeakScalar;
  EXPECT_EQ(rt({DType::UInt8}, {W::Int}), DType::UInt8);
  EXPECT_EQ(rt({DType::Int8}, {W::Bool}), DType::Int8);
  EXPECT_EQ(rt({DType::Bool}, {W::Int}), DType::Int64);
  EXPECT_EQ(rt({DType::Int16}, {W::Float}), DType::Float64);
  EXPECT_EQ(rt({DType::Float16}, {W::Float}), DType::Float16);
  EXPECT_EQ(rt({DType::Float32}, {W::Int, W::Float}), DType::Float32);
  EXPECT_EQ(rt({DType::Float32}, {W::Complex}), DType::Complex64);
  EXPECT_EQ(rt({DType::Float16}, {W::Complex}), DType::Complex64);
  EXPECT_EQ(rt({DType::Float64}, {W::Complex}), DType::Complex128);
  EXPECT_EQ(rt({DType::Int8}, {W::Complex}), DType::Complex128);
  EXPECT_EQ(rt({DType::Complex64}, {W::Float}), DType::Complex64);
  EXPECT_EQ(rt({DType::Int8, DType::UInt8}, {W::Int}), DType::Int16);
  EXPECT_EQ(rt({DType::Int8}, {W::None_}), DType::Int8);
}

TEST(Promotion, ResultTypeOnlyWeak) {
  using W = WeakScalar;
  EXPECT_EQ(rt({}, {W::Bool}), DType::Bool);
  EXPECT_EQ(rt({}, {W::Bool, W::Int}), DType::Int64);
  EXPECT_EQ(rt({}, {W::Float, W::Int}), DType::Float64);
  EXPECT_EQ(rt({}, {W::Complex}), DType::Complex128);
  EXPECT_THROW(rt({}, {}), std::invalid_argument);
  EXPECT_THROW(rt({}, {W::None_}), std::invalid_argument);
}

TEST(Promotion, MinScalarTypeByValue) {
  EXPECT_EQ(min_scalar_type_integer(255, false), DType::UInt8);
  EXPECT_EQ(min_scalar_type_integer(256, false), DType::UInt16);
  EXPECT_EQ(min_scalar_type_integer(128, true), DType::Int8);     // -128
  EXPECT_EQ(min_scalar_type_integer(129, true), DType::Int16);    // -129
  EXPECT_EQ(min_scalar_type_integer(~uint64_t{0}, false), DType::UInt64);
  EXPECT_EQ(min_scalar_type_integer(uint64_t{1} << 63, true), DType::Int64);
  EXPECT_THROW(min_scalar_type_integer((uint64_t{1} << 63) + 1, true), std::invalid_argument);
  EXPECT_EQ(min_scalar_type_float(64999.0), DType::Float16);
  EXPECT_EQ(min_scalar_type_float(65000.0), DType::Float32);      // NumPy's threshold, not half's max
  EXPECT_EQ(min_scalar_type_float(-3.4e38), DType::Float64);
  EXPECT_EQ(min_scalar_type_float(std::numeric_limits<double>::infinity()), DType::Float16);
  EXPECT_EQ(min_scalar_type_complex(1.0, 2.0), DType::Complex64);
  EXPECT_EQ(min_scalar_type_complex(std::numeric_limits<double>::quiet_NaN(), 0.0), DType::Complex128);
}

TEST(Promotion, CommonType) {
  std::vector<DType> ints = {DType::Int8, DType::UInt16};
  EXPECT_EQ(common_type(ints), DType::Float64);
  std::vector<DType> half_complex = {DType::Float16, DType::Complex64};
  EXPECT_EQ(common_type(half_complex), DType::Complex64);
  std::vector<DType> int_complex = {DType::Int8, DType::Complex64};
  EXPECT_EQ(common_type(int_complex), DType::Complex128);
  std::vector<DType> halves = {DType::Float16};
  EXPECT_EQ(common_type(halves), DType::Float16);
  std::vector<DType> with_bool = {DType::Float32, DType::Bool};
  EXPECT_THROW(common_type(with_bool), std::invalid_argument);
  EXPECT_THROW(common_type(std::vector<DType>{}), std::invalid_argument);
}

}  // namespace
}  // namespace kiln::arraycore
