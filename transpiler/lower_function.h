// The lowering of one function instance (lower.cpp: expressions and
// statements; lower_builtins.cpp: builtin calls). Internal to lowering.
#pragma once

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "transpiler/cir.h"
#include "transpiler/infer.h"

namespace kiln::transpiler::lowering {

inline std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "\"";
}

inline std::string float_text(double x, bool single) {
  if (std::isnan(x)) return single ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000LL)";
  if (std::isinf(x)) {
    if (single) return x > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
    return x > 0 ? "__longlong_as_double(0x7ff0000000000000LL)" : "__longlong_as_double(0xfff0000000000000LL)";
  }
  char buf[64];
  if (single) x = static_cast<float>(x);  // format the float itself: no double rounding in the compiler
  std::snprintf(buf, sizeof buf, "%.*g", single ? 9 : 17, x);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s + (single ? "f" : "");
}

inline ConstValue int_value(long long v) {
  ConstValue c;
  c.kind = ConstValue::Kind::Int;
  c.i = v;
  return c;
}

inline bool is_value_kind(const Type& t) {
  return t.kind == TypeKind::Scalar || t.kind == TypeKind::Array || t.kind == TypeKind::Tuple || t.kind == TypeKind::Object ||
         t.kind == TypeKind::Iterator;
}

inline std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}


class FunctionLower {
 public:
  FunctionLower(const TypedModule& tm, int instance)
      : tm_(tm), inst_(tm.instances[static_cast<size_t>(instance)]),
        f_(tm.module->functions[static_cast<size_t>(inst_.function)]),
        kernel_(instance == 0 && !f_.device) {}  // a device function on its own: transpile_device_function

  CFunction run();
  bool needs_ufunc_math() const { return needs_ufunc_math_; }
  bool needs_cub() const { return needs_cub_; }
  bool needs_thrust() const { return needs_thrust_; }

 private:
  const Type& type(const Expr& e) const { return inst_.expr_types[static_cast<size_t>(e.id)]; }
  std::string tmp() { return "kt" + std::to_string(next_temp_++); }
  static std::string local(const std::string& n) { return n + "_"; }

  // ---- expressions ----
  CExprPtr expr(const Expr& e);
  CExprPtr conv(const Expr& e, const Type& to, bool store = false);
  CExprPtr convert(CExprPtr x, const Type& from, const Type& to, bool store = false);
  CExprPtr truth(const Expr& e);
  CExprPtr truth_of(CExprPtr x, const Type& t);
  CExprPtr binop(BinOp op, CExprPtr a, CExprPtr b, const Type& t);
  CExprPtr compare(const Expr& e);
  CExprPtr call(const Expr& e);
  CExprPtr builtin_call(const BuiltinInfo& b, const Expr& e);
  CExprPtr cub_call(const BuiltinInfo& b, const Expr& e);
  CExprPtr thrust_call(const BuiltinInfo& b, const Expr& e);
  CExprPtr stride(CExprPtr array, const Type& at, int axis);
  CExprPtr element(const Expr& array, const std::vector<const Expr*>& index);
  std::vector<const Expr*> index_list(const Expr& index);
  CExprPtr print(const Expr& e);
  std::optional<ConstValue> literal(const Expr& e) const;

  // ---- statements ----
  std::vector<CStmt> block(const Block& b);
  void stmt(const Stmt& s, std::vector<CStmt>& out);
  void assign(const Expr& target, const Expr* src, CExprPtr value, const Type& vt, std::vector<CStmt>& out);
  void for_range(const Stmt& s, std::vector<CStmt>& out);
  std::string source_text(const Span& s) const;

  const TypedModule& tm_;
  const Instance& inst_;
  const FunctionDef& f_;
  bool kernel_;
  int next_temp_ = 0;
  std::vector<CStmt> hoisted_;
  bool dynamic_shared_declared_ = false;
  bool needs_ufunc_math_ = false;  // a kiln ufunc is called: include kiln/ufunc_math.h
  bool needs_cub_ = false;         // a jit.cub collective is used: include kiln/jit_cub.h
  bool needs_thrust_ = false;      // jit.thrust or an iterator is used: include kiln/jit_thrust.h
};

}  // namespace kiln::transpiler::lowering
