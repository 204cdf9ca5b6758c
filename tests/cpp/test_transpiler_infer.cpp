// transpiler/infer.*: inference per signature from ASTs built directly.
#include <gtest/gtest.h>

#include <algorithm>

#include "transpiler/diagnostics.h"
#include "transpiler/infer.h"
#include "tests/cpp/test_transpiler_builders.h"

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

TEST(TranspilerInfer, LocalUnifiesAcrossLoop) {
  Module m = sum_kernel();
  TypedModule tm = infer(m, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous),
                             Type::array(DType::Float64, 1, ArrayStorage::Strided), Type::weak_scalar(DType::Int64)});
  EXPECT_EQ(tm.instances[0].locals.at("s"), Type::scalar(DType::Float32));
  EXPECT_EQ(tm.instances[0].locals.at("i"), Type::scalar(DType::Int64));
}

TEST(TranspilerInfer, UseBeforeAssignmentIsAnError) {
  Module m = sum_kernel();
  // Drop `s = 0`: `s += x[i]` may read an unassigned s.
  m.functions[0].body.erase(m.functions[0].body.begin());
  number_nodes(m.functions[0]);
  try {
    infer(m, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous), Type::array(DType::Float64, 1, ArrayStorage::Strided),
              Type::weak_scalar(DType::Int64)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Unbound);
    EXPECT_EQ(e.diag().span.line, 4);
  }
}

TEST(TranspilerInfer, ArrayThenNumberNamesBothLines) {
  Module m = sum_kernel();
  m.functions[0].body.push_back(assign(name("s", at(5, 4)), name("x", at(5, 8)), 5));
  number_nodes(m.functions[0]);
  try {
    infer(m, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous), Type::array(DType::Float64, 1, ArrayStorage::Strided),
              Type::weak_scalar(DType::Int64)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Type);
    EXPECT_NE(e.diag().message.find("line 2"), std::string::npos) << e.diag().message;
    EXPECT_NE(e.diag().message.find("line 5"), std::string::npos) << e.diag().message;
    ASSERT_EQ(e.diag().notes.size(), 1u);
  }
}

}  // namespace
}  // namespace kiln::transpiler

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

// def k(x):            def twice(v):
//     x[0] = twice(x[1]) + twice(2)      return v * 2
Module calling_module(bool recursive) {
  Module m;
  FunctionDef& k = add_function(m, "k", {"x"}, 1);
  auto c1 = call(function_ref(1), {});
  c1->operands.push_back(subscript(name("x"), int_const(1)));
  auto c2 = call(function_ref(1), {});
  c2->operands.push_back(int_const(2));
  k.body.push_back(assign(subscript(name("x"), int_const(0)), binop(BinOp::Add, std::move(c1), std::move(c2)), 2));
  number_nodes(k);
  FunctionDef& t = add_function(m, "twice", {"v"}, 5);
  auto ret = make_stmt(StmtKind::Return, at(6, 4));
  if (recursive) {
    auto c = call(function_ref(1), {});
    c->operands.push_back(name("v"));
    ret->value = std::move(c);
  } else {
    ret->value = binop(BinOp::Mul, name("v"), int_const(2));
  }
  t.body.push_back(std::move(ret));
  number_nodes(t);
  return m;
}

TEST(TranspilerInfer, DeviceFunctionsInstantiatePerSignature) {
  Module m = calling_module(false);
  TypedModule tm = infer(m, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous)});
  // twice(float32) and twice(weak int), then the kernel: callees first
  ASSERT_EQ(tm.emit_order.size(), 3u);
  EXPECT_EQ(tm.emit_order.back(), 0);
  std::vector<Type> returns;
  for (int k : tm.emit_order)
    if (k != 0) returns.push_back(tm.instances[static_cast<size_t>(k)].return_type);
  EXPECT_NE(std::find(returns.begin(), returns.end(), Type::scalar(DType::Float32)), returns.end());
  EXPECT_NE(std::find(returns.begin(), returns.end(), Type::scalar(DType::Int64)), returns.end());
}

