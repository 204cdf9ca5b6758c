#include "transpiler/infer.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "transpiler/cub.h"
#include "transpiler/definite_assignment.h"
#include "transpiler/diagnostics.h"
#include "transpiler/int_constants.h"
#include "transpiler/thrust.h"

namespace kiln::transpiler {

std::optional<long long> const_int(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Const:
      if (e.value.kind == ConstValue::Kind::Int && !e.value.int_unsigned) return e.value.i;
      if (e.value.kind == ConstValue::Kind::Bool) return e.value.b ? 1 : 0;
      return std::nullopt;
    case ExprKind::Global:
      if (e.global.kind == GlobalValue::Kind::Constant && e.global.value.kind == ConstValue::Kind::Int &&
          !e.global.value.int_unsigned)
        return e.global.value.i;
      return std::nullopt;
    case ExprKind::UnaryOp: {
      auto v = const_int(*e.operands[0]);
      if (!v) return std::nullopt;
      if (e.unary_op == UnaryOp::Neg) return -*v;
      if (e.unary_op == UnaryOp::Pos) return *v;
      return std::nullopt;
    }
    case ExprKind::BinOp: {
      auto a = const_int(*e.operands[0]), b = const_int(*e.operands[1]);
      if (!a || !b) return std::nullopt;
      switch (e.bin_op) {
        case BinOp::Add: return *a + *b;
        case BinOp::Sub: return *a - *b;
        case BinOp::Mul: return *a * *b;
        case BinOp::FloorDiv:
          if (*b == 0) return std::nullopt;
          return (*a / *b) - ((*a % *b != 0) && ((*a < 0) != (*b < 0)) ? 1 : 0);
        case BinOp::LShift: return *a << *b;
        default: return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

namespace {

std::string an(const Type& t) {
  std::string s = t.str();
  bool vowel = !s.empty() && std::string("aeiou").find(s[0]) != std::string::npos;
  if (t.kind == TypeKind::Scalar || t.kind == TypeKind::Array) return (vowel ? "an " : "a ") + s;
  return s;
}

// Note [Conditional expressions]
// The two values of `x if c else y` have one type, as in CuPy: a Python
// number (weak) takes the other value's type as anywhere (`x if x > 0 else
// 0.0` is float32 for float32 x), but two typed values of different dtypes
// (float32 and a float64 cast) are a TypeError rather than a promotion the
// reader did not ask for.
bool typed_mismatch(const Type& a, const Type& b) {
  if (a.kind == TypeKind::Tuple && b.kind == TypeKind::Tuple && a.elems.size() == b.elems.size()) {
    for (size_t i = 0; i < a.elems.size(); ++i)
      if (typed_mismatch(a.elems[i], b.elems[i])) return true;
    return false;
  }
  return a.is_scalar() && b.is_scalar() && !a.weak && !b.weak && a.dtype != b.dtype;
}

std::string unsupported_what(const std::string& what) {
  bool described = what.rfind("a ", 0) == 0 || what.rfind("an ", 0) == 0;  // "a list", not a keyword
  return (described ? what : "`" + what + "`") + " is not supported in kernels";
}

// Names a function assigns (its locals, as Python decides them).
void collect_assigned(const Expr& target, std::map<std::string, Span>& out) {
  if (target.kind == ExprKind::Name) out.emplace(target.text, target.span);
  if (target.kind == ExprKind::Tuple)
    for (const auto& e : target.operands) collect_assigned(*e, out);
}
void collect_assigned(const Block& b, std::map<std::string, Span>& out) {
  for (const auto& s : b) {
    for (const auto& t : s->targets) collect_assigned(*t, out);
    collect_assigned(s->body, out);
    collect_assigned(s->orelse, out);
  }
}

class Inferrer;

class FunctionInfer {
 public:
  FunctionInfer(Inferrer& top, const Module& m, int function, Instance& inst)
      : top_(top), m_(m), f_(m.functions[static_cast<size_t>(function)]), inst_(inst) {}
  void run();

 private:
  // ---- statements ----
  void block(const Block& b) {
    for (const auto& s : b) stmt(*s);
  }
  void stmt(const Stmt& s);
  void assign(const Expr& target, const Type& value, const Expr& value_expr);
  void assign_local(const Expr& target, const Type& value);
  void check_store(const Type& elem_type, const Type& value, const Expr& where);
  void check_truth(const Type& t, const Expr& e);
  void check_int_operands(const Type& a, const Expr& ea, const Type& b, const Expr& eb, const Type& r, const Expr& e);

  // ---- expressions ----
  Type eval(const Expr& e) {  // Note [Local types]: non-strict passes ignore errors
    if (strict_) return record(e, type_of(e));
    try {
      return type_of(e);
    } catch (const TranspileError&) {
      return Type();
    }
  }
  Type record(const Expr& e, Type t) {
    inst_.expr_types[static_cast<size_t>(e.id)] = t;
    return t;
  }
  Type type_of(const Expr& e);
  Type global_type(const Expr& e);
  Type attribute_type(const Expr& e);
  Type subscript_type(const Expr& e);
  Type call_type(const Expr& e);
  Type binop_type(BinOp op, const Type& a, const Type& b, const Expr& e);
  Type iterator_arithmetic(BinOp op, const Type& a, const Type& b, const Expr& e);
  Type index_array(const Type& a, const Expr& index, const Expr& e);
  const Type& scalar_operand(const Type& t, const Expr& e, const char* context);

  Inferrer& top_;
  const Module& m_;
  const FunctionDef& f_;
  Instance& inst_;
  bool strict_ = false;
  bool changed_ = false;
  int loop_depth_ = 0;
  int nested_ = 0;   // inside an if (on a run-time value), while or for: Note [Compile-time locals]
  std::map<std::string, Span> assigned_;                   // local -> first assignment
  std::map<std::string, std::pair<Span, Type>> first_;     // local -> first typed assignment
  std::set<std::string> params_;
  std::optional<Type> returns_;
  Span return_span_;
};

class Inferrer {
 public:
  Inferrer(const Module& m, TypedModule& tm) : m_(m), tm_(tm) {}

  int instantiate(int function, const std::vector<Type>& args, const Expr* call) {
    std::string key = std::to_string(function);
    for (const auto& a : args) key += "|" + a.key();
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    if (std::find(stack_.begin(), stack_.end(), function) != stack_.end()) {
      const FunctionDef& f = m_.functions[static_cast<size_t>(function)];
      fail(DiagKind::Value, call->span,
           "`" + f.name + "` calls itself" + std::string(stack_.back() == function ? "" : " through other functions") +
               ": recursion is not supported in kernels (device functions are inlined); rewrite it as a loop");
    }
    int index = static_cast<int>(tm_.instances.size());
    tm_.instances.emplace_back();
    {
      Instance& inst = tm_.instances.back();
      inst.function = function;
      inst.param_types = args;
    }
    stack_.push_back(function);
    struct Pop {
      std::vector<int>& s;
      ~Pop() { s.pop_back(); }
    } pop{stack_};
    Instance built;
    built.function = function;
    built.param_types = args;
    const FunctionDef& f = m_.functions[static_cast<size_t>(function)];
    built.c_name = index == 0 ? "kiln_jit_" + f.name : "kiln_dev_" + f.name + "_" + std::to_string(index);
    try {
      FunctionInfer(*this, m_, function, built).run();
    } catch (TranspileError& e) {
      if (e.diag().function < 0) e.diag().function = function;
      throw;
    }
    tm_.instances[static_cast<size_t>(index)] = std::move(built);
    index_.emplace(key, index);
    return index;
  }

  void warn(DiagKind kind, Span span, int function, std::string message) {
    Diagnostic d{kind, span, std::move(message), {}};
    d.function = function;
    tm_.warnings.push_back(std::move(d));
  }

 private:
  const Module& m_;
  TypedModule& tm_;
  std::map<std::string, int> index_;
  std::vector<int> stack_;

  friend class FunctionInfer;
};

void FunctionInfer::run() {
  if (f_.has_defaults)
    fail(DiagKind::Unsupported, f_.bad_signature,
         "kernel and device function parameters must be plain names (no defaults, *args, **kwargs or keyword-only parameters)");
  if (inst_.function == 0 ? false : f_.params.size() != inst_.param_types.size())
    fail(DiagKind::Type, f_.span, "`" + f_.name + "` takes " + std::to_string(f_.params.size()) + " arguments");
  collect_assigned(f_.body, assigned_);
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const auto& p = f_.params[i];
    params_.insert(p.name);
    inst_.locals[p.name] = inst_.param_types[i];
    inst_.local_order.push_back(p.name);
    first_[p.name] = {p.span, inst_.param_types[i]};
  }
  for (const auto& [name, span] : assigned_)
    if (!params_.count(name)) inst_.locals.emplace(name, Type());
  inst_.expr_types.assign(static_cast<size_t>(f_.num_exprs), Type());
  inst_.call_instance.assign(static_cast<size_t>(f_.num_exprs), -1);
  inst_.stmt_types.assign(static_cast<size_t>(f_.num_stmts), Type());
  for (int round = 0;; ++round) {
    changed_ = false;
    block(f_.body);
    if (!changed_) break;
    if (round > 64) fail(DiagKind::Type, f_.span, "type inference did not settle for `" + f_.name + "`");
  }
  // Note [Definite assignment] first: an unassigned local has no type either.
  const bool falls_off = check_definite_assignment(f_, params_, assigned_);
  strict_ = true;
  returns_.reset();
  block(f_.body);
  if (returns_ && falls_off && returns_->kind != TypeKind::Void)   // Note [Missing return]
    fail(DiagKind::Type, f_.span,
         "`" + f_.name + "` returns a value on some paths but can reach its end without a `return`, where Python "
         "returns None and a kernel has no value to give; return a value on every path",
         {{return_span_, "a value is returned here"}});
  if (returns_) inst_.return_type = strong(*returns_);
  // Declaration order: by first assignment in the source.
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [name, span] : assigned_)
    if (!params_.count(name)) order.push_back({span.line * 10000 + span.col, name});
  std::sort(order.begin(), order.end());
  for (auto& [k, name] : order) inst_.local_order.push_back(name);
}

// ---------------------------------------------------------------- statements

// Note [Python integer constants] (int_constants.h): a Python int constant
// meeting a typed integer must fit it, and every constant the kernel computes
// must fit int64.
void FunctionInfer::check_int_operands(const Type& a, const Expr& ea, const Type& b, const Expr& eb, const Type& r,
                                       const Expr& e) {
  if (a.weak && !b.weak && b.is_int()) check_int_fits(ea, b.dtype);
  if (b.weak && !a.weak && a.is_int()) check_int_fits(eb, a.dtype);
  if (r.weak && r.is_int()) check_int_constant(e);
}

void FunctionInfer::check_truth(const Type& t, const Expr& e) {
  if (!t.valid()) return;
  if (t.is_array())
    fail(DiagKind::Type, e.span, "the truth value of an array is ambiguous in a kernel; compare its elements");
  if (!t.is_scalar()) fail(DiagKind::Type, e.span, "a condition must be a number or a bool, got " + t.str());
}

void FunctionInfer::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Assign: {
      Type v = eval(*s.value);
      for (const auto& t : s.targets) assign(*t, v, *s.value);
      break;
    }
    case StmtKind::AugAssign: {
      const Expr& t = *s.targets[0];
      if (t.kind != ExprKind::Name && t.kind != ExprKind::Subscript)
        fail(DiagKind::Unsupported, t.span, "augmented assignment takes a local name or an array element");
      Type cur = eval(t);
      Type v = eval(*s.value);
      if (!cur.valid() || !v.valid()) break;
      Type r = binop_type(s.op, cur, v, *s.value);
      if (strict_) check_int_operands(cur, t, v, *s.value, r, *s.value);
      if (strict_) inst_.stmt_types[static_cast<size_t>(s.id)] = r;
      if (t.kind == ExprKind::Name) assign_local(t, r);
      else check_store(cur, r, *s.value);
      break;
    }
    case StmtKind::ExprStmt:
      eval(*s.value);
      break;
    case StmtKind::If: {
      check_truth(eval(*s.value), *s.value);
      // An `if` on a constant (Note [Compile-time calls]) keeps its branch at the level it is at.
      const bool constant = s.value->kind == ExprKind::Const && s.value->value.kind == ConstValue::Kind::Bool;
      nested_ += constant ? 0 : 1;
      block(s.body);
      block(s.orelse);
      nested_ -= constant ? 0 : 1;
      break;
    }
    case StmtKind::While:
      if (!s.orelse.empty()) fail(DiagKind::Unsupported, s.span, unsupported_what("while ... else"));
      check_truth(eval(*s.value), *s.value);
      ++loop_depth_;
      ++nested_;
      block(s.body);
      --nested_;
      --loop_depth_;
      break;
    case StmtKind::For: {
      if (!s.orelse.empty()) fail(DiagKind::Unsupported, s.span, unsupported_what("for ... else"));
      const Expr& it = *s.value;
      if (it.kind == ExprKind::Unsupported || it.kind == ExprKind::Tuple)
        fail(DiagKind::Unsupported, it.span, "`for` loops must iterate over `range(...)`; got " +
                                                 (it.kind == ExprKind::Tuple ? std::string("a tuple") : it.text));
      Type rt = eval(it);
      if (rt.kind != TypeKind::Range && (rt.valid() || strict_)) {
        std::string got = rt.valid() ? an(rt) : "something else";
        if (it.kind == ExprKind::Tuple) got = "a tuple";
        if (it.kind == ExprKind::Unsupported) got = "a " + it.text;
        fail(DiagKind::Unsupported, it.span, "`for` loops must iterate over `range(...)`; got " + got);
      }
      const Expr& target = *s.targets[0];
      if (target.kind != ExprKind::Name)
        fail(DiagKind::Unsupported, target.span, "a `for` loop's target must be a single name");
      // Note [Vectorize typing]: Python's range gives Python ints.
      if (rt.valid()) assign_local(target, m_.vectorize ? Type::weak_scalar(DType::Int64) : Type::scalar(rt.dtype));
      ++loop_depth_;
      ++nested_;
      block(s.body);
      --nested_;
      --loop_depth_;
      break;
    }
    case StmtKind::Return: {
      if (inst_.function == 0 && !f_.device) {
        if (strict_ && s.value && !(s.value->kind == ExprKind::Const && s.value->value.kind == ConstValue::Kind::None)) {
          eval(*s.value);  // an unknown name in it is a NameError first, as in CuPy
          fail(DiagKind::Type, s.value->span, "a kernel cannot return a value; write results into an array argument");
        }
        break;
      }
      Type v = s.value ? eval(*s.value) : Type::void_();
      if (!strict_ || !v.valid()) break;
      if (v.is_array() || v.kind == TypeKind::Builtin || v.kind == TypeKind::Range || v.kind == TypeKind::Function ||
          v.kind == TypeKind::DTypeObj || v.kind == TypeKind::Class || v.kind == TypeKind::Object)
        fail(DiagKind::Type, s.value->span, "a device function returns numbers, bools or tuples of them, got " + v.str());
      if (!returns_) {
        returns_ = v;
        return_span_ = s.span;
      } else {
        auto j = join(*returns_, v);
        if (!j || (returns_->kind == TypeKind::Void) != (v.kind == TypeKind::Void))
          fail(DiagKind::Type, s.span,
               "`" + f_.name + "` returns " + an(*returns_) + " at line " + std::to_string(return_span_.line) +
                   " but " + an(v) + " here",
               {{return_span_, "the other return"}});
        returns_ = *j;
      }
      break;
    }
    case StmtKind::Assert:
      check_truth(eval(*s.value), *s.value);
      if (s.msg && !(s.msg->kind == ExprKind::Const && s.msg->value.kind == ConstValue::Kind::String))
        fail(DiagKind::Unsupported, s.msg->span, "an assert message in a kernel must be a string literal");
      break;
    case StmtKind::Break: case StmtKind::Continue: case StmtKind::Pass:
      break;
    case StmtKind::Unsupported:
      fail(DiagKind::Unsupported, s.span, unsupported_what(s.text));
  }
}

// Note [Compile-time locals]
// A local may hold a compile-time value (a dtype, a builtin, a Python
// function, a module): `typecast = numpy.dtype('f').type` then
// `typecast(x)`. Such a local has no run-time storage, so it is assigned at
// the function's top level (or in the branch an `if` on a constant takes):
// assigned under an `if` on a run-time value or in a loop, whether it holds
// the value would depend on the data. That is a TypeError, as in CuPy.
static bool compile_time_value(const Type& t) {
  return t.kind == TypeKind::Builtin || t.kind == TypeKind::DTypeObj || t.kind == TypeKind::Function ||
         t.kind == TypeKind::Class;
}

void FunctionInfer::assign(const Expr& target, const Type& value, const Expr& value_expr) {
  switch (target.kind) {
    case ExprKind::Name:
      if (value.valid() && value.kind == TypeKind::Range)
        fail(DiagKind::Type, value_expr.span, "range(...) can only be iterated by a `for` loop");
      if (value.valid() && value.kind == TypeKind::Void)
        fail(DiagKind::Type, value_expr.span, "this expression has no value (None)");
      if (strict_ && nested_ > 0 && compile_time_value(value))   // Note [Compile-time locals]
        fail(DiagKind::Type, target.span,
             "`" + target.text + "` is assigned " + an(value) + ", a compile-time value, inside an `if`, `while` or "
             "`for`; a local holding a dtype, function or module is assigned at the function's top level");
      assign_local(target, value);
      return;
    case ExprKind::Tuple: {
      if (!value.valid()) {
        for (const auto& e : target.operands) assign(*e, Type(), value_expr);
        return;
      }
      if (value.kind != TypeKind::Tuple || value.elems.size() != target.operands.size())
        fail(DiagKind::Value, value_expr.span,
             "cannot unpack " + an(value) + " into " + std::to_string(target.operands.size()) + " names");
      for (size_t i = 0; i < target.operands.size(); ++i) assign(*target.operands[i], value.elems[i], value_expr);
      return;
    }
    case ExprKind::Subscript: {
      Type elem = eval(target);
      if (elem.is_array())
        fail(DiagKind::Type, target.span, "`" + (target.operands[0]->kind == ExprKind::Name ? target.operands[0]->text : std::string("the array")) +
             "` is indexed with fewer indices than it has dimensions: that is a view of the remaining axes, which takes no value; index every axis to assign an element");
      if (elem.kind == TypeKind::Object)
        fail(DiagKind::Type, target.span, "a TempStorage element is used only to construct its collective; it takes no value");
      if (elem.valid() && value.valid()) check_store(elem, value, value_expr);
      return;
    }
    case ExprKind::Attribute:
      fail(DiagKind::Unsupported, target.span, "kernels cannot assign to attributes; assign to a local or an array element");
    default:
      fail(DiagKind::Unsupported, target.span, "cannot assign to this expression in a kernel");
  }
}

void FunctionInfer::assign_local(const Expr& target, const Type& value) {
  const std::string& name = target.text;
  if (!value.valid()) return;
  auto first = first_.find(name);
  if (first == first_.end()) first = first_.emplace(name, std::make_pair(target.span, value)).first;
  Type& cur = inst_.locals[name];
  auto j = join(cur, value);
  if (!j) {
    if (!strict_) return;  // reported by the strict pass
    const auto& [span0, type0] = first->second;
    const Type& other = join(type0, value) ? cur : type0;
    fail(DiagKind::Type, target.span,
         "Data type mismatch of variable: `" + name + "` is " + an(other) + " at line " + std::to_string(span0.line) +
             " but " + an(value) + " at line " + std::to_string(target.span.line) + "; a local keeps one type in a kernel",
         {{span0, "`" + name + "` is assigned " + an(type0) + " here"}});
  }
  if (!(*j == cur)) {
    // A parameter may widen too: lower.cpp then copies the argument into a
    // local of the joined type.
    cur = *j;
    changed_ = true;
  }
}

void FunctionInfer::check_store(const Type& elem, const Type& value, const Expr& where) {
  if (!value.is_scalar())
    fail(DiagKind::Type, where.span, "an array element takes a number, got " + an(value));
  if (elem.is_int()) check_int_fits(where, elem.dtype);   // Note [Python integer constants]
  if (value.is_complex() && !elem.is_complex())
    fail(DiagKind::Type, where.span,
         "storing " + an(value) + " into " + an(elem) + " element would drop the imaginary part; store `.real` explicitly");
}

// ---------------------------------------------------------------- expressions

const Type& FunctionInfer::scalar_operand(const Type& t, const Expr& e, const char* context) {
  if (t.is_scalar()) return t;
  if (t.is_array())
    fail(DiagKind::Type, e.span, std::string(context) + " on whole arrays is not supported in kernels; index an element (got " + an(t) + ")");
  fail(DiagKind::Type, e.span, std::string(context) + " takes numbers, got " + an(t));
}

Type FunctionInfer::type_of(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: {
      auto it = inst_.locals.find(e.text);
      if (it == inst_.locals.end())
        fail(DiagKind::Name, e.span, "Unbound name: " + e.text + " (name `" + e.text + "` is not defined)");
      if (!it->second.valid() && strict_)
        fail(DiagKind::Type, e.span, "`" + e.text + "` never gets a value of a type kernels can hold");
      return it->second;
    }
    case ExprKind::Const:
      switch (e.value.kind) {
        case ConstValue::Kind::Bool: return Type::weak_scalar(DType::Bool);
        case ConstValue::Kind::Int:
          return e.value.int_unsigned ? Type::scalar(DType::UInt64) : Type::weak_scalar(DType::Int64);
        case ConstValue::Kind::Float: return Type::weak_scalar(DType::Float64);
        case ConstValue::Kind::Complex: return Type::weak_scalar(DType::Complex128);
        case ConstValue::Kind::None: return Type::void_();
        case ConstValue::Kind::String:
          fail(DiagKind::Type, e.span, "strings can only be printed or used as assert messages in kernels");
      }
      break;
    case ExprKind::Global: return global_type(e);
    case ExprKind::Attribute: return attribute_type(e);
    case ExprKind::Subscript: return subscript_type(e);
    case ExprKind::Call: return call_type(e);
    case ExprKind::BinOp: {
      Type a = eval(*e.operands[0]), b = eval(*e.operands[1]);
      if (!a.valid() || !b.valid()) return Type();
      if (iterator_of(a).valid() || iterator_of(b).valid()) return iterator_arithmetic(e.bin_op, a, b, e);
      Type r = binop_type(e.bin_op, a, b, e);
      if (strict_) check_int_operands(a, *e.operands[0], b, *e.operands[1], r, e);
      return r;
    }
    case ExprKind::UnaryOp: {
      Type a = eval(*e.operands[0]);
      if (!a.valid()) return Type();
      if (e.unary_op == UnaryOp::Not) {
        check_truth(a, *e.operands[0]);
        return Type::scalar(DType::Bool);
      }
      scalar_operand(a, *e.operands[0], e.unary_op == UnaryOp::Invert ? "`~`" : "`-`");
      if (e.unary_op == UnaryOp::Invert) {
        if (!a.is_integral()) fail(DiagKind::Type, e.span, "`~` takes integers or bools, got " + a.str());
        return a;
      }
      if (a.is_bool() && !a.weak && e.unary_op == UnaryOp::Neg)
        fail(DiagKind::Type, e.span, "`-` of a bool is not supported (as in NumPy); use `not`");
      if (a.is_bool()) return a.weak ? Type::weak_scalar(DType::Int64) : Type::scalar(DType::Int64);
      if (strict_ && a.weak && a.is_int()) check_int_constant(e);
      return a;
    }
    case ExprKind::BoolOp: {
      Type r;
      bool all_bool = true, all_weak = true;
      for (const auto& o : e.operands) {
        Type t = eval(*o);
        if (!t.valid()) return Type();
        scalar_operand(t, *o, e.bool_op == BoolOp::And ? "`and`" : "`or`");
        all_bool = all_bool && t.is_bool();
        all_weak = all_weak && t.weak;
        r = r.valid() ? promote(r, t) : t;
      }
      if (all_bool) return all_weak ? Type::weak_scalar(DType::Bool) : Type::scalar(DType::Bool);
      return r;
    }
    case ExprKind::Compare: {
      std::vector<Type> ts;
      for (const auto& o : e.operands) {
        ts.push_back(eval(*o));
        if (!ts.back().valid()) return Type();
      }
      for (size_t i = 0; i < e.cmp_ops.size(); ++i) {
        CmpOp op = e.cmp_ops[i];
        if (op == CmpOp::Is || op == CmpOp::IsNot || op == CmpOp::In || op == CmpOp::NotIn)
          fail(DiagKind::Unsupported, e.span, std::string("`") + cmp_op_symbol(op) + "` is not supported in kernels; compare numbers with == != < <= > >=");
        scalar_operand(ts[i], *e.operands[i], "comparison");
        scalar_operand(ts[i + 1], *e.operands[i + 1], "comparison");
        if ((ts[i].is_complex() || ts[i + 1].is_complex()) && op != CmpOp::Eq && op != CmpOp::NotEq)
          fail(DiagKind::Type, e.span, "complex numbers are not ordered; only == and != compare them");
      }
      return Type::scalar(DType::Bool);
    }
    case ExprKind::IfExp: {
      Type c = eval(*e.operands[0]);
      check_truth(c, *e.operands[0]);
      Type a = eval(*e.operands[1]), b = eval(*e.operands[2]);
      if (!a.valid() || !b.valid()) return Type();
      auto j = join(a, b);
      if (!j || !(j->is_scalar() || j->kind == TypeKind::Tuple))
        fail(DiagKind::Type, e.span, "the two values of a conditional expression must be numbers (or tuples of them), got " +
                                         an(a) + " and " + an(b));
      if (typed_mismatch(a, b))   // Note [Conditional expressions]
        fail(DiagKind::Type, e.span,
             "Type mismatch in conditional expression: " + a.str() + " and " + b.str() +
                 "; both values of `x if c else y` have one type in a kernel (a Python number takes the other's): "
                 "cast one of them");
      return *j;
    }
    case ExprKind::Tuple: {
      std::vector<Type> ts;
      for (const auto& o : e.operands) {
        ts.push_back(eval(*o));
        if (!ts.back().valid()) return Type();
      }
      return Type::tuple(std::move(ts));
    }
    case ExprKind::Unsupported:
      fail(DiagKind::Unsupported, e.span, unsupported_what(e.text));
  }
  fail(DiagKind::Unsupported, e.span, "unsupported expression");
}

