// Builders of transpiler ASTs for the C++ tests (no Python): spans, names,
// constants, calls, and a small summing kernel every stage's test uses.
#pragma once

#include "transpiler/ast.h"

namespace kiln::transpiler::ast_builders {

inline Span at(int line, int col, int len = 1) { return Span{line, col, line, col + len}; }

inline ExprPtr name(const std::string& n, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Name, s);
  e->text = n;
  return e;
}
inline ExprPtr int_const(long long v, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Const, s);
  e->value.kind = ConstValue::Kind::Int;
  e->value.i = v;
  return e;
}
inline ExprPtr builtin(const std::string& n, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Global, s);
  e->global.kind = GlobalValue::Kind::Builtin;
  e->global.name = n;
  return e;
}
inline ExprPtr call(ExprPtr callee, std::vector<ExprPtr> args, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Call, s);
  e->operands.push_back(std::move(callee));
  for (auto& a : args) e->operands.push_back(std::move(a));
  return e;
}
inline ExprPtr subscript(ExprPtr a, ExprPtr i, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Subscript, s);
  e->operands.push_back(std::move(a));
  e->operands.push_back(std::move(i));
  return e;
}
inline StmtPtr assign(ExprPtr target, ExprPtr value, int line) {
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
inline Module sum_kernel() {
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

}  // namespace kiln::transpiler::ast_builders

namespace kiln::transpiler::ast_builders {

inline ExprPtr binop(BinOp op, ExprPtr a, ExprPtr b, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::BinOp, s);
  e->bin_op = op;
  e->operands.push_back(std::move(a));
  e->operands.push_back(std::move(b));
  return e;
}

inline ExprPtr function_ref(int index, Span s = at(1, 0)) {
  auto e = make_expr(ExprKind::Global, s);
  e->global.kind = GlobalValue::Kind::Function;
  e->global.function = index;
  return e;
}

inline FunctionDef& add_function(Module& m, const std::string& name, std::vector<std::string> params, int line) {
  FunctionDef& f = m.functions.emplace_back();
  f.name = name;
  f.file = "m.py";
  f.first_line = 1;
  f.span = at(line, 0, 3);
  for (auto& p : params) f.params.push_back({p, at(line, 6)});
  return f;
}

}  // namespace kiln::transpiler::ast_builders
