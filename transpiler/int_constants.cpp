// Note [Python integer constants] in int_constants.h.
#include "transpiler/int_constants.h"

#include <algorithm>

#include "transpiler/diagnostics.h"

namespace kiln::transpiler {
namespace {

using i128 = __int128;
constexpr i128 kHuge = i128(1) << 126;  // beyond this the value is only "huge"

ExactInt huge() { return ExactInt{true, 0}; }
ExactInt exact(i128 v) { return (v >= kHuge || v <= -kHuge) ? huge() : ExactInt{false, v}; }

std::optional<ExactInt> of_const(const ConstValue& v) {
  if (v.kind == ConstValue::Kind::Bool) return ExactInt{false, v.b ? 1 : 0};
  if (v.kind != ConstValue::Kind::Int) return std::nullopt;
  if (v.int_unsigned) return ExactInt{false, i128(static_cast<uint64_t>(v.i))};
  return ExactInt{false, i128(v.i)};
}

// Floor division and modulo with Python's signs.
i128 floor_div(i128 a, i128 b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }
i128 py_mod(i128 a, i128 b) { return a - floor_div(a, b) * b; }

std::optional<ExactInt> binary(BinOp op, const ExactInt& a, const ExactInt& b) {
  const bool any_huge = a.huge || b.huge;
  switch (op) {
    case BinOp::Add: case BinOp::Sub: case BinOp::Mul: {
      if (any_huge) {
        if (op == BinOp::Mul && ((!a.huge && a.value == 0) || (!b.huge && b.value == 0))) return ExactInt{};
        return huge();
      }
      i128 r;
      bool overflow = op == BinOp::Add   ? __builtin_add_overflow(a.value, b.value, &r)
                      : op == BinOp::Sub ? __builtin_sub_overflow(a.value, b.value, &r)
                                         : __builtin_mul_overflow(a.value, b.value, &r);
      return overflow ? huge() : exact(r);
    }
    case BinOp::FloorDiv: case BinOp::Mod:
      if (!b.huge && b.value == 0) return std::nullopt;  // ZeroDivisionError in Python
      if (any_huge) return std::nullopt;                  // exact but unknown: no check
      return exact(op == BinOp::FloorDiv ? floor_div(a.value, b.value) : py_mod(a.value, b.value));
    case BinOp::Pow: {
      if (b.huge || b.value < 0) return std::nullopt;  // a float in Python
      if (a.huge) return b.value == 0 ? ExactInt{false, 1} : huge();
      i128 r = 1;
      for (i128 k = 0; k < b.value; ++k) {
        if (__builtin_mul_overflow(r, a.value, &r) || r >= kHuge || r <= -kHuge) return huge();
        if (r == 0 || r == 1) break;               // 0**n, 1**n
        if (r == -1 && a.value == -1) { r = (b.value % 2) ? -1 : 1; break; }
      }
      return exact(r);
    }
    case BinOp::LShift:
      if (b.huge || b.value < 0) return std::nullopt;  // ValueError in Python
      if (a.huge) return huge();
      if (a.value == 0) return ExactInt{};
      if (b.value >= 126) return huge();
      {
        i128 r = a.value * (i128(1) << static_cast<int>(b.value));
        if (r / (i128(1) << static_cast<int>(b.value)) != a.value) return huge();
        return exact(r);
      }
    case BinOp::RShift:
      if (b.huge || b.value < 0) return std::nullopt;
      if (a.huge) return std::nullopt;
      return exact(b.value >= 127 ? (a.value < 0 ? -1 : 0) : a.value >> static_cast<int>(b.value));
    case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor:
      if (any_huge) return std::nullopt;
      return exact(op == BinOp::BitAnd ? (a.value & b.value) : op == BinOp::BitOr ? (a.value | b.value)
                                                                                  : (a.value ^ b.value));
    default:
      return std::nullopt;  // / gives a float; @ is refused elsewhere
  }
}

std::string decimal(i128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string s;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    s.push_back(static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  }
  if (negative) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

bool fits(const ExactInt& v, arraycore::DType d) {
  if (v.huge) return false;
  const auto& info = arraycore::dtype_info(d);
  const int bits = 8 * info.itemsize;
  if (info.kind == 'u') return v.value >= 0 && v.value < (i128(1) << bits);
  return v.value >= -(i128(1) << (bits - 1)) && v.value < (i128(1) << (bits - 1));
}

[[noreturn]] void out_of_bounds(const Expr& e, const ExactInt& v, arraycore::DType d, const std::string& why) {
  fail(DiagKind::Overflow, e.span,
       "Python integer " + (v.huge ? std::string() : decimal(v.value) + " ") + "out of bounds for " +
           std::string(arraycore::dtype_info(d).name) + (v.huge ? " (it has more than 125 bits)" : "") + why);
}

}  // namespace

std::optional<ExactInt> exact_int(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Const: return of_const(e.value);
    case ExprKind::Global:
      if (e.global.kind != GlobalValue::Kind::Constant || e.global.typed) return std::nullopt;
      return of_const(e.global.value);
    case ExprKind::UnaryOp: {
      auto v = exact_int(*e.operands[0]);
      if (!v) return std::nullopt;
      if (e.unary_op == UnaryOp::Pos) return v;
      if (v->huge) return (e.unary_op == UnaryOp::Neg || e.unary_op == UnaryOp::Invert) ? v : std::nullopt;
      if (e.unary_op == UnaryOp::Neg) return exact(-v->value);
      if (e.unary_op == UnaryOp::Invert) return exact(~v->value);
      return std::nullopt;
    }
    case ExprKind::BinOp: {
      auto a = exact_int(*e.operands[0]);
      if (!a) return std::nullopt;
      auto b = exact_int(*e.operands[1]);
      if (!b) return std::nullopt;
      return binary(e.bin_op, *a, *b);
    }
    default: return std::nullopt;
  }
}

void check_int_constant(const Expr& e) {
  auto v = exact_int(e);
  if (!v) return;
  // A literal above INT64_MAX is typed uint64 (infer.cpp); everything else int64.
  const bool unsigned_literal = e.kind == ExprKind::Const && e.value.kind == ConstValue::Kind::Int && e.value.int_unsigned;
  const arraycore::DType d = unsigned_literal ? arraycore::DType::UInt64 : arraycore::DType::Int64;
  if (!fits(*v, d))
    out_of_bounds(e, *v, d,
                  ": a kernel computes Python integer constants in int64, where this one would wrap; "
                  "use a float, or a value that fits");
}

void check_int_fits(const Expr& e, arraycore::DType typed) {
  const auto& info = arraycore::dtype_info(typed);
  if (info.kind != 'i' && info.kind != 'u') return;
  auto v = exact_int(e);
  if (v && !fits(*v, typed)) out_of_bounds(e, *v, typed, " (as in NumPy 2)");
}

}  // namespace kiln::transpiler