Type FunctionInfer::global_type(const Expr& e) {
  const GlobalValue& g = e.global;
  switch (g.kind) {
    case GlobalValue::Kind::Builtin: {
      const BuiltinInfo* b = find_builtin(g.name);
      if (!b) fail(DiagKind::Unsupported, e.span, "`" + g.name + "` is not supported in kernels");
      if (b->rule == BuiltinRule::IndexValue || b->rule == BuiltinRule::IntValue) return builtin_value_type(*b);
      return Type::builtin(g.name);
    }
    case GlobalValue::Kind::Constant:
      switch (g.value.kind) {
        case ConstValue::Kind::Bool: return g.typed ? Type::scalar(DType::Bool) : Type::weak_scalar(DType::Bool);
        case ConstValue::Kind::Int:
          if (g.typed) return Type::scalar(g.dtype);
          return g.value.int_unsigned ? Type::scalar(DType::UInt64) : Type::weak_scalar(DType::Int64);
        case ConstValue::Kind::Float: return g.typed ? Type::scalar(g.dtype) : Type::weak_scalar(DType::Float64);
        case ConstValue::Kind::Complex: return g.typed ? Type::scalar(g.dtype) : Type::weak_scalar(DType::Complex128);
        case ConstValue::Kind::None: return Type::void_();
        case ConstValue::Kind::String:
          fail(DiagKind::Type, e.span, "strings can only be printed or used as assert messages in kernels");
      }
      break;
    case GlobalValue::Kind::DType: return Type::dtype_obj(g.dtype);
    case GlobalValue::Kind::Function: return Type::func(g.function);
    case GlobalValue::Kind::Module: return Type::builtin(g.name);
    case GlobalValue::Kind::Opaque: break;
  }
  fail(DiagKind::Type, e.span,
       "`" + g.name + "` is " + (g.value.s.empty() ? std::string("not usable") : "a " + g.value.s + " object") +
           "; kernels can use numbers, kiln arrays passed as arguments, dtypes, math and kiln.jit functions, and other Python functions");
}