TEST(TranspilerInfer, RecursionIsRejected) {  // a ValueError, as in CuPy
  Module m = calling_module(true);
  try {
    infer(m, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Value);
    EXPECT_EQ(e.diag().function, 1);
    EXPECT_NE(e.diag().message.find("recursion"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::transpiler

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

// def k(x):
//     while True:
//         v = x[0]
//         if v > 0: break      (or no break at all)
//     x[1] = v
Module while_true_module(bool assign_before_break) {
  Module m;
  FunctionDef& k = add_function(m, "k", {"x"}, 1);
  auto loop = make_stmt(StmtKind::While, at(2, 4));
  auto t = make_expr(ExprKind::Const, at(2, 10));
  t->value.kind = ConstValue::Kind::Bool;
  t->value.b = true;
  loop->value = std::move(t);
  auto brk = make_stmt(StmtKind::If, at(4, 8));
  auto cmp = make_expr(ExprKind::Compare, at(4, 11));
  cmp->operands.push_back(subscript(name("x"), int_const(2)));
  cmp->operands.push_back(int_const(0));
  cmp->cmp_ops = {CmpOp::Gt};
  brk->value = std::move(cmp);
  brk->body.push_back(make_stmt(StmtKind::Break, at(4, 18)));
  if (assign_before_break) loop->body.push_back(assign(name("v", at(3, 8)), subscript(name("x"), int_const(0)), 3));
  loop->body.push_back(std::move(brk));
  if (!assign_before_break) loop->body.push_back(assign(name("v", at(5, 8)), subscript(name("x"), int_const(0)), 5));
  k.body.push_back(std::move(loop));
  k.body.push_back(assign(subscript(name("x"), int_const(1)), name("v", at(6, 11)), 6));
  number_nodes(k);
  return m;
}

TEST(TranspilerInfer, WhileTrueAssignsWhatEveryBreakAssigned) {
  Module ok = while_true_module(true);
  EXPECT_NO_THROW(infer(ok, {Type::array(DType::Int32, 1, ArrayStorage::Strided)}));
  Module bad = while_true_module(false);  // the break comes before the assignment
  try {
    infer(bad, {Type::array(DType::Int32, 1, ArrayStorage::Strided)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Unbound);
    EXPECT_EQ(e.diag().span.line, 6);
  }
}

}  // namespace
}  // namespace kiln::transpiler

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

// def k(x):                 def pos(v):
//     x[0] = pos(x[1])          if v > 0:
//                                   return v
//                               (else_returns: else: return 0)
Module falls_off_module(bool else_returns) {
  Module m;
  FunctionDef& k = add_function(m, "k", {"x"}, 1);
  auto c = call(function_ref(1), {});
  c->operands.push_back(subscript(name("x"), int_const(1)));
  k.body.push_back(assign(subscript(name("x"), int_const(0)), std::move(c), 2));
  number_nodes(k);
  FunctionDef& f = add_function(m, "pos", {"v"}, 5);
  auto branch = make_stmt(StmtKind::If, at(6, 4));
  auto cmp = make_expr(ExprKind::Compare, at(6, 7));
  cmp->operands.push_back(name("v"));
  cmp->operands.push_back(int_const(0));
  cmp->cmp_ops = {CmpOp::Gt};
  branch->value = std::move(cmp);
  auto ret = make_stmt(StmtKind::Return, at(7, 8));
  ret->value = name("v");
  branch->body.push_back(std::move(ret));
  if (else_returns) {
    auto other = make_stmt(StmtKind::Return, at(9, 8));
    other->value = int_const(0);
    branch->orelse.push_back(std::move(other));
  }
  f.body.push_back(std::move(branch));
  number_nodes(f);
  return m;
}

// Note [Missing return]
TEST(TranspilerInfer, ADeviceFunctionThatCanFallOffItsEndIsRejected) {
  Module ok = falls_off_module(true);
  EXPECT_NO_THROW(infer(ok, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous)}));
  Module bad = falls_off_module(false);
  try {
    infer(bad, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Type);
    EXPECT_EQ(e.diag().function, 1);
    EXPECT_EQ(e.diag().span.line, 5);   // the def
    EXPECT_NE(e.diag().message.find("can reach its end without a `return`"), std::string::npos) << e.diag().message;
    ASSERT_EQ(e.diag().notes.size(), 1u);
    EXPECT_EQ(e.diag().notes[0].span.line, 7);
  }
}

// Note [Python integer constants]: def k(x): x[0] = <value>
Module store_module(ExprPtr value) {
  Module m;
  FunctionDef& k = add_function(m, "k", {"x"}, 1);
  k.body.push_back(assign(subscript(name("x"), int_const(0)), std::move(value), 2));
  number_nodes(k);
  return m;
}

std::string overflow_message(ExprPtr value, DType element) {
  Module m = store_module(std::move(value));
  try {
    infer(m, {Type::array(element, 1, ArrayStorage::Contiguous)});
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Overflow);
    return e.diag().message;
  }
  return "";
}

