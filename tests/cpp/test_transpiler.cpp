// The transpiler's stages without Python: ASTs built directly, then types,
// inference, diagnostics, lowering and emission checked.
#include <gtest/gtest.h>

#include "transpiler/builtins.h"
#include "transpiler/diagnostics.h"
#include "transpiler/infer.h"
#include "transpiler/lower.h"
#include "transpiler/transpile.h"

namespace kiln::transpiler {
namespace {

Span at(int line, int col, int len = 1) { return Span{line, col, line, col + len}; }

ExprPtr name(const std::string& n, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Name, s);
  e->text = n;
  return e;
}
ExprPtr int_const(long long v, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Const, s);
  e->value.kind = ConstValue::Kind::Int;
  e->value.i = v;
  return e;
}
ExprPtr builtin(const std::string& n, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Global, s);
  e->global.kind = GlobalValue::Kind::Builtin;
  e->global.name = n;
  return e;
}
ExprPtr call(ExprPtr callee, std::vector<ExprPtr> args, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Call, s);
  e->operands.push_back(std::move(callee));
  for (auto& a : args) e->operands.push_back(std::move(a));
  return e;
}
ExprPtr subscript(ExprPtr a, ExprPtr i, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Subscript, s);
  e->operands.push_back(std::move(a));
  e->operands.push_back(std::move(i));
  return e;
}
StmtPtr assign(ExprPtr target, ExprPtr value, int line) {
  auto s = make_stmt(StmtKind::Assign, at(line, 4));
  s->targets.push_back(std::move(target));
  s->value = std::move(value);
  return s;
}

// def k(x, y, n):              line 1
//     s = 0                    line 2
//     for i in range(n):       line 3
//         s += x[i]            line 4
//     y[0] = s                 line 5
Module sum_kernel() {
  Module m;
  FunctionDef& f = m.functions.emplace_back();
  f.name = "k";
  f.file = "k.py";
  f.first_line = 1;
  f.lines = {"def k(x, y, n):", "    s = 0", "    for i in range(n):", "        s += x[i]", "    y[0] = s"};
  f.span = at(1, 0, 3);
  f.params = {{"x", at(1, 6)}, {"y", at(1, 9)}, {"n", at(1, 12)}};
  f.body.push_back(assign(name("s", at(2, 4)), int_const(0, at(2, 8)), 2));
  auto loop = make_stmt(StmtKind::For, at(3, 4));
  loop->targets.push_back(name("i", at(3, 8)));
  loop->value = call(builtin("builtins.range", at(3, 13, 5)), {}, at(3, 13, 8));
  loop->value->operands.push_back(name("n", at(3, 19)));
  auto aug = make_stmt(StmtKind::AugAssign, at(4, 8));
  aug->targets.push_back(name("s", at(4, 8)));
  aug->op = BinOp::Add;
  aug->value = subscript(name("x", at(4, 13)), name("i", at(4, 15)), at(4, 13, 4));
  loop->body.push_back(std::move(aug));
  f.body.push_back(std::move(loop));
  f.body.push_back(assign(subscript(name("y", at(5, 4)), int_const(0, at(5, 6)), at(5, 4, 4)), name("s", at(5, 11)), 5));
  number_nodes(f);
  return m;
}

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
}

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

TEST(TranspilerDiagnostics, RenderShowsLineAndCaret) {
  Module m = sum_kernel();
  Diagnostic d{DiagKind::Type, at(4, 13, 4), "bad", {}, 0};
  EXPECT_EQ(render(d, m), "k.py:4:14: bad\n            s += x[i]\n                 ^~~~");
}

TEST(TranspilerLower, EmitsLineDirectivesAndPythonSemantics) {
  Module m = sum_kernel();
  TranspileResult r = transpile(m, {Type::array(DType::Float32, 1, ArrayStorage::Contiguous),
                                    Type::array(DType::Float64, 1, ArrayStorage::Strided), Type::weak_scalar(DType::Int64)});
  EXPECT_EQ(r.kernel_name, "kiln_jit_k");
  EXPECT_NE(r.source.find("#include <kiln/jit.h>"), std::string::npos);
  EXPECT_NE(r.source.find("#line 4 \"k.py\""), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("// line 4: s += x[i]"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("float s_;"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("s_ = 0.0f;"), std::string::npos) << r.source;  // the weak 0 as float32
  EXPECT_NE(r.source.find("kiln::jit::CArray<float, 1> x_"), std::string::npos) << r.source;
  EXPECT_EQ(param_size(Type::array(DType::Float32, 2, ArrayStorage::Strided)), 40u);
  EXPECT_EQ(param_size(Type::array(DType::Float32, 0, ArrayStorage::Contiguous)), 16u);
}

TEST(TranspilerLower, LiteralsPerDtype) {
  ConstValue v;
  v.kind = ConstValue::Kind::Int;
  v.i = 2;
  EXPECT_EQ(c_literal(v, DType::Float32), "2.0f");
  EXPECT_EQ(c_literal(v, DType::Int64), "2LL");
  EXPECT_EQ(c_literal(v, DType::UInt32), "2u");
  v.kind = ConstValue::Kind::Float;
  v.f = 0.5;
  EXPECT_EQ(c_literal(v, DType::Float64), "0.5");
  EXPECT_EQ(c_literal(v, DType::Float16), "kiln::half(0.5f)");
}

}  // namespace
}  // namespace kiln::transpiler