Type FunctionInfer::attribute_type(const Expr& e) {
  Type o = eval(*e.operands[0]);
  if (!o.valid()) return Type();
  const std::string& attr = e.text;
  if (o.kind == TypeKind::Builtin) {
    std::string q = o.name + "." + attr;
    const BuiltinInfo* b = find_builtin(q);
    if (!b) fail(DiagKind::Unsupported, e.span, "`" + q + "` is not supported in kernels");
    if (b->rule == BuiltinRule::IndexValue || b->rule == BuiltinRule::IntValue) return builtin_value_type(*b);
    return Type::builtin(q);
  }
  if (o.kind == TypeKind::Class) return cub_class_attribute(o, attr, e);
  if (o.kind == TypeKind::Object) {  // a collective's method: the object rides along in elems
    const BuiltinInfo* b = find_builtin(o.name + "." + attr);
    if (!b || b->rule != BuiltinRule::CubMethod)
      fail(DiagKind::Type, e.span, o.str() + " has no method `" + attr + "` in kernels (it has Sum and Reduce)");
    Type m = Type::builtin(std::string(b->name));
    m.elems = {o};
    return m;
  }
  if (o.is_array()) {
    if (attr == "begin" || attr == "end") {  // a method: the array rides along (Note [kiln.jit.thrust])
      Type m = Type::builtin("kiln.jit.array." + attr);
      m.elems = {o};
      return m;
    }
    if (attr == "shape") {
      if (o.storage == ArrayStorage::Raw) {
        if (o.size < 0) fail(DiagKind::Type, e.span, "dynamic shared memory has no known shape");
        return Type::tuple({Type::weak_scalar(DType::Int64)});
      }
      return Type::tuple(std::vector<Type>(static_cast<size_t>(o.ndim), Type::scalar(DType::Int64)));
    }
    if (attr == "size") {
      if (o.storage == ArrayStorage::Raw && o.size < 0) fail(DiagKind::Type, e.span, "dynamic shared memory has no known size");
      return o.storage == ArrayStorage::Raw ? Type::weak_scalar(DType::Int64) : Type::scalar(DType::Int64);
    }
    if (attr == "strides") {
      if (o.storage == ArrayStorage::Raw) {
        if (o.size < 0) fail(DiagKind::Type, e.span, "dynamic shared memory has no known strides");
        return Type::tuple({Type::weak_scalar(DType::Int64)});
      }
      return Type::tuple(std::vector<Type>(static_cast<size_t>(o.ndim), Type::scalar(DType::Int64)));
    }
    if (attr == "ndim") return Type::weak_scalar(DType::Int64);
    if (attr == "dtype") return Type::dtype_obj(o.dtype);
    fail(DiagKind::Unsupported, e.span, "arrays in kernels have `shape`, `strides`, `size`, `ndim` and `dtype`; `" + attr + "` is not supported");
  }
  if (is_dim3(o) && (attr == "x" || attr == "y" || attr == "z")) return o.elems[static_cast<size_t>(attr[0] - 'x')];
  if (o.is_scalar() && (attr == "real" || attr == "imag")) {
    if (o.dtype == DType::Complex64) return Type::scalar(DType::Float32);
    if (o.dtype == DType::Complex128) return o.weak ? Type::weak_scalar(DType::Float64) : Type::scalar(DType::Float64);
    return o;
  }
  fail(DiagKind::Type, e.span, an(o) + " has no attribute `" + attr + "` in kernels");
}