TEST(TranspilerInfer, IntegerConstantsMustFitWhereTheyGo) {
  auto pow = [](long long a, long long b) { return binop(BinOp::Pow, int_const(a), int_const(b)); };
  EXPECT_NE(overflow_message(pow(2, 100), DType::Int64).find("Python integer 1267650600228229401496703205376 out of bounds for int64"),
            std::string::npos);
  EXPECT_NE(overflow_message(binop(BinOp::LShift, int_const(1), int_const(200)), DType::Float64).find("more than 125 bits"),
            std::string::npos);
  EXPECT_NE(overflow_message(int_const(300), DType::Int8).find("Python integer 300 out of bounds for int8"), std::string::npos);
  EXPECT_NE(overflow_message(int_const(-1), DType::UInt32).find("Python integer -1 out of bounds for uint32"), std::string::npos);
  EXPECT_NE(overflow_message(binop(BinOp::Add, subscript(name("x"), int_const(1)), int_const(128)), DType::Int8)
                .find("Python integer 128 out of bounds for int8"),
            std::string::npos);
  EXPECT_EQ(overflow_message(int_const(127), DType::Int8), "");
  EXPECT_EQ(overflow_message(int_const(255), DType::UInt8), "");
  EXPECT_EQ(overflow_message(pow(2, 62), DType::Int64), "");
  EXPECT_EQ(overflow_message(int_const(300), DType::Float16), "");
  EXPECT_EQ(overflow_message(binop(BinOp::FloorDiv, pow(2, 62), int_const(0)), DType::Int64), "");  // Python raises: no check
}

}  // namespace
}  // namespace kiln::transpiler

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

ExprPtr dtype_ref(DType d) {
  auto e = make_expr(ExprKind::Global, at(1, 0));
  e->global.kind = GlobalValue::Kind::DType;
  e->global.dtype = d;
  return e;
}

ExprPtr float_const(double v) {
  auto e = make_expr(ExprKind::Const, at(1, 0));
  e->value.kind = ConstValue::Kind::Float;
  e->value.f = v;
  return e;
}

ExprPtr x_at(long long i) { return subscript(name("x"), int_const(i)); }

// def k(x): y = <value>
Module local_module(ExprPtr value) {
  Module m;
  FunctionDef& k = add_function(m, "k", {"x"}, 1);
  k.body.push_back(assign(name("y"), std::move(value), 2));
  number_nodes(k);
  return m;
}

std::string type_error(Module& m, const std::vector<Type>& args) {
  try {
    infer(m, args);
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Type);
    return e.diag().message;
  }
  return "";
}

TEST(TranspilerInfer, ShiftsOfBoolsAreInt8AsInNumPy) {
  Module m = local_module(binop(BinOp::RShift, x_at(0), x_at(1)));
  TypedModule tm = infer(m, {Type::array(DType::Bool, 1, ArrayStorage::Contiguous)});
  EXPECT_EQ(tm.instances[0].locals.at("y"), Type::scalar(DType::Int8));
}

