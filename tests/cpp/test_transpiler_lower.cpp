// transpiler/lower.* and emit.cpp: the C++ the typed AST becomes.
#include <gtest/gtest.h>

#include "transpiler/lower.h"
#include "transpiler/transpile.h"
#include "tests/cpp/test_transpiler_builders.h"

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

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

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

std::string kernel_source(Block body, std::vector<std::string> params, std::vector<Type> args) {
  Module m;
  FunctionDef& k = add_function(m, "k", std::move(params), 1);
  k.body = std::move(body);
  number_nodes(k);
  return transpile(m, args).source;
}

TEST(TranspilerLower, ChainedComparisonEvaluatesOperandsOnce) {
  // x[0] = 0 < x[1] < 2
  auto cmp = make_expr(ExprKind::Compare, at(2, 11));
  cmp->operands.push_back(int_const(0));
  cmp->operands.push_back(subscript(name("x"), int_const(1)));
  cmp->operands.push_back(int_const(2));
  cmp->cmp_ops = {CmpOp::Lt, CmpOp::Lt};
  Block b;
  b.push_back(assign(subscript(name("x"), int_const(0)), std::move(cmp), 2));
  std::string src = kernel_source(std::move(b), {"x"}, {Type::array(DType::Int32, 1, ArrayStorage::Strided)});
  EXPECT_NE(src.find("[&]() -> bool {"), std::string::npos) << src;
  EXPECT_NE(src.find("int kt1 = x_(1LL);"), std::string::npos) << src;  // the middle operand, once
}

TEST(TranspilerLower, NegativeStepRangeCountsDown) {
  // for i in range(n, 0, -2): x[i] = i
  auto loop = make_stmt(StmtKind::For, at(2, 4));
  loop->targets.push_back(name("i"));
  auto r = call(builtin("builtins.range"), {});
  r->operands.push_back(name("n"));
  r->operands.push_back(int_const(0));
  auto step = make_expr(ExprKind::UnaryOp, at(2, 20));
  step->unary_op = UnaryOp::Neg;
  step->operands.push_back(int_const(2));
  r->operands.push_back(std::move(step));
  loop->value = std::move(r);
  loop->body.push_back(assign(subscript(name("x"), name("i")), name("i"), 3));
  Block b;
  b.push_back(std::move(loop));
  std::string src = kernel_source(std::move(b), {"x", "n"},
                                  {Type::array(DType::Int64, 1, ArrayStorage::Contiguous), Type::weak_scalar(DType::Int64)});
  EXPECT_NE(src.find("(kt0 > kt1); (kt0 += -2LL)"), std::string::npos) << src;
}

TEST(TranspilerLower, EmitPrintsElseIfChainsFlat) {
  CStmt inner = c_if(c_atom("b"), {c_expr_stmt(c_call("g", {}))});
  CStmt outer = c_if(c_atom("a"), {c_expr_stmt(c_call("f", {}))}, {inner});
  CModule m;
  CFunction f;
  f.qualifiers = "__device__";
  f.return_type = "void";
  f.name = "h";
  f.file = "h.py";
  f.body.push_back(outer);
  m.functions.push_back(f);
  std::string text = emit(m);
  EXPECT_NE(text.find("if (a) {\n    f();\n  } else if (b) {\n    g();\n  }"), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln::transpiler
