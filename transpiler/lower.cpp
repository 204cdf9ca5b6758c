#include "transpiler/lower.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "transpiler/diagnostics.h"
#include "transpiler/lower_function.h"
#include "transpiler/thrust.h"

namespace kiln::transpiler {

using lowering::float_text;
using lowering::int_value;

std::string c_literal(const ConstValue& v, DType d) {
  double x = 0, im = 0;
  long long i = 0;
  switch (v.kind) {
    case ConstValue::Kind::Bool: x = v.b; i = v.b; break;
    case ConstValue::Kind::Int: i = v.i; x = v.int_unsigned ? static_cast<double>(static_cast<uint64_t>(v.i)) : static_cast<double>(v.i); break;
    case ConstValue::Kind::Float: x = v.f; i = (std::isfinite(v.f) && std::fabs(v.f) < 9.2e18) ? static_cast<long long>(v.f) : 0; break;
    case ConstValue::Kind::Complex: x = v.f; im = v.imag; i = static_cast<long long>(v.f); break;
    default: break;
  }
  switch (d) {
    case DType::Bool: return (x != 0 || im != 0) ? "true" : "false";
    case DType::Int64:
      if (i == INT64_MIN) return "(-9223372036854775807LL - 1LL)";
      return std::to_string(i) + "LL";
    case DType::UInt64: return std::to_string(static_cast<unsigned long long>(i)) + "ULL";
    case DType::Int32:
      if (i >= -2147483647LL && i <= 2147483647LL) return std::to_string(i);
      return "static_cast<int>(" + std::to_string(i) + "LL)";
    case DType::UInt32:
      if (i >= 0 && i <= 4294967295LL) return std::to_string(i) + "u";
      return "static_cast<unsigned int>(" + std::to_string(i) + "LL)";
    case DType::Int8: case DType::Int16: case DType::UInt8: case DType::UInt16:
      return "static_cast<" + c_type(d) + ">(" + std::to_string(i) + ")";
    case DType::Float16:
    case DType::BFloat16: return c_type(d) + "(" + float_text(x, true) + ")";
    case DType::Float32: return float_text(x, true);
    case DType::Float64: return float_text(x, false);
    case DType::Complex64: return c_type(d) + "(" + float_text(x, true) + ", " + float_text(im, true) + ")";
    case DType::Complex128: return c_type(d) + "(" + float_text(x, false) + ", " + float_text(im, false) + ")";
  }
  return "0";
}

namespace lowering {

std::optional<ConstValue> FunctionLower::literal(const Expr& e) const {
  if (e.kind == ExprKind::Const && e.value.kind != ConstValue::Kind::None && e.value.kind != ConstValue::Kind::String)
    return e.value;
  if (e.kind == ExprKind::Global && e.global.kind == GlobalValue::Kind::Constant && !e.global.typed &&
      e.global.value.kind != ConstValue::Kind::String && e.global.value.kind != ConstValue::Kind::None)
    return e.global.value;
  if (e.kind == ExprKind::UnaryOp && (e.unary_op == UnaryOp::Neg || e.unary_op == UnaryOp::Pos)) {
    auto v = literal(*e.operands[0]);
    if (!v || v->kind == ConstValue::Kind::Bool || v->int_unsigned) return std::nullopt;
    if (e.unary_op == UnaryOp::Neg) {
      v->i = -v->i;
      v->f = -v->f;
      v->imag = -v->imag;
    }
    return v;
  }
  return std::nullopt;
}

CExprPtr FunctionLower::convert(CExprPtr x, const Type& from, const Type& to, bool store) {
  if (to.kind == TypeKind::Tuple && from.kind == TypeKind::Tuple) {
    if (strong(from) == strong(to)) return x;
    std::vector<CExprPtr> parts;
    for (size_t i = 0; i < to.elems.size(); ++i)
      parts.push_back(convert(c_member(x, "e" + std::to_string(i)), from.elems[i], to.elems[i], store));
    return c_init(c_type(strong(to)), std::move(parts));
  }
  if (!to.is_scalar() || !from.is_scalar() || from.dtype == to.dtype) return x;
  if (to.dtype == DType::Bool) return truth_of(x, from);
  char fk = dtype_kind(from.dtype), tk = dtype_kind(to.dtype);
  bool special = from.dtype == DType::Float16 || to.dtype == DType::Float16 || from.dtype == DType::BFloat16 ||
                 to.dtype == DType::BFloat16 || fk == 'c' || tk == 'c';
  if (store || special) return c_call("kiln::numpy_cast<" + c_type(to.dtype) + ">", {x});
  return c_cast(c_type(to.dtype), x);
}

CExprPtr FunctionLower::conv(const Expr& e, const Type& to, bool store) {
  if (to.is_scalar())
    if (auto v = literal(e)) return c_atom(c_literal(*v, to.dtype));
  return convert(expr(e), type(e), to, store);
}

CExprPtr FunctionLower::truth_of(CExprPtr x, const Type& t) {
  if (t.is_bool()) return x;
  return c_call("kiln::jit::truth", {x});
}

CExprPtr FunctionLower::truth(const Expr& e) {
  if (auto v = literal(e)) return c_atom(c_literal(*v, DType::Bool));
  return truth_of(expr(e), type(e));
}

CExprPtr FunctionLower::binop(BinOp op, CExprPtr a, CExprPtr b, const Type& t) {
  const std::string ct = c_type(t.dtype);
  bool narrow = t.is_integral() && arraycore::itemsize(t.dtype) < 4;
  auto wrap = [&](CExprPtr x) { return narrow ? c_cast(ct, x) : x; };
  switch (op) {
    case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div:
      return wrap(c_binary(bin_op_symbol(op), a, b));
    case BinOp::FloorDiv: return c_call("kiln::jit::floordiv", {a, b});
    case BinOp::Mod: return c_call("kiln::jit::pymod", {a, b});
    case BinOp::Pow:
      if (t.is_complex()) {  // NumPy's complex power (kiln/ufunc_transcendental.h)
        needs_ufunc_math_ = true;
        return c_call("kiln::ufn::power", {a, b});
      }
      return c_call(t.is_integral() ? "kiln::jit::ipow" : "kiln::jit::pow", {a, b});
    case BinOp::LShift: case BinOp::RShift: case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor:
      return c_cast(ct, c_binary(bin_op_symbol(op), a, b));
    case BinOp::MatMul: break;
  }
  return a;
}

std::vector<const Expr*> FunctionLower::index_list(const Expr& index) {
  std::vector<const Expr*> idx;
  if (index.kind == ExprKind::Tuple)
    for (const auto& o : index.operands) idx.push_back(o.get());
  else
    idx.push_back(&index);
  return idx;
}

CExprPtr FunctionLower::element(const Expr& array, const std::vector<const Expr*>& index) {
  const Type& at = type(array);
  CExprPtr a = expr(array);
  if (at.storage == ArrayStorage::Raw) {
    if (!at.elems.empty()) return c_unary("&", c_index(a, expr(*index[0])));  // Note [kiln.jit.cub]: a pointer
    return c_index(a, expr(*index[0]));
  }
  if (static_cast<int>(index.size()) < at.ndim) {  // a view of the remaining axes: kiln::jit::take
    for (const Expr* i : index) a = c_call("kiln::jit::take", {a, conv(*i, Type::scalar(DType::Int64))});
    return a;
  }
  std::vector<CExprPtr> args;
  for (const Expr* i : index) args.push_back(expr(*i));
  return c_call(emit_expr(*a), std::move(args));
}

// The byte stride of axis d: kept by strided arrays, implied by the shape of
// C-contiguous ones, the itemsize for shared and local memory.
CExprPtr FunctionLower::stride(CExprPtr a, const Type& at, int d) {
  const std::string item = std::to_string(arraycore::itemsize(at.dtype)) + "LL";
  if (at.storage == ArrayStorage::Strided) return c_index(c_member(a, "strides"), c_atom(std::to_string(d)));
  CExprPtr s = c_atom(item);
  if (at.storage == ArrayStorage::Contiguous)
    for (int k = d + 1; k < at.ndim; ++k) s = c_binary("*", s, c_index(c_member(a, "shape"), c_atom(std::to_string(k))));
  return s;
}

CExprPtr FunctionLower::expr(const Expr& e) {
  const Type& t = type(e);
  switch (e.kind) {
    case ExprKind::Name: return c_atom(local(e.text));
    case ExprKind::Const: return c_atom(c_literal(e.value, strong(t).dtype));
    case ExprKind::Global:
      if (e.global.kind == GlobalValue::Kind::Constant) return c_atom(c_literal(e.global.value, t.dtype));
      if (e.global.kind == GlobalValue::Kind::Builtin)
        if (const BuiltinInfo* b = find_builtin(e.global.name)) return c_atom(std::string(b->spelling));
      return c_atom("/* " + e.global.name + " */");
    case ExprKind::Attribute: {
      const Expr& obj = *e.operands[0];
      const Type& ot = type(obj);
      if (ot.kind == TypeKind::Builtin) {
        const BuiltinInfo* b = find_builtin(ot.name + "." + e.text);
        return c_atom(b ? std::string(b->spelling) : "/* " + ot.name + "." + e.text + " */");
      }
      if (ot.is_array()) {
        CExprPtr a = expr(obj);
        if (e.text == "ndim") return c_atom(std::to_string(ot.ndim) + "LL");
        if (e.text == "size") {
          if (ot.storage == ArrayStorage::Raw) return c_atom(std::to_string(ot.size) + "LL");
          CExprPtr s = c_atom("1LL");
          for (int d = 0; d < ot.ndim; ++d) {
            CExprPtr dim = c_index(c_member(a, "shape"), c_atom(std::to_string(d)));
            s = d == 0 ? dim : c_binary("*", s, dim);
          }
          return s;
        }
        if (e.text == "strides") {
          std::vector<CExprPtr> parts;
          for (int d = 0; d < std::max(ot.ndim, 1); ++d) parts.push_back(stride(a, ot, d));
          if (ot.ndim == 0) parts.clear();
          return c_init(c_type(strong(t)), std::move(parts));
        }
        if (e.text == "shape") {
          std::vector<CExprPtr> parts;
          if (ot.storage == ArrayStorage::Raw) parts.push_back(c_atom(std::to_string(ot.size) + "LL"));
          else
            for (int d = 0; d < ot.ndim; ++d) parts.push_back(c_index(c_member(a, "shape"), c_atom(std::to_string(d))));
          return c_init(c_type(strong(t)), std::move(parts));
        }
        return c_atom("/* dtype */");
      }
      if (is_dim3(ot)) return c_member(expr(obj), "e" + std::to_string(e.text[0] - 'x'));
      if (ot.is_complex()) return c_call(emit_expr(*c_member(expr(obj), e.text)), {});
      if (e.text == "imag") return c_atom(c_literal(int_value(0), strong(t).dtype));
      return expr(obj);
    }
    case ExprKind::Subscript: {
      const Expr& obj = *e.operands[0];
      const Type& ot = type(obj);
      if (ot.is_array()) return element(obj, index_list(*e.operands[1]));
      if (ot.kind == TypeKind::Iterator) return c_index(expr(obj), expr(*e.operands[1]));
      long long n = static_cast<long long>(ot.elems.size());
      long long k = *const_int(*e.operands[1]);
      if (k < 0) k += n;
      if (obj.kind == ExprKind::Attribute && obj.text == "shape" && type(*obj.operands[0]).is_array() &&
          type(*obj.operands[0]).storage != ArrayStorage::Raw)
        return c_index(c_member(expr(*obj.operands[0]), "shape"), c_atom(std::to_string(k)));
      if (obj.kind == ExprKind::Attribute && obj.text == "strides" && type(*obj.operands[0]).is_array())
        return stride(expr(*obj.operands[0]), type(*obj.operands[0]), static_cast<int>(k));
      return c_member(expr(obj), "e" + std::to_string(k));
    }
    case ExprKind::Call: return call(e);
    case ExprKind::BinOp: {
      if (t.kind == TypeKind::Iterator) return c_binary(bin_op_symbol(e.bin_op), expr(*e.operands[0]), expr(*e.operands[1]));
      if (e.bin_op == BinOp::Sub && iterator_of(type(*e.operands[0])).valid())   // iterator - iterator
        return c_cast("long long", c_binary("-", expr(*e.operands[0]), expr(*e.operands[1])));
      // x ** 2 of a float is x * x: one correctly rounded product (CUDA's pow
      // is only within ulps), as NumPy's square.
      auto two = literal(*e.operands[1]);
      if (e.bin_op == BinOp::Pow && (t.is_float() || t.is_complex()) && two &&
          two->kind == ConstValue::Kind::Int && two->i == 2 && !two->int_unsigned) {
        std::string v = tmp();
        return c_lambda(c_type(t.dtype), {c_decl(c_type(t.dtype), v, conv(*e.operands[0], t)),
                                           c_return(c_binary("*", c_atom(v), c_atom(v)))});
      }
      return binop(e.bin_op, conv(*e.operands[0], t), conv(*e.operands[1], t), t);
    }
    case ExprKind::UnaryOp: {
      const Expr& a = *e.operands[0];
      switch (e.unary_op) {
        case UnaryOp::Not: return c_unary("!", truth(a));
        case UnaryOp::Pos: return conv(a, t);
        case UnaryOp::Neg: {
          if (auto v = literal(e)) return c_atom(c_literal(*v, strong(t).dtype));
          CExprPtr x = c_unary("-", conv(a, t));
          return t.is_integral() && arraycore::itemsize(t.dtype) < 4 ? c_cast(c_type(t.dtype), x) : x;
        }
        case UnaryOp::Invert:
          if (t.is_bool()) return c_unary("!", conv(a, t));
          return c_cast(c_type(t.dtype), c_unary("~", conv(a, t)));
      }
      break;
    }
    case ExprKind::BoolOp: {
      if (t.is_bool()) {
        CExprPtr acc;
        for (const auto& o : e.operands) {
          CExprPtr x = truth(*o);
          acc = acc ? c_binary(e.bool_op == BoolOp::And ? "&&" : "||", acc, x) : x;
        }
        return acc;
      }
      // Note [Python semantics in C++]: the first operand that decides, converted.
      std::string v = tmp();
      std::string ct = c_type(strong(t));
      std::vector<CStmt> body;
      for (size_t i = 0; i < e.operands.size(); ++i) {
        CExprPtr x = conv(*e.operands[i], t);
        if (i == 0) body.push_back(c_decl(ct, v, x));
        else body.push_back(c_assign(c_atom(v), x));
        if (i + 1 < e.operands.size()) {
          CExprPtr test = truth_of(c_atom(v), t);
          if (e.bool_op == BoolOp::And) test = c_unary("!", test);
          body.push_back(c_if(test, {c_return(c_atom(v))}));
        }
      }
      body.push_back(c_return(c_atom(v)));
      return c_lambda(ct, std::move(body));
    }
    case ExprKind::Compare: return compare(e);
    case ExprKind::IfExp:
      return c_ternary(truth(*e.operands[0]), conv(*e.operands[1], t), conv(*e.operands[2], t));
    case ExprKind::Tuple: {
      Type st = strong(t);
      std::vector<CExprPtr> parts;
      for (size_t i = 0; i < e.operands.size(); ++i) parts.push_back(conv(*e.operands[i], st.elems[i]));
      return c_init(c_type(st), std::move(parts));
    }
    case ExprKind::Unsupported: break;
  }
  fail(DiagKind::Unsupported, e.span, "cannot lower this expression");
}

CExprPtr FunctionLower::compare(const Expr& e) {
  // A weak operand that is not a literal (a Python int argument, say) compares
  // by value: as its strong type, so `tid < n` with uint32 tid and n = -1 is false.
  auto pair = [&](CExprPtr a, Type ta, const Expr* ea, CExprPtr b, Type tb, const Expr* eb, CmpOp op) {
    if (ta.weak && !(ea && literal(*ea))) ta = strong(ta);
    if (tb.weak && !(eb && literal(*eb))) tb = strong(tb);
    Type p = promote(ta, tb);
    if (p.is_bool() && op != CmpOp::Eq && op != CmpOp::NotEq) p = Type::scalar(DType::Int32);
    CExprPtr ca = ea ? conv(*ea, p) : convert(a, ta, p);
    CExprPtr cb = eb ? conv(*eb, p) : convert(b, tb, p);
    return c_binary(cmp_op_symbol(op), ca, cb);
  };
  if (e.cmp_ops.size() == 1)
    return pair(nullptr, type(*e.operands[0]), e.operands[0].get(), nullptr, type(*e.operands[1]), e.operands[1].get(), e.cmp_ops[0]);
  // a < b < c: each operand evaluated once, left to right, stopping at the first false.
  std::vector<CStmt> body;
  std::vector<std::string> names;
  for (size_t i = 0; i < e.operands.size(); ++i) {
    const Expr& o = *e.operands[i];
    names.push_back(tmp());
    body.push_back(c_decl(c_type(strong(type(o))), names.back(), expr(o)));
    if (i == 0) continue;
    CExprPtr test = pair(c_atom(names[i - 1]), strong(type(*e.operands[i - 1])), nullptr, c_atom(names[i]),
                         strong(type(o)), nullptr, e.cmp_ops[i - 1]);
    body.push_back(c_if(c_unary("!", test), {c_return(c_atom("false"))}));
  }
  body.push_back(c_return(c_atom("true")));
  return c_lambda("bool", std::move(body));
}

CExprPtr FunctionLower::call(const Expr& e) {
  const Expr& callee = *e.operands[0];
  const Type& ct = type(callee);
  const Type& t = type(e);
  switch (ct.kind) {
    case TypeKind::Builtin: return builtin_call(*find_builtin(ct.name), e);
    case TypeKind::Class:  // a collective on its TempStorage: the same pointer (Note [kiln.jit.cub])
      needs_cub_ = true;
      return expr(*e.operands[1]);
    case TypeKind::DTypeObj:
      if (t.is_bool()) return truth(*e.operands[1]);
      if (ct.dtype != t.dtype) {  // a float16 cast in a vectorize body, carried in float32 (Note [Vectorize typing])
        const Expr& arg = *e.operands[1];
        return c_cast(c_type(t.dtype), convert(expr(arg), type(arg), Type::scalar(ct.dtype), /*store=*/true));
      }
      return conv(*e.operands[1], t, /*store=*/true);
    case TypeKind::Function: {
      const Instance& callee_inst = tm_.instances[static_cast<size_t>(inst_.call_instance[static_cast<size_t>(e.id)])];
      std::vector<CExprPtr> args;
      for (size_t i = 1; i < e.operands.size(); ++i) args.push_back(conv(*e.operands[i], callee_inst.param_types[i - 1]));
      return c_call(callee_inst.c_name, std::move(args));
    }
    default: break;
  }
  fail(DiagKind::Type, e.span, "not callable");
}

// ---------------------------------------------------------------- statements

std::string FunctionLower::source_text(const Span& s) const {
  int i = s.line - f_.first_line;
  if (i < 0 || i >= static_cast<int>(f_.lines.size())) return "";
  const std::string& line = f_.lines[static_cast<size_t>(i)];
  if (s.end_line == s.line && s.end_col > s.col && s.end_col <= static_cast<int>(line.size()))
    return line.substr(static_cast<size_t>(s.col), static_cast<size_t>(s.end_col - s.col));
  return trim(line);
}

std::vector<CStmt> FunctionLower::block(const Block& b) {
  std::vector<CStmt> out;
  for (const auto& s : b) stmt(*s, out);
  return out;
}

void FunctionLower::assign(const Expr& target, const Expr* src, CExprPtr value, const Type& vt, std::vector<CStmt>& out) {
  switch (target.kind) {
    case ExprKind::Name: {
      const Type& lt = inst_.locals.at(target.text);
      if (!is_value_kind(lt)) return;  // a compile-time value (a builtin, dtype or function)
      CExprPtr v = src && lt.is_scalar() ? conv(*src, lt) : convert(value ? value : expr(*src), vt, lt);
      out.push_back(c_assign(c_atom(local(target.text)), v));
      return;
    }
    case ExprKind::Subscript: {
      const Expr& obj = *target.operands[0];
      CExprPtr elem = element(obj, index_list(*target.operands[1]));
      Type et = Type::scalar(type(obj).dtype);
      CExprPtr v = src ? conv(*src, et, /*store=*/true) : convert(value, vt, et, /*store=*/true);
      out.push_back(c_assign(elem, v));
      return;
    }
    case ExprKind::Tuple: {
      // All right-hand values are computed before any target is assigned (a, b = b, a).
      if (src && src->kind == ExprKind::Tuple && src->operands.size() == target.operands.size()) {
        std::vector<std::pair<const Expr*, CExprPtr>> vals;
        for (const auto& o : src->operands) {
          if (literal(*o)) {
            vals.push_back({o.get(), nullptr});
            continue;
          }
          std::string v = tmp();
          out.push_back(c_decl(c_type(strong(type(*o))), v, expr(*o)));
          vals.push_back({nullptr, c_atom(v)});
        }
        for (size_t i = 0; i < target.operands.size(); ++i)
          assign(*target.operands[i], vals[i].first, vals[i].second, strong(type(*src->operands[i])), out);
        return;
      }
      std::string v = tmp();
      out.push_back(c_decl(c_type(strong(vt)), v, value ? value : expr(*src)));
      for (size_t i = 0; i < target.operands.size(); ++i)
        assign(*target.operands[i], nullptr, c_member(c_atom(v), "e" + std::to_string(i)), strong(vt.elems[i]), out);
      return;
    }
    default:
      fail(DiagKind::Unsupported, target.span, "cannot assign to this expression in a kernel");
  }
}

void FunctionLower::for_range(const Stmt& s, std::vector<CStmt>& out) {
  const Expr& call = *s.value;
  const Type& rt = type(call);
  Type it = Type::scalar(rt.dtype);
  std::string ct = c_type(rt.dtype);
  size_t n = call.operands.size() - 1;
  const Expr* start = n >= 2 ? call.operands[1].get() : nullptr;
  const Expr* stop = n >= 2 ? call.operands[2].get() : call.operands[1].get();
  const Expr* step = n == 3 ? call.operands[3].get() : nullptr;
  std::string pragma;
  for (const auto& k : call.keywords) {
    if (k.name != "unroll") continue;
    const Expr& u = *k.value;
    if (auto lit = literal(u); lit && lit->kind == ConstValue::Kind::Bool) {   // True, or a captured bool
      pragma = lit->b ? "#pragma unroll" : "#pragma unroll(1)";
    } else if (auto v = const_int(u); v && *v > 0) {
      pragma = "#pragma unroll(" + std::to_string(*v) + ")";
    } else {
      fail(DiagKind::Value, u.span, "unroll= takes True, False or a positive constant integer");
    }
  }
  std::vector<CStmt> pre;
  std::string i = tmp(), hi = tmp(), st;
  pre.push_back(c_decl("const " + ct, hi, conv(*stop, it)));
  std::optional<long long> step_value = step ? const_int(*step) : std::optional<long long>(1);
  CExprPtr cond, inc;
  if (step_value && *step_value > 0) {
    cond = c_binary("<", c_atom(i), c_atom(hi));
    inc = *step_value == 1 ? c_unary("++", c_atom(i)) : c_binary("+=", c_atom(i), c_atom(c_literal(int_value(*step_value), rt.dtype)));
  } else if (step_value && *step_value < 0) {
    cond = c_binary(">", c_atom(i), c_atom(hi));
    inc = c_binary("+=", c_atom(i), c_atom(c_literal(int_value(*step_value), rt.dtype)));
  } else if (step_value) {
    fail(DiagKind::Value, step->span, "range() step must not be zero");
  } else {
    st = tmp();
    pre.push_back(c_decl("const " + ct, st, conv(*step, it)));
    // A run-time step: up while positive, down while negative, no iterations at zero.
    cond = c_ternary(c_binary(">", c_atom(st), c_atom(c_literal(int_value(0), rt.dtype))),
                     c_binary("<", c_atom(i), c_atom(hi)),
                     c_binary("&&", c_binary("<", c_atom(st), c_atom(c_literal(int_value(0), rt.dtype))),
                              c_binary(">", c_atom(i), c_atom(hi))));
    inc = c_binary("+=", c_atom(i), c_atom(st));
  }
  std::vector<CStmt> body;
  const Expr& target = *s.targets[0];
  body.push_back(c_assign(c_atom(local(target.text)), convert(c_atom(i), it, inst_.locals.at(target.text))));
  for (auto& b : block(s.body)) body.push_back(std::move(b));
  std::vector<CStmt> init = {c_decl(ct, i, start ? conv(*start, it) : c_atom(c_literal(int_value(0), rt.dtype)))};
  pre.push_back(c_for(std::move(init), cond, inc, std::move(body), pragma));
  out.push_back(c_block(std::move(pre)));
}

void FunctionLower::stmt(const Stmt& s, std::vector<CStmt>& out) {
  if (s.kind == StmtKind::If && s.value->kind == ExprKind::Const && s.value->value.kind == ConstValue::Kind::Bool) {
    // An `if` on a constant (Note [Compile-time calls]): only the branch taken, in a block of its own.
    out.push_back(c_block(block(s.value->value.b ? s.body : s.orelse)));
    return;
  }
  int li = s.span.line - f_.first_line;
  std::string text = li >= 0 && li < static_cast<int>(f_.lines.size()) ? trim(f_.lines[static_cast<size_t>(li)]) : "";
  out.push_back(c_line(s.span.line, text));
  switch (s.kind) {
    case StmtKind::Assign: {
      const Expr& v = *s.value;
      const Type& vt = type(v);
      if (!is_value_kind(vt) && vt.kind != TypeKind::Array) return;
      if (s.targets.size() == 1) {
        bool raw = v.kind == ExprKind::Call && vt.is_array();
        assign(*s.targets[0], raw ? nullptr : &v, raw ? expr(v) : nullptr, vt, out);
        return;
      }
      std::string tv = tmp();
      out.push_back(c_decl(c_type(strong(vt)), tv, expr(v)));
      for (const auto& t : s.targets) assign(*t, nullptr, c_atom(tv), strong(vt), out);
      return;
    }
    case StmtKind::AugAssign: {
      const Expr& t = *s.targets[0];
      const Type& r = inst_.stmt_types[static_cast<size_t>(s.id)];
      if (t.kind == ExprKind::Name) {
        const Type& lt = inst_.locals.at(t.text);
        CExprPtr cur = convert(c_atom(local(t.text)), lt, r);
        out.push_back(c_assign(c_atom(local(t.text)), convert(binop(s.op, cur, conv(*s.value, r), r), r, lt)));
        return;
      }
      const Expr& obj = *t.operands[0];
      Type et = Type::scalar(type(obj).dtype);
      std::string ref = tmp();
      std::vector<CStmt> body;
      body.push_back(c_decl(c_type(et) + "&", ref, element(obj, index_list(*t.operands[1]))));
      CExprPtr cur = convert(c_atom(ref), et, r);
      body.push_back(c_assign(c_atom(ref), convert(binop(s.op, cur, conv(*s.value, r), r), r, et, /*store=*/true)));
      out.push_back(c_block(std::move(body)));
      return;
    }
    case StmtKind::ExprStmt: {
      const Expr& v = *s.value;
      if (v.kind == ExprKind::Call) {
        const Type& ct = type(*v.operands[0]);
        if (ct.kind == TypeKind::Builtin) {
          const BuiltinInfo* b = find_builtin(ct.name);
          if (b && (b->rule == BuiltinRule::GroupCtor || b->rule == BuiltinRule::SharedMemory ||
                    b->rule == BuiltinRule::LocalMemory))
            return;
        }
        out.push_back(c_expr_stmt(expr(v)));
        return;
      }
      if (is_value_kind(type(v)) && !literal(v)) out.push_back(c_expr_stmt(c_cast("void", expr(v))));
      return;
    }
    case StmtKind::If:
      out.push_back(c_if(truth(*s.value), block(s.body), block(s.orelse)));
      return;
    case StmtKind::While:
      out.push_back(c_while(truth(*s.value), block(s.body)));
      return;
    case StmtKind::For:
      for_range(s, out);
      return;
    case StmtKind::Break: out.push_back(c_simple(CStmt::Kind::Break)); return;
    case StmtKind::Continue: out.push_back(c_simple(CStmt::Kind::Continue)); return;
    case StmtKind::Pass: return;
    case StmtKind::Return:
      if (kernel_ || !s.value || inst_.return_type.kind == TypeKind::Void) {
        out.push_back(c_return());
        return;
      }
      out.push_back(c_return(conv(*s.value, inst_.return_type)));
      return;
    case StmtKind::Assert: {
      std::string what = s.msg ? s.msg->value.s : source_text(s.value->span);
      out.push_back(c_if(c_unary("!", truth(*s.value)),
                         {c_expr_stmt(c_call("kiln::jit::assert_fail",
                                             {c_atom(quoted(what)), c_atom(quoted(f_.file)), c_atom(std::to_string(s.span.line) + "u")}))}));
      return;
    }
    case StmtKind::Unsupported: break;
  }
  fail(DiagKind::Unsupported, s.span, "cannot lower this statement");
}

CFunction FunctionLower::run() {
  CFunction cf;
  cf.qualifiers = kernel_ ? "extern \"C\" __global__" : "__device__";
  cf.return_type = kernel_ ? "void" : c_type(inst_.return_type);
  cf.name = inst_.c_name;
  cf.line = f_.span.line;
  cf.file = f_.file;
  std::vector<CStmt> prologue;
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const std::string& n = f_.params[i].name;
    const Type& pt = inst_.param_types[i];
    const Type& lt = inst_.locals.at(n);
    if (strong(pt) == strong(lt)) {
      cf.params.emplace_back(c_type(strong(pt)), local(n));
    } else {  // Note [Names in generated code]: the parameter widened
      cf.params.emplace_back(c_type(strong(pt)), n + "_in");
      prologue.push_back(c_decl(c_type(strong(lt)), local(n), convert(c_atom(n + "_in"), pt, lt)));
    }
  }
  for (const auto& n : inst_.local_order) {
    bool is_param = false;
    for (const auto& p : f_.params) is_param = is_param || p.name == n;
    if (is_param) continue;
    const Type& lt = inst_.locals.at(n);
    if (!is_value_kind(lt)) continue;
    prologue.push_back(c_decl(c_type(strong(lt)), local(n)));
  }
  std::vector<CStmt> body = block(f_.body);
  cf.body = std::move(hoisted_);
  for (auto& s : prologue) cf.body.push_back(std::move(s));
  for (auto& s : body) cf.body.push_back(std::move(s));
  return cf;
}

}  // namespace lowering

CModule lower(const TypedModule& tm) {
  CModule cm;
  cm.includes = {"kiln/jit.h"};
  for (int k : tm.emit_order) {
    try {
      lowering::FunctionLower fl(tm, k);
      cm.functions.push_back(fl.run());
      for (auto [needed, header] : {std::pair{fl.needs_ufunc_math(), "kiln/ufunc_math.h"}, std::pair{fl.needs_cub(), "kiln/jit_cub.h"},
                                    std::pair{fl.needs_thrust(), "kiln/jit_thrust.h"}})
        if (needed && std::find(cm.includes.begin(), cm.includes.end(), header) == cm.includes.end()) cm.includes.push_back(header);
    } catch (TranspileError& e) {
      if (e.diag().function < 0) e.diag().function = tm.instances[static_cast<size_t>(k)].function;
      throw;
    }
  }
  return cm;
}

}  // namespace kiln::transpiler