Type FunctionInfer::index_array(const Type& a, const Expr& index, const Expr& e) {
  std::vector<const Expr*> idx;
  if (index.kind == ExprKind::Tuple)
    for (const auto& o : index.operands) idx.push_back(o.get());
  else
    idx.push_back(&index);
  if (static_cast<int>(idx.size()) < a.ndim && a.storage != ArrayStorage::Raw && !idx.empty()) {
    // Partial indexing: a view of the remaining axes (Note [kiln.jit.thrust]).
    for (const Expr* i : idx) {
      Type t = eval(*i);
      if (!t.valid()) return Type();
      if (!t.is_int()) fail(DiagKind::Type, i->span, "array indices must be integers, got " + an(t));
    }
    return Type::array(a.dtype, a.ndim - static_cast<int>(idx.size()), a.storage);
  }
  if (static_cast<int>(idx.size()) != a.ndim) {
    std::string how = a.ndim == 0 ? std::string("a 0-d array is indexed with `[()]`")
                                  : "index it with " + std::to_string(a.ndim) + " integer" + (a.ndim == 1 ? "" : "s");
    fail(DiagKind::Type, index.span,
         "`" + (e.operands[0]->kind == ExprKind::Name ? e.operands[0]->text : std::string("the array")) + "` is " + an(a) +
             " but is indexed with " + std::to_string(idx.size()) + " index" + (idx.size() == 1 ? "" : "es") + ": " + how +
             " (slices are not supported in kernels)");
  }
  for (const Expr* i : idx) {
    Type t = eval(*i);
    if (!t.valid()) return Type();
    if (!t.is_int())
      fail(DiagKind::Type, i->span, "array indices must be integers, got " + an(t));
  }
  return a.elems.empty() ? Type::scalar(a.dtype) : a.elems[0];
}

