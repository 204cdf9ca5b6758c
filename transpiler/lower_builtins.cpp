// Builtin calls (builtins.h rules) and print() lowered to C++.
#include "transpiler/cub.h"
#include "transpiler/diagnostics.h"
#include "transpiler/lower.h"
#include "transpiler/lower_function.h"

namespace kiln::transpiler::lowering {

CExprPtr FunctionLower::print(const Expr& e) {
  std::string sep = " ", end = "\n";
  for (const auto& k : e.keywords) {
    if (k.value->kind != ExprKind::Const || k.value->value.kind != ConstValue::Kind::String)
      fail(DiagKind::Type, k.value->span, "print's `" + k.name + "` must be a string literal in kernels");
    (k.name == "sep" ? sep : end) = k.value->value.s;
  }
  auto escape = [](const std::string& s) {
    std::string out;
    for (char c : s) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
  };
  std::string fmt;
  std::vector<CExprPtr> args;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    const Expr& a = *e.operands[i];
    if (i > 1) fmt += escape(sep);
    if (a.kind == ExprKind::Const && a.value.kind == ConstValue::Kind::String) {
      fmt += escape(a.value.s);
      continue;
    }
    Type at = strong(type(a));
    CExprPtr x = expr(a);
    switch (dtype_kind(at.dtype)) {
      case 'b':
        fmt += "%s";
        args.push_back(c_ternary(x, c_atom("\"True\""), c_atom("\"False\"")));
        break;
      case 'i':
        fmt += "%lld";
        args.push_back(c_cast("long long", x));
        break;
      case 'u':
        fmt += "%llu";
        args.push_back(c_cast("unsigned long long", x));
        break;
      case 'f':
        fmt += "%g";
        args.push_back(c_cast("double", x));
        break;
      default: {
        fmt += "(%g%+gj)";
        args.push_back(c_cast("double", c_call(emit_expr(*c_member(x, "real")), {})));
        args.push_back(c_cast("double", c_call(emit_expr(*c_member(x, "imag")), {})));
      }
    }
  }
  fmt += escape(end);
  args.insert(args.begin(), c_atom(quoted(fmt)));
  return c_call("printf", std::move(args));
}

