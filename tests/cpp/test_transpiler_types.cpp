// transpiler/types.* and builtins.*: NEP 50 joins, C++ spellings, the builtin table.
#include <gtest/gtest.h>

#include "transpiler/builtins.h"
#include "transpiler/types.h"
#include "tests/cpp/test_transpiler_builders.h"

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

TEST(TranspilerTypes, WeakScalarsJoinLikeNep50) {
  Type w = Type::weak_scalar(DType::Int64), f32 = Type::scalar(DType::Float32);
  EXPECT_EQ(*join(w, f32), f32);
  EXPECT_EQ(promote(Type::weak_scalar(DType::Float64), f32), f32);
  EXPECT_EQ(promote(Type::weak_scalar(DType::Float64), Type::scalar(DType::Int32)), Type::scalar(DType::Float64));
  EXPECT_EQ(promote(w, Type::weak_scalar(DType::Float64)), Type::weak_scalar(DType::Float64));
  EXPECT_EQ(promote(Type::scalar(DType::Int32), Type::scalar(DType::UInt32)), Type::scalar(DType::Int64));
  EXPECT_FALSE(join(Type::array(DType::Float32, 1, ArrayStorage::Strided), f32).has_value());
  EXPECT_EQ(strong(w), Type::scalar(DType::Int64));
  EXPECT_EQ(c_type(Type::array(DType::Float32, 2, ArrayStorage::Contiguous)), "kiln::jit::CArray<float, 2>");
}

TEST(TranspilerBuiltins, TableRowsResolve) {
  const BuiltinInfo* b = find_builtin("math.sqrt");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rule, BuiltinRule::Math1);
  ASSERT_NE(find_builtin("kiln.jit.threadIdx.x"), nullptr);
  EXPECT_EQ(builtin_value_type(*find_builtin("kiln.jit.threadIdx.x")), Type::scalar(DType::UInt32));
  EXPECT_TRUE(dtype_allowed(find_builtin("kiln.jit.atomic_add")->dtypes, DType::Float64));
  EXPECT_FALSE(dtype_allowed(find_builtin("kiln.jit.atomic_sub")->dtypes, DType::Float32));
  EXPECT_EQ(find_builtin("math.nope"), nullptr);
  ASSERT_NE(find_builtin("kiln.arcsinh"), nullptr);  // every one-output kiln ufunc is a row
  EXPECT_EQ(find_builtin("kiln.arcsinh")->rule, BuiltinRule::Ufunc);
  EXPECT_EQ(find_builtin("kiln.arcsinh")->spelling, "kiln::ufn::arcsinh");
}

}  // namespace
}  // namespace kiln::transpiler
