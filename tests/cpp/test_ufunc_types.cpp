// The ufunc table and resolve_loop (arraycore/ufunc.h), without Python; the
// exhaustive comparison with NumPy is tests/python/core/test_ufunc_types.py.
#include <gtest/gtest.h>

#include "arraycore/ufunc.h"

namespace kiln::arraycore {
namespace {

using K = UfuncTypeError::Kind;

LoopChoice resolve(std::string_view name, std::vector<Operand> ops, std::optional<DType> dtype = {},
                   Casting casting = Casting::SameKind) {
  return resolve_loop(ufunc(name), ops, dtype, casting);
}

TEST(UfuncTable, RowsAndAliases) {
  EXPECT_EQ(all_ufuncs().size(), 84u);
  const UfuncDef& add = ufunc("add");
  EXPECT_EQ(add.nin, 2);
  EXPECT_EQ(add.nout, 1);
  EXPECT_EQ(add.identity, Identity::Zero);
  EXPECT_EQ(add.device_fn, "kiln::ufn::add");
  ASSERT_EQ(add.loops.size(), 15u);
  ASSERT_EQ(add.user_loops, 1u);   // EE->E first: Note [Bfloat16 loops]
  EXPECT_EQ(add.loops[0].in[0], DType::BFloat16);
  EXPECT_EQ(add.loops[1].in[0], DType::Bool);
  EXPECT_EQ(&ufunc("true_divide"), &ufunc("divide"));
  EXPECT_EQ(&ufunc("abs"), &ufunc("absolute"));
  EXPECT_EQ(ufunc("frexp").loops[0].out[1], DType::Int32);
  EXPECT_EQ(ufunc("degrees").user_loops, 0u);
  EXPECT_EQ(ufunc("ldexp").user_loops, 1u);
  EXPECT_THROW(ufunc("no_such_ufunc"), std::out_of_range);
}

TEST(UfuncResolve, WeakScalarsTakeTheArrayDtype) {
  const Operand py_int{DType::Int64, WeakScalar::Int}, py_float{DType::Float64, WeakScalar::Float},
      py_complex{DType::Complex128, WeakScalar::Complex};
  EXPECT_EQ(resolve("add", {{DType::Int8}, py_int}).out[0], DType::Int8);
  EXPECT_EQ(resolve("add", {{DType::Int8}, py_float}).out[0], DType::Float64);
  EXPECT_EQ(resolve("add", {{DType::Float16}, py_float}).out[0], DType::Float16);
  EXPECT_EQ(resolve("add", {{DType::Float32}, py_complex}).out[0], DType::Complex64);
  EXPECT_EQ(resolve("add", {{DType::Bool}, py_int}).out[0], DType::Int64);
  LoopChoice c = resolve("add", {{DType::UInt8}, py_int});
  EXPECT_EQ(c.weak_dtypes[1], DType::UInt8);  // -1 does not fit: the caller raises OverflowError
  EXPECT_EQ(resolve("ldexp", {{DType::Float32}, py_int}).in[1], DType::Int32);
}

TEST(UfuncResolve, SpecialResolvers) {
  EXPECT_EQ(resolve("divide", {{DType::Int8}, {DType::Int8}}).out[0], DType::Float64);
  EXPECT_EQ(resolve("sin", {{DType::Int8}}).out[0], DType::Float16);
  EXPECT_EQ(resolve("logical_and", {{DType::Int8}, {DType::Float32}}).in[0], DType::Bool);
  EXPECT_EQ(resolve("logical_and", {{DType::Float32}, {DType::Float32}}).in[0], DType::Float32);
  LoopChoice c = resolve("less", {{DType::Int8}, {DType::UInt64}});
  EXPECT_EQ(c.in[0], DType::Int64);
  EXPECT_EQ(c.in[1], DType::UInt64);
  EXPECT_EQ(resolve("absolute", {{DType::Complex64}}).out[0], DType::Float32);
}

// Note [dtype= as a signature] in ufunc_types.cpp, case by case.
TEST(UfuncResolve, DtypeArgument) {
  const Operand py_int{DType::Int64, WeakScalar::Int}, py_float{DType::Float64, WeakScalar::Float};
  LoopChoice c = resolve("absolute", {{DType::Complex64}}, DType::Float32);  // the exact loop F->f
  EXPECT_EQ(c.in[0], DType::Complex64);
  EXPECT_EQ(resolve("absolute", {{DType::Complex64}}, DType::Float64).in[0], DType::Complex128);
  EXPECT_EQ(resolve("absolute", {{DType::Int8}}, DType::Float32, Casting::Unsafe).in[0], DType::Float32);
  EXPECT_EQ(resolve("signbit", {{DType::Int16}}, DType::Bool).in[0], DType::Float32);
  EXPECT_EQ(resolve("divide", {{DType::Float64}, {DType::Float64}}, DType::Float32, Casting::Unsafe).in[0],
            DType::Float32);
  EXPECT_EQ(resolve("ldexp", {{DType::Bool}, py_int}, DType::Float32).in[1], DType::Int64);
  EXPECT_EQ(resolve("ldexp", {{DType::Float32}, {DType::UInt8}}, DType::Float32).in[1], DType::Int32);
  c = resolve("less", {{DType::Int16}, py_float}, DType::Bool);
  EXPECT_EQ(c.in[0], DType::Float64);
  EXPECT_EQ(c.weak_dtypes[1], DType::Float64);
  EXPECT_EQ(resolve("negative", {{DType::Bool}}, DType::Int8).out[0], DType::Int8);
  try {
    resolve("gcd", {py_int, {DType::Int8}}, DType::Float32);
    FAIL();
  } catch (const UfuncTypeError& e) {
    EXPECT_EQ(e.kind, K::NoLoop);
    EXPECT_STREQ(e.what(),
                 "ufunc 'gcd' did not contain a loop with signature matching types (<class "
                 "'numpy.dtypes._PyLongDType'>, <class 'numpy.dtypes.Int8DType'>) -> <class "
                 "'numpy.dtypes.Float32DType'>");
  }
  try {
    resolve("ldexp", {{DType::Float64}, {DType::Int64}}, DType::Float32, Casting::Unsafe);
    FAIL();
  } catch (const UfuncTypeError& e) {
    EXPECT_STREQ(e.what(), "No loop matching the specified signature and casting was found for ufunc ldexp");
  }
  EXPECT_THROW(resolve("subtract", {{DType::Int8}, {DType::Int8}}, DType::Bool), UfuncTypeError);
}

// Note [A lone Python scalar is strong]
TEST(UfuncResolve, LonePythonScalar) {
  const Operand py_int{DType::Int64, WeakScalar::Int};
  EXPECT_EQ(resolve("negative", {py_int}, DType::UInt8, Casting::Unsafe).weak_dtypes[0], DType::Int64);
  try {
    resolve("negative", {py_int}, DType::UInt8);
    FAIL();
  } catch (const UfuncTypeError& e) {
    EXPECT_EQ(e.kind, K::InputCasting);
    EXPECT_STREQ(e.what(),
                 "Cannot cast ufunc 'negative' input from dtype('int64') to dtype('uint8') with casting rule "
                 "'same_kind'");
  }
  EXPECT_EQ(resolve("add", {py_int, {DType::UInt8}}, DType::UInt8, Casting::No).weak_dtypes[0], DType::UInt8);
}

TEST(UfuncResolve, Errors) {
  try {
    resolve("bitwise_and", {{DType::Float64}, {DType::Float64}});
    FAIL();
  } catch (const UfuncTypeError& e) {
    EXPECT_EQ(e.kind, K::NoLoop);
    EXPECT_STREQ(e.what(),
                 "ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely "
                 "coerced to any supported types according to the casting rule ''safe''");
  }
  try {
    resolve("add", {{DType::Bool}, {DType::Bool}}, DType::Int8, Casting::No);
    FAIL();
  } catch (const UfuncTypeError& e) {
    EXPECT_EQ(e.kind, K::InputCasting);
    EXPECT_STREQ(e.what(), "Cannot cast ufunc 'add' input 0 from dtype('bool') to dtype('int8') with casting rule 'no'");
  }
  try {
    std::optional<DType> out[] = {DType::Int32};
    Operand ops[] = {{DType::Float64}, {DType::Float64}};
    resolve_loop(ufunc("add"), ops, {}, Casting::SameKind, out);
    FAIL();
  } catch (const UfuncTypeError& e) {
    EXPECT_EQ(e.kind, K::OutputCasting);
    EXPECT_STREQ(e.what(),
                 "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'");
  }
  EXPECT_THROW(resolve("subtract", {{DType::Bool}, {DType::Bool}}), UfuncTypeError);
  EXPECT_THROW(resolve("gcd", {{DType::Bool}, {DType::Bool}}), UfuncTypeError);
}

}  // namespace
}  // namespace kiln::arraycore
