// Note [kiln.jit.cub] (cub.h).
#include "transpiler/cub.h"

#include "transpiler/diagnostics.h"
#include "transpiler/infer.h"

namespace kiln::transpiler {
namespace {

constexpr std::string_view kWarpReduce = "kiln.jit.cub.WarpReduce";
constexpr std::string_view kBlockReduce = "kiln.jit.cub.BlockReduce";
constexpr std::string_view kTempStorage = ".TempStorage";

std::string dtype_name(DType d) { return std::string(arraycore::dtype_info(d).name); }

// The collective's class name ("kiln.jit.cub.WarpReduce") of a class,
// its TempStorage or an object of either.
std::string collective(const Type& t) {
  const std::string& n = t.name;
  if (n.size() > kTempStorage.size() && n.compare(n.size() - kTempStorage.size(), kTempStorage.size(), kTempStorage) == 0)
    return n.substr(0, n.size() - kTempStorage.size());
  return n;
}

// "jit.cub.WarpReduce" for "kiln.jit.cub.WarpReduce", as users write it.
std::string short_name(std::string_view qualified) {
  return std::string(qualified.rfind("kiln.", 0) == 0 ? qualified.substr(5) : qualified);
}

}  // namespace

bool cub_is_temp_storage(const Type& t) {
  return (t.kind == TypeKind::Class || t.kind == TypeKind::Object) && collective(t) != t.name;
}

DType cub_compute_dtype(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }

std::string cub_type_str(const Type& t) {
  std::string base = collective(t);
  if (base != kWarpReduce && base != kBlockReduce) return short_name(t.name) + "()";  // an operator: jit.cub.Sum()
  std::string s = short_name(base) + "[" + dtype_name(t.dtype);
  if (base == kBlockReduce) s += ", " + std::to_string(t.size);
  s += "]";
  if (cub_is_temp_storage(t)) s += std::string(kTempStorage);
  return s;
}

Type cub_specialize(const BuiltinInfo& class_row, const Type& index_type, const Expr& index) {
  const bool block = class_row.name == kBlockReduce;
  const std::string usage = block ? "jit.cub.BlockReduce[dtype, block_threads]" : "jit.cub.WarpReduce[dtype]";
  const Type* dt = &index_type;
  const Expr* threads = nullptr;
  if (block) {
    if (index_type.kind != TypeKind::Tuple || index_type.elems.size() != 2 || index.kind != ExprKind::Tuple)
      fail(DiagKind::Type, index.span, usage + " takes a dtype and a constant number of threads");
    dt = &index_type.elems[0];
    threads = index.operands[1].get();
  }
  if (dt->kind != TypeKind::DTypeObj || dt->dtype == DType::Bool)
    fail(DiagKind::Type, index.span, usage + ": the dtype must be a numeric dtype such as numpy.float32, got " + dt->str());
  long long n = -1;
  if (threads) {
    auto v = const_int(*threads);
    if (!v || *v < 1 || *v > 1024)
      fail(DiagKind::Value, threads->span, usage + ": block_threads must be a constant integer from 1 to 1024");
    n = *v;
  }
  return Type::cls(std::string(class_row.name), dt->dtype, n);
}

Type cub_class_attribute(const Type& cls, const std::string& attr, const Expr& e) {
  if (attr != "TempStorage" || cub_is_temp_storage(cls))
    fail(DiagKind::Type, e.span, cub_type_str(cls) + " has no attribute `" + attr + "` in kernels (its storage type is .TempStorage)");
  return Type::cls(cls.name + std::string(kTempStorage), cls.dtype, cls.size);
}

Type cub_construct(const Type& cls, const CallSite& s) {
  const std::string what = cub_type_str(cls);
  if (cub_is_temp_storage(cls))
    fail(DiagKind::Type, s.call.span, what + " is not constructed in kernels: allocate it with jit.shared_memory(" + what + ", size)");
  Type storage = Type::object(cls.name + std::string(kTempStorage), cls.dtype, cls.size);
  if (s.args.size() != 1 || !s.kwargs.empty() || s.args[0] != storage)
    fail(DiagKind::Type, s.call.span, what + "(temp_storage) takes one " + cub_type_str(storage) +
         " (an element of jit.shared_memory(dtype=" + what + ".TempStorage, size=n))" +
         (s.args.size() == 1 ? ", got " + s.args[0].str() : std::string()));
  return Type::object(cls.name, cls.dtype, cls.size);
}

Type cub_call_result(const BuiltinInfo& b, const CallSite& s) {
  if (b.rule == BuiltinRule::CubOperator) {
    if (!s.args.empty() || !s.kwargs.empty())
      fail(DiagKind::Type, s.call.span, "`" + short_name(b.name) + "()` takes no arguments");
    return Type::object(std::string(b.name), DType::Float64, -1);
  }
  const Type& self = *s.self;
  const bool reduce = b.spelling == "Reduce";
  const std::string what = cub_type_str(self) + "." + std::string(b.spelling);
  if (s.args.size() != (reduce ? 2u : 1u) || !s.kwargs.empty())
    fail(DiagKind::Type, s.call.span, what + (reduce ? "(value, op) takes a value and jit.cub.Sum(), Max() or Min()"
                                                     : "(value) takes one value"));
  const Type& v = s.args[0];
  if (!v.is_scalar())
    fail(DiagKind::Type, s.arg(0).span, what + " takes a number, got " + v.str());
  if (v.is_complex() && dtype_kind(self.dtype) != 'c')
    fail(DiagKind::Type, s.arg(0).span, what + ": a complex value would drop its imaginary part in a " +
         dtype_name(self.dtype) + " reduction; take .real first");
  if (reduce) {
    const Type& op = s.args[1];
    const BuiltinInfo* row = op.kind == TypeKind::Object ? find_builtin(op.name) : nullptr;
    if (!row || row->rule != BuiltinRule::CubOperator)
      fail(DiagKind::Type, s.arg(1).span, what + ": the operator must be jit.cub.Sum(), jit.cub.Max() or jit.cub.Min(), got " + op.str());
  }
  return Type::scalar(self.dtype);
}

std::string cub_cpp_class(const Type& t) {
  const std::string base = collective(t);
  const std::string ct = c_type(cub_compute_dtype(t.dtype));
  std::string s = base == kBlockReduce ? "cub::BlockReduce<" + ct + ", " + std::to_string(t.size) + ">"
                                       : "cub::WarpReduce<" + ct + ">";
  return cub_is_temp_storage(t) ? s + "::TempStorage" : s;
}

std::string cub_c_type(const Type& t) {
  const std::string base = collective(t);
  if (base != kWarpReduce && base != kBlockReduce) return std::string(find_builtin(t.name)->spelling);
  return cub_cpp_class(Type::cls(base + std::string(kTempStorage), t.dtype, t.size)) + "*";
}

}  // namespace kiln::transpiler