Type FunctionInfer::subscript_type(const Expr& e) {
  Type o = eval(*e.operands[0]);
  if (!o.valid()) return Type();
  const Expr& index = *e.operands[1];
  if (o.is_array()) return index_array(o, index, e);
  if (o.kind == TypeKind::Iterator) {
    Type it = eval(index);
    if (it.valid() && !it.is_int()) fail(DiagKind::Type, index.span, "an iterator is indexed with an integer, got " + an(it));
    return Type::scalar(o.dtype);
  }
  if (o.kind == TypeKind::Builtin) {
    const BuiltinInfo* b = find_builtin(o.name);
    if (b && b->rule == BuiltinRule::CubClass) {
      Type it = eval(index);
      return it.valid() ? cub_specialize(*b, it, index) : Type();
    }
  }
  if (o.kind == TypeKind::Tuple) {
    auto k = const_int(index);
    if (!k) fail(DiagKind::Type, index.span, "a tuple is indexed with a constant integer in kernels");
    long long n = static_cast<long long>(o.elems.size());
    long long j = *k < 0 ? *k + n : *k;
    if (j < 0 || j >= n)
      fail(DiagKind::Type, index.span, "tuple index " + std::to_string(*k) + " is out of range for " + o.str());
    if (strict_) record(index, Type::weak_scalar(DType::Int64));
    return o.elems[static_cast<size_t>(j)];
  }
  fail(DiagKind::Type, e.operands[0]->span, an(o) + " cannot be indexed");
}