CExprPtr FunctionLower::builtin_call(const BuiltinInfo& b, const Expr& e) {
  const Type& t = type(e);
  auto arg = [&](size_t i) -> const Expr& { return *e.operands[i + 1]; };
  size_t nargs = e.operands.size() - 1;
  const std::string spelling(b.spelling);
  auto float_of = [](const Type& x) { return x.is_float() ? strong(x) : Type::scalar(DType::Float64); };
  switch (b.rule) {
    case BuiltinRule::Math1:
      return c_call(spelling, {conv(arg(0), t)});
    case BuiltinRule::Math2:
      return c_call(spelling, {conv(arg(0), t), conv(arg(1), t)});
    case BuiltinRule::MathPred:
      return c_call(spelling, {conv(arg(0), float_of(type(arg(0))))});
    case BuiltinRule::MathToInt:
      return c_call(spelling + "_int", {conv(arg(0), float_of(type(arg(0))))});
    case BuiltinRule::Abs: {
      Type at = strong(type(arg(0)));
      if (at.is_bool()) at = Type::scalar(DType::Int64);
      return c_call(spelling, {conv(arg(0), at)});
    }
    case BuiltinRule::MinMax: {
      CExprPtr acc = conv(arg(0), t);
      for (size_t i = 1; i < nargs; ++i) acc = c_call(spelling, {acc, conv(arg(i), t)});
      return acc;
    }
    case BuiltinRule::Round: {
      Type at = strong(type(arg(0)));
      if (nargs == 1) return c_call("kiln::jit::round_int", {conv(arg(0), at.is_integral() ? Type::scalar(DType::Int64) : at)});
      if (t.is_integral()) return conv(arg(0), t);
      return c_call("kiln::jit::round_n", {conv(arg(0), t), conv(arg(1), Type::scalar(DType::Int64))});
    }
    case BuiltinRule::Len: {
      const Type& at = type(arg(0));
      if (at.kind == TypeKind::Tuple) return c_atom(std::to_string(at.elems.size()) + "LL");
      if (at.storage == ArrayStorage::Raw) return c_atom(std::to_string(at.size) + "LL");
      return c_index(c_member(expr(arg(0)), "shape"), c_atom("0"));
    }
    case BuiltinRule::PyCast:
      if (nargs == 2)
        return c_call("kiln::complex<double>", {conv(arg(0), Type::scalar(DType::Float64)), conv(arg(1), Type::scalar(DType::Float64))});
      if (t.is_bool()) return truth(arg(0));
      return conv(arg(0), t, /*store=*/true);
    case BuiltinRule::Print: return print(e);
    case BuiltinRule::Barrier: case BuiltinRule::LaneId: case BuiltinRule::GroupSync:
      return c_atom(spelling);
    case BuiltinRule::SyncWarp: {
      const Expr* mask = nargs ? &arg(0) : nullptr;
      for (const auto& k : e.keywords) mask = k.name == "mask" ? k.value.get() : mask;
      return c_call("__syncwarp", {mask ? conv(*mask, Type::scalar(DType::UInt32)) : c_atom("0xffffffffu")});
    }
    case BuiltinRule::Grid: case BuiltinRule::GridSize: {
      const char* axes[] = {"x", "y", "z"};
      std::vector<CExprPtr> parts;
      size_t n = t.kind == TypeKind::Tuple ? t.elems.size() : 1;
      for (size_t k = 0; k < n; ++k) {
        std::string ax = axes[k];
        if (b.rule == BuiltinRule::Grid)
          parts.push_back(c_binary("+", c_binary("*", c_atom("blockIdx." + ax), c_atom("blockDim." + ax)), c_atom("threadIdx." + ax)));
        else
          parts.push_back(c_binary("*", c_atom("blockDim." + ax), c_atom("gridDim." + ax)));
      }
      if (n == 1) return parts[0];
      return c_init(c_type(t), std::move(parts));
    }
    case BuiltinRule::SharedMemory: case BuiltinRule::LocalMemory: {
      std::string ct = t.elems.empty() ? c_type(t.dtype) : cub_cpp_class(t.elems[0]);
      needs_cub_ = needs_cub_ || !t.elems.empty();
      if (t.size < 0) {
        if (!dynamic_shared_declared_) {
          hoisted_.push_back(c_decl("extern __shared__ __align__(16) unsigned char", "kiln_jit_dynamic_smem[]"));
          dynamic_shared_declared_ = true;
        }
        return c_atom("reinterpret_cast<" + ct + "*>(kiln_jit_dynamic_smem)");
      }
      std::string name = std::string(b.rule == BuiltinRule::SharedMemory ? "kt_shared" : "kt_local") + std::to_string(e.id);
      std::string qual = b.rule == BuiltinRule::SharedMemory ? "__shared__ " : "";
      if (b.rule == BuiltinRule::SharedMemory) {  // alignment: the third argument, by position or keyword
        const Expr* align = nargs > 2 ? &arg(2) : nullptr;
        for (const auto& k : e.keywords)
          if (k.name == "alignment") align = k.value.get();
        if (align)
          if (auto v = const_int(*align)) qual += "__align__(" + std::to_string(*v) + ") ";
      }
      hoisted_.push_back(c_decl(qual + ct, name, nullptr, t.size));
      return c_atom(name);
    }
    case BuiltinRule::Atomic: case BuiltinRule::AtomicCas: {
      const Expr& array = arg(0);
      const Type& at = type(array);
      Type et = Type::scalar(at.dtype);
      CExprPtr elem;
      const Expr& index = arg(1);
      if (index.kind == ExprKind::Tuple || !type(index).is_scalar()) {
        if (index.kind == ExprKind::Tuple) {
          elem = element(array, index_list(index));
        } else {  // a tuple value
          std::vector<CExprPtr> parts;
          CExprPtr tv = expr(index);
          for (int d = 0; d < at.ndim; ++d) parts.push_back(c_member(tv, "e" + std::to_string(d)));
          elem = c_call(emit_expr(*expr(array)), std::move(parts));
        }
      } else {
        elem = element(array, {&index});
      }
      std::vector<CExprPtr> args = {c_unary("&", elem)};
      for (size_t i = 2; i < nargs; ++i) args.push_back(conv(arg(i), et));
      return c_call(spelling, std::move(args));
    }
    case BuiltinRule::Shuffle: {
      CExprPtr width = c_atom("32");
      for (const auto& k : e.keywords)
        if (k.name == "width") width = conv(*k.value, Type::scalar(DType::Int32));
      if (nargs == 4) width = conv(arg(3), Type::scalar(DType::Int32));
      Type lane_t = Type::scalar(b.name == "kiln.jit.shfl_sync" || b.name == "kiln.jit.shfl_xor_sync" ? DType::Int32 : DType::UInt32);
      return c_call(spelling, {conv(arg(0), Type::scalar(DType::UInt32)), conv(arg(1), t), conv(arg(2), lane_t), width});
    }
    case BuiltinRule::Vote:
      return c_binary("!=", c_call(spelling, {conv(arg(0), Type::scalar(DType::UInt32)), c_cast("int", truth(arg(1)))}), c_atom("0"));
    case BuiltinRule::Ballot:
      return c_call(spelling, {conv(arg(0), Type::scalar(DType::UInt32)), c_cast("int", truth(arg(1)))});
    case BuiltinRule::Ufunc: {
      std::vector<Type> types;
      for (size_t i = 0; i < nargs; ++i) types.push_back(type(arg(i)));
      std::optional<Type> dtype;   // dtype= (checked by builtin_result)
      for (const auto& k : e.keywords)
        if (k.name == "dtype") dtype = type(*k.value);
      UfuncCall u = ufunc_call(b, types, e, dtype ? &*dtype : nullptr);
      std::vector<CExprPtr> args;
      for (size_t i = 0; i < nargs; ++i) args.push_back(conv(arg(i), Type::scalar(u.in[i])));
      needs_ufunc_math_ = true;
      return c_call(spelling, std::move(args));
    }
    case BuiltinRule::CubOperator: case BuiltinRule::CubMethod:
      return cub_call(b, e);
    case BuiltinRule::Thrust:
      return thrust_call(b, e);
    case BuiltinRule::ArrayIter: {  // Note [kiln.jit.thrust]: a pointer, or a strided iterator
      needs_thrust_ = true;
      const Expr& obj = *e.operands[0]->operands[0];
      const Type& at = type(obj);
      CExprPtr a = expr(obj);
      const bool end = b.spelling == "end";
      if (at.storage == ArrayStorage::Raw)
        return end ? c_binary("+", a, c_atom(std::to_string(at.size) + "LL")) : a;
      CExprPtr n = c_atom("1LL");
      for (int d = 0; d < at.ndim; ++d) n = c_binary("*", n, c_index(c_member(a, "shape"), c_atom(std::to_string(d))));
      CExprPtr first = at.storage == ArrayStorage::Strided
                           ? c_call("kiln::jit::strided_begin", {c_member(a, "data"), c_index(c_member(a, "strides"), c_atom("0"))})
                           : c_member(a, "data");
      return end ? c_binary("+", first, n) : first;
    }
    case BuiltinRule::GroupQuery:
      return c_call(spelling, {});
    case BuiltinRule::CgSync:
      return c_atom(std::string(find_builtin(type(arg(0)).name + ".sync")->spelling));
    case BuiltinRule::CgWait:
      return c_atom(spelling);
    case BuiltinRule::CgMemcpy: {
      auto at = [&](size_t a, size_t i) { return c_cast("void*", c_unary("&", element(arg(a), {&arg(i)}))); };
      return c_call(spelling, {at(1, 2), at(3, 4), conv(arg(5), Type::scalar(DType::UInt64))});
    }
    case BuiltinRule::ThrustPolicy:
    case BuiltinRule::GroupCtor: case BuiltinRule::Range: case BuiltinRule::Namespace: case BuiltinRule::IndexValue:
    case BuiltinRule::IntValue: case BuiltinRule::CubClass:
      break;
  }
  return c_atom("/* " + std::string(b.name) + " */");
}