// Note [Vectorize typing]: range gives Python ints in a vectorize body.
TEST(TranspilerInfer, VectorizeRangeGivesPythonInts) {
  std::vector<Type> args = {Type::array(DType::Float32, 1, ArrayStorage::Contiguous),
                            Type::array(DType::Float64, 1, ArrayStorage::Strided), Type::scalar(DType::UInt8)};
  Module kernel = sum_kernel();
  EXPECT_EQ(infer(kernel, args).instances[0].locals.at("i"), Type::scalar(DType::UInt8));
  Module vectorized = sum_kernel();
  vectorized.vectorize = true;
  EXPECT_EQ(infer(vectorized, args).instances[0].locals.at("i"), Type::weak_scalar(DType::Int64));
}

// Note [Conditional expressions]
TEST(TranspilerInfer, ConditionalExpressionOfTwoTypedDTypesIsATypeError) {
  auto ifexp = [](ExprPtr b) {
    auto e = make_expr(ExprKind::IfExp, at(2, 8));
    e->operands.push_back(x_at(1));
    e->operands.push_back(x_at(0));
    e->operands.push_back(std::move(b));
    return e;
  };
  std::vector<Type> args = {Type::array(DType::Float32, 1, ArrayStorage::Contiguous)};
  Module bad = local_module(ifexp(call(dtype_ref(DType::Float64), {}, at(2, 20))));
  bad.functions[0].body[0]->value->operands[2]->operands.push_back(float_const(0.0));
  number_nodes(bad.functions[0]);
  EXPECT_NE(type_error(bad, args).find("Type mismatch in conditional expression: float32 and float64"), std::string::npos);
  Module weak = local_module(ifexp(float_const(0.0)));   // a Python float takes float32
  EXPECT_EQ(infer(weak, args).instances[0].locals.at("y"), Type::scalar(DType::Float32));
}

// Note [Compile-time locals]
TEST(TranspilerInfer, CompileTimeLocalsAreAssignedAtTopLevel) {
  std::vector<Type> args = {Type::array(DType::Float32, 1, ArrayStorage::Contiguous)};
  Module top = local_module(dtype_ref(DType::Float32));
  EXPECT_EQ(infer(top, args).instances[0].locals.at("y").kind, TypeKind::DTypeObj);
  Module nested;
  FunctionDef& k = add_function(nested, "k", {"x"}, 1);
  auto branch = make_stmt(StmtKind::If, at(2, 4));
  branch->value = x_at(0);
  branch->body.push_back(assign(name("y", at(3, 8)), dtype_ref(DType::Float32), 3));
  k.body.push_back(std::move(branch));
  number_nodes(k);
  EXPECT_NE(type_error(nested, args).find("`y` is assigned the dtype float32, a compile-time value, inside an `if`"), std::string::npos);
}

TEST(TranspilerInfer, ComplexToRealCastWarns) {
  std::vector<Type> args = {Type::array(DType::Complex128, 1, ArrayStorage::Contiguous)};
  auto cast = [](DType d) { auto c = call(dtype_ref(d), {}, at(2, 8)); c->operands.push_back(x_at(0)); return c; };
  Module real = local_module(cast(DType::Float32));
  TypedModule tm = infer(real, args);
  ASSERT_EQ(tm.warnings.size(), 1u);
  EXPECT_EQ(tm.warnings[0].kind, DiagKind::ComplexWarning);
  EXPECT_EQ(tm.warnings[0].span.line, 2);
  EXPECT_NE(tm.warnings[0].message.find("discards the imaginary part (complex128 to float32)"), std::string::npos);
  Module truth = local_module(cast(DType::Bool));   // a bool: whether nonzero, no warning
  EXPECT_TRUE(infer(truth, args).warnings.empty());
}

}  // namespace
}  // namespace kiln::transpiler
