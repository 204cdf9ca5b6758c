#include "transpiler/ast.h"

namespace kiln::transpiler {
namespace {

void number(Expr& e, int& next) {
  e.id = next++;
  for (auto& o : e.operands) number(*o, next);
  for (auto& k : e.keywords) number(*k.value, next);
}

void number(Block& b, int& exprs, int& stmts) {
  for (auto& s : b) {
    s->id = stmts++;
    for (auto& t : s->targets) number(*t, exprs);
    if (s->value) number(*s->value, exprs);
    if (s->msg) number(*s->msg, exprs);
    number(s->body, exprs, stmts);
    number(s->orelse, exprs, stmts);
  }
}

}  // namespace

void number_nodes(FunctionDef& f) {
  int exprs = 0, stmts = 0;
  number(f.body, exprs, stmts);
  f.num_exprs = exprs;
  f.num_stmts = stmts;
}

const char* bin_op_symbol(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::FloorDiv: return "//";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "**";
    case BinOp::LShift: return "<<";
    case BinOp::RShift: return ">>";
    case BinOp::BitAnd: return "&";
    case BinOp::BitOr: return "|";
    case BinOp::BitXor: return "^";
    case BinOp::MatMul: return "@";
  }
  return "?";
}

const char* cmp_op_symbol(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return "==";
    case CmpOp::NotEq: return "!=";
    case CmpOp::Lt: return "<";
    case CmpOp::LtE: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::GtE: return ">=";
    case CmpOp::Is: return "is";
    case CmpOp::IsNot: return "is not";
    case CmpOp::In: return "in";
    case CmpOp::NotIn: return "not in";
  }
  return "?";
}

}  // namespace kiln::transpiler