// Note [kiln.jit.thrust]: kiln::jit::thr::<algorithm>(iterators and values),
// the policy dropped; numbers pass in their own (strong) types.
CExprPtr FunctionLower::thrust_call(const BuiltinInfo& b, const Expr& e) {
  needs_thrust_ = true;
  std::vector<CExprPtr> args;
  const bool maker = b.name.find("make_") != std::string_view::npos;
  for (size_t i = maker ? 1 : 2; i < e.operands.size(); ++i) {
    const Expr& a = *e.operands[i];
    const Type& at = type(a);
    args.push_back(at.is_scalar() ? conv(a, strong(at)) : expr(a));
  }
  if (maker) {
    const Type& t = type(e);
    std::vector<CExprPtr> init = {args[0]};
    if (t.name == "constant") init.push_back(c_atom("0LL"));
    return c_init(c_type(t), std::move(init));
  }
  return c_call(std::string(b.spelling), std::move(args));
}

// Note [kiln.jit.cub]: `cub::WarpReduce<float>(*agg_).Sum(v)`, the value in
// the collective's compute dtype and the result back in the method's.
CExprPtr FunctionLower::cub_call(const BuiltinInfo& b, const Expr& e) {
  needs_cub_ = true;
  if (b.rule == BuiltinRule::CubOperator) return c_init(std::string(b.spelling), {});
  const Expr& object = *e.operands[0]->operands[0];
  const Type& ot = type(object);
  const Type compute = Type::scalar(cub_compute_dtype(ot.dtype));
  std::vector<CExprPtr> args = {conv(*e.operands[1], compute, /*store=*/true)};
  if (e.operands.size() > 2) args.push_back(expr(*e.operands[2]));
  CExprPtr collective = c_call(cub_cpp_class(ot), {c_unary("*", expr(object))});
  return convert(c_call(emit_expr(*c_member(collective, std::string(b.spelling))), std::move(args)), compute, type(e));
}

}  // namespace kiln::transpiler::lowering
