#include "transpiler/types.h"

#include "arraycore/promotion.h"
#include "transpiler/cub.h"
#include "transpiler/thrust.h"

namespace kiln::transpiler {

using arraycore::WeakScalar;

char dtype_kind(DType d) { return arraycore::dtype_info(d).kind; }

bool Type::is_int() const { return is_scalar() && (dtype_kind(dtype) == 'i' || dtype_kind(dtype) == 'u'); }
bool Type::is_integral() const { return is_int() || is_bool(); }
bool Type::is_float() const { return is_scalar() && dtype_kind(dtype) == 'f'; }
bool Type::is_complex() const { return is_scalar() && dtype_kind(dtype) == 'c'; }

namespace {
const char* weak_name(DType d) {
  switch (dtype_kind(d)) {
    case 'b': return "a Python bool";
    case 'i': case 'u': return "a Python int";
    case 'f': return "a Python float";
    default: return "a Python complex";
  }
}

WeakScalar weak_kind(DType d) {
  switch (dtype_kind(d)) {
    case 'b': return WeakScalar::Bool;
    case 'i': case 'u': return WeakScalar::Int;
    case 'f': return WeakScalar::Float;
    default: return WeakScalar::Complex;
  }
}
}  // namespace

std::string Type::str() const {
  switch (kind) {
    case TypeKind::Invalid: return "<invalid>";
    case TypeKind::Void: return "None";
    case TypeKind::Scalar:
      return weak ? std::string(arraycore::dtype_info(dtype).name) + " (" + weak_name(dtype) + ")"
                  : std::string(arraycore::dtype_info(dtype).name);
    case TypeKind::Array: {
      std::string s = elems.empty() ? std::string(arraycore::dtype_info(dtype).name) : cub_type_str(elems[0]);
      if (storage == ArrayStorage::Raw) return s + " array (" + (size >= 0 ? std::to_string(size) : std::string("dynamic")) + " elements)";
      return s + " array (" + std::to_string(ndim) + "-d)";
    }
    case TypeKind::Tuple: {
      std::string s = "tuple(";
      for (size_t i = 0; i < elems.size(); ++i) s += (i ? ", " : "") + elems[i].str();
      return s + ")";
    }
    case TypeKind::Builtin: return "`" + name + "`";
    case TypeKind::DTypeObj: return "the dtype " + std::string(arraycore::dtype_info(dtype).name);
    case TypeKind::Function: return "a function";
    case TypeKind::Range: return "a range";
    case TypeKind::Class: return "the class `" + cub_type_str(*this) + "`";
    case TypeKind::Object: return "a `" + cub_type_str(*this) + "`";
    case TypeKind::Iterator: return std::string(arraycore::dtype_info(dtype).name) + " iterator (" + name + ")";
  }
  return "?";
}

std::string Type::key() const {
  switch (kind) {
    case TypeKind::Scalar: return std::string(weak ? "w" : "") + std::string(arraycore::dtype_info(dtype).name);
    case TypeKind::Array:
      return std::string(arraycore::dtype_info(dtype).name) + "_" + std::to_string(ndim) + "d" +
             (storage == ArrayStorage::Strided ? "s" : storage == ArrayStorage::Contiguous ? "c" : "r" + std::to_string(size)) +
             (elems.empty() ? "" : "_" + elems[0].key());
    case TypeKind::Tuple: {
      std::string s = "t";
      for (const auto& e : elems) s += "_" + e.key();
      return s + "_e";
    }
    default: return str();
  }
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case TypeKind::Scalar: return dtype == o.dtype && weak == o.weak;
    case TypeKind::Array:
      return dtype == o.dtype && ndim == o.ndim && storage == o.storage && size == o.size && elems == o.elems;
    case TypeKind::Tuple: return elems == o.elems;
    case TypeKind::Builtin: return name == o.name;
    case TypeKind::DTypeObj: case TypeKind::Range: return dtype == o.dtype;
    case TypeKind::Function: return function == o.function;
    case TypeKind::Class: case TypeKind::Object: return name == o.name && dtype == o.dtype && size == o.size;
    case TypeKind::Iterator: return name == o.name && dtype == o.dtype;
    default: return true;
  }
}

std::string c_type(DType d) { return std::string(arraycore::dtype_info(d).c_type); }

std::string c_type(const Type& t) {
  switch (t.kind) {
    case TypeKind::Scalar: return c_type(t.dtype);
    case TypeKind::Array:
      if (t.storage == ArrayStorage::Raw) return (t.elems.empty() ? c_type(t.dtype) : cub_cpp_class(t.elems[0])) + "*";
      return std::string(t.storage == ArrayStorage::Contiguous ? "kiln::jit::CArray<" : "kiln::jit::Array<") +
             c_type(t.dtype) + ", " + std::to_string(t.ndim) + ">";
    case TypeKind::Tuple: {
      std::string s = "kiln::jit::Tuple" + std::to_string(t.elems.size()) + "<";
      for (size_t i = 0; i < t.elems.size(); ++i) s += (i ? ", " : "") + c_type(t.elems[i]);
      return s + ">";
    }
    case TypeKind::Void: return "void";
    case TypeKind::Object: return cub_c_type(t);
    case TypeKind::Iterator: return thrust_iterator_c_type(t);
    default: return "<no C++ type>";
  }
}

Type strong(const Type& t) {
  Type s = t;
  s.weak = false;
  for (auto& e : s.elems) e = strong(e);
  return s;
}

Type promote(const Type& a, const Type& b) {
  if (a.weak && b.weak) {
    // Both Python scalars: the higher kind, still weak (bool < int < float < complex).
    return Type::weak_scalar(static_cast<int>(weak_kind(a.dtype)) >= static_cast<int>(weak_kind(b.dtype)) ? a.dtype : b.dtype);
  }
  if (a.weak || b.weak) {
    const Type& s = a.weak ? b : a;
    const Type& w = a.weak ? a : b;
    DType d[] = {s.dtype};
    WeakScalar k[] = {weak_kind(w.dtype)};
    return Type::scalar(arraycore::result_type(d, k));
  }
  return Type::scalar(arraycore::promote_types(a.dtype, b.dtype));
}

Type dim3_type() {
  Type t = Type::tuple(std::vector<Type>(3, Type::scalar(DType::UInt32)));
  t.name = "dim3";
  return t;
}

bool is_dim3(const Type& t) { return t.kind == TypeKind::Tuple && t.name == "dim3"; }

std::optional<Type> join(const Type& a, const Type& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  if (a.is_scalar() && b.is_scalar()) return promote(a, b);
  if (a.kind == TypeKind::Tuple && b.kind == TypeKind::Tuple) {
    if (a.elems.size() != b.elems.size()) return std::nullopt;
    std::vector<Type> e;
    for (size_t i = 0; i < a.elems.size(); ++i) {
      auto j = join(a.elems[i], b.elems[i]);
      if (!j) return std::nullopt;
      e.push_back(*j);
    }
    Type t = Type::tuple(std::move(e));
    if (a.name == b.name) t.name = a.name;  // dim3 stays dim3
    return t;
  }
  if (a == b) return a;
  return std::nullopt;
}

}  // namespace kiln::transpiler