Type FunctionInfer::call_type(const Expr& e) {
  const Expr& callee = *e.operands[0];
  Type ct = eval(callee);
  if (!ct.valid()) return Type();
  std::vector<Type> args;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    const Expr& a = *e.operands[i];
    if (a.kind == ExprKind::Const && a.value.kind == ConstValue::Kind::String) {
      args.push_back(Type::builtin("str"));
      if (strict_) record(a, args.back());
      continue;
    }
    if (a.kind == ExprKind::Const && a.value.kind == ConstValue::Kind::None) {
      args.push_back(Type::void_());
      if (strict_) record(a, args.back());
      continue;
    }
    args.push_back(eval(a));
    if (!args.back().valid()) return Type();
  }
  std::vector<std::pair<std::string, Type>> kwargs;
  for (const auto& k : e.keywords) {
    Type t = (k.value->kind == ExprKind::Const && k.value->value.kind == ConstValue::Kind::String)
                 ? Type::builtin("str") : eval(*k.value);
    if (strict_) record(*k.value, t);
    if (!t.valid()) return Type();
    kwargs.emplace_back(k.name, t);
  }
  switch (ct.kind) {
    case TypeKind::Builtin: {
      const BuiltinInfo* b = find_builtin(ct.name);
      if (!b) fail(DiagKind::Unsupported, callee.span, "`" + ct.name + "` is not supported in kernels");
      CallSite site{e, args, kwargs, [](const Expr& x) { return const_int(x); }};
      if (!ct.elems.empty()) site.self = &ct.elems[0];
      Type r = builtin_result(*b, site);
      if (b->rule == BuiltinRule::SharedMemory && r.size < 0) top_.tm_.uses_dynamic_shared = true;
      if (r.kind == TypeKind::Range && m_.vectorize) r = Type::range(DType::Int64);   // Note [Vectorize typing]
      return r;
    }
    case TypeKind::DTypeObj: {
      if (!kwargs.empty() || args.size() != 1)
        fail(DiagKind::Type, e.span, "a dtype used as a cast takes one number, e.g. kiln.float32(x)");
      const Type& a = scalar_operand(args[0], *e.operands[1], "a cast");
      // NumPy's cast: the real part, with a ComplexWarning (a bool is whether the number is nonzero).
      if (strict_ && a.is_complex() && dtype_kind(ct.dtype) != 'c' && ct.dtype != DType::Bool)
        top_.warn(DiagKind::ComplexWarning, e.span, inst_.function,
                  "Casting complex values to real discards the imaginary part (" + a.str() + " to " +
                      std::string(arraycore::dtype_info(ct.dtype).name) + "); take `.real` to say so");
      return Type::scalar(ct.dtype);
    }
    case TypeKind::Class:
      return cub_construct(ct, CallSite{e, args, kwargs, [](const Expr& x) { return const_int(x); }});
    case TypeKind::Function: {
      const FunctionDef& f = m_.functions[static_cast<size_t>(ct.function)];
      if (!kwargs.empty()) fail(DiagKind::Unsupported, e.span, "device functions take positional arguments only");
      if (args.size() != f.params.size())
        fail(DiagKind::Type, e.span, "`" + f.name + "` takes " + std::to_string(f.params.size()) + " argument" +
                                         (f.params.size() == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
      for (size_t i = 0; i < args.size(); ++i)
        if (!(args[i].is_scalar() || args[i].is_array() || args[i].kind == TypeKind::Tuple || args[i].kind == TypeKind::Object))
          fail(DiagKind::Type, e.operands[i + 1]->span, "device functions take numbers, arrays and tuples, got " + args[i].str());
      // Before the strict pass argument types may still grow: instances made
      // for them are kept but only those the strict pass calls are emitted.
      int k = top_.instantiate(ct.function, args, &e);
      if (strict_) inst_.call_instance[static_cast<size_t>(e.id)] = k;
      return top_.tm_.instances[static_cast<size_t>(k)].return_type;
    }
    default:
      fail(DiagKind::Type, callee.span, an(ct) + " is not callable");
  }
}

// iterator + n, n + iterator, iterator - n: an iterator; iterator - iterator: int64
// (shared and local memory arrays are pointers here: smem + 32).
Type FunctionInfer::iterator_arithmetic(BinOp op, const Type& a, const Type& b, const Expr& e) {
  Type ia = iterator_of(a), ib = iterator_of(b);
  if (op == BinOp::Sub && ia.valid() && ib.valid()) {
    if (ia != ib) fail(DiagKind::Type, e.span, "iterators of different kinds cannot be subtracted: " + ia.str() + " and " + ib.str());
    return Type::scalar(DType::Int64);
  }
  if (op == BinOp::Add && ia.valid() && b.is_int()) return ia;
  if (op == BinOp::Add && ib.valid() && a.is_int()) return ib;
  if (op == BinOp::Sub && ia.valid() && b.is_int()) return ia;
  fail(DiagKind::Type, e.span, std::string("`") + bin_op_symbol(op) + "` of " + a.str() + " and " + b.str() +
                                   ": iterators add and subtract integers, and subtract each other");
}

Type FunctionInfer::binop_type(BinOp op, const Type& a, const Type& b, const Expr& e) {
  const char* sym = bin_op_symbol(op);
  std::string ctx = std::string("`") + sym + "`";
  if (op == BinOp::MatMul) fail(DiagKind::Unsupported, e.span, "`@` is not supported in kernels");
  scalar_operand(a, e, ctx.c_str());
  scalar_operand(b, e, ctx.c_str());
  Type t = promote(a, b);
  auto as = [&](DType d) { return t.weak ? Type::weak_scalar(d) : Type::scalar(d); };
  switch (op) {
    // Bools: Python's (ints) when both are Python bools, NumPy's otherwise
    // (+ is or, * is and, - an error, // % ** int8).
    case BinOp::Pow:
      return t.is_bool() ? (t.weak ? as(DType::Int64) : Type::scalar(DType::Int8)) : t;
    case BinOp::Add: case BinOp::Mul:
      return t.is_bool() && t.weak ? as(DType::Int64) : t;
    case BinOp::Sub:
      if (t.is_bool() && !t.weak)
        fail(DiagKind::Type, e.span, "`-` of bools is not supported (as in NumPy); use `^` or `!=`, or cast to an integer first");
      return t.is_bool() ? as(DType::Int64) : t;
    case BinOp::Div:
      return t.is_integral() ? as(DType::Float64) : t;
    case BinOp::FloorDiv: case BinOp::Mod:
      if (t.is_complex()) fail(DiagKind::Type, e.span, ctx + " is not defined for complex numbers");
      return t.is_bool() ? (t.weak ? as(DType::Int64) : Type::scalar(DType::Int8)) : t;
    case BinOp::LShift: case BinOp::RShift:  // NumPy shifts bools as int8, Python as ints
      if (!t.is_integral()) fail(DiagKind::Type, e.span, ctx + " takes integers, got " + a.str() + " and " + b.str());
      return t.is_bool() ? (t.weak ? as(DType::Int64) : Type::scalar(DType::Int8)) : t;
    case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor:
      if (!t.is_integral()) fail(DiagKind::Type, e.span, ctx + " takes integers or bools, got " + a.str() + " and " + b.str());
      return t;
    case BinOp::MatMul: break;
  }
  return t;
}

void reachable(const TypedModule& tm, int k, std::vector<char>& seen, std::vector<int>& order) {
  if (seen[static_cast<size_t>(k)]) return;
  seen[static_cast<size_t>(k)] = 1;
  for (int c : tm.instances[static_cast<size_t>(k)].call_instance)
    if (c >= 0) reachable(tm, c, seen, order);
  order.push_back(k);
}

}  // namespace

TypedModule infer(const Module& m, const std::vector<Type>& kernel_args) {
  TypedModule tm;
  tm.module = &m;
  const FunctionDef& k = m.functions.at(0);
  if (kernel_args.size() != k.params.size()) {
    fail(DiagKind::Type, k.span,
         "`" + k.name + "` takes " + std::to_string(k.params.size()) + " argument" + (k.params.size() == 1 ? "" : "s") +
             ", got " + std::to_string(kernel_args.size()));
  }
  Inferrer top(m, tm);
  top.instantiate(0, kernel_args, nullptr);
  std::vector<char> seen(tm.instances.size(), 0);
  reachable(tm, 0, seen, tm.emit_order);
  return tm;
}

}  // namespace kiln::transpiler
