// The types of kernel values: scalars by dtype (weak or not), arrays by
// dtype/ndim/storage, tuples, and the compile-time values builtins and
// dtypes are (types.cpp).
//
//   Type f = Type::scalar(DType::Float32);
//   Type w = Type::weak(DType::Int64);           // a Python int literal
//   join(w, f)  -> float32                       // a local assigned both
//   Type a = Type::array(DType::Float32, 2, ArrayStorage::Strided);
//   a.str()     -> "float32 array (2-d)"
//
// Note [Weak scalars]
// As in NEP 50, Python literals (and Python int/float/complex/bool kernel
// arguments) are "weak": next to a typed value they take its type when their
// kind allows (`x * 2.0` with float32 x is float32), and on their own they are
// int64, float64, complex128 or bool. A local keeps weakness only while every
// value assigned to it is weak (`s = 0` then `s += 1` stays weak; `s += x[i]`
// makes it x's dtype).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arraycore/dtype.h"

namespace kiln::transpiler {

using arraycore::DType;

enum class TypeKind : uint8_t {
  Invalid, Void, Scalar, Array, Tuple,
  Builtin,   // a builtin function/namespace (`name`): math.sqrt, kiln.jit.threadIdx
  DTypeObj,  // a dtype used as a value: kiln.float32 (callable: a cast)
  Function,  // a Python function compiled as a device function (`function`)
  Range,     // what range(...) returns; only `for` takes it
  Class,     // a CUB collective class (`name`, `dtype`, `size`): WarpReduce[float32], its .TempStorage (cub.h)
  Object,    // a value of such a class: a collective, a TempStorage, a reduction operator (cub.h)
  Iterator,  // a jit.thrust iterator over `dtype` values; `name`: pointer, strided, constant, counting (thrust.h)
};

// How an array reaches the kernel.
//  Strided:    a kernel argument: data pointer, shape, byte strides
//  Contiguous: a C-contiguous kernel argument: data pointer, shape
//  Raw:        shared_memory/local_memory: a plain pointer, 1-d, `size` elements (-1: dynamic)
enum class ArrayStorage : uint8_t { Strided, Contiguous, Raw };

struct Type {
  TypeKind kind = TypeKind::Invalid;
  DType dtype = DType::Float64;
  bool weak = false;
  int ndim = 0;
  ArrayStorage storage = ArrayStorage::Strided;
  long long size = -1;
  std::vector<Type> elems;  // Tuple; Array: {its element Object} for shared arrays of TempStorage
  std::string name;         // Builtin, Class, Object
  int function = -1;        // Function

  static Type scalar(DType d) { Type t; t.kind = TypeKind::Scalar; t.dtype = d; return t; }
  static Type weak_scalar(DType d) { Type t = scalar(d); t.weak = true; return t; }
  static Type array(DType d, int ndim, ArrayStorage s, long long size = -1) {
    Type t; t.kind = TypeKind::Array; t.dtype = d; t.ndim = ndim; t.storage = s; t.size = size; return t;
  }
  static Type tuple(std::vector<Type> e) { Type t; t.kind = TypeKind::Tuple; t.elems = std::move(e); return t; }
  static Type builtin(std::string n) { Type t; t.kind = TypeKind::Builtin; t.name = std::move(n); return t; }
  static Type dtype_obj(DType d) { Type t; t.kind = TypeKind::DTypeObj; t.dtype = d; return t; }
  static Type func(int index) { Type t; t.kind = TypeKind::Function; t.function = index; return t; }
  static Type void_() { Type t; t.kind = TypeKind::Void; return t; }
  static Type range(DType d) { Type t; t.kind = TypeKind::Range; t.dtype = d; return t; }
  static Type cls(std::string n, DType d, long long threads) {
    Type t; t.kind = TypeKind::Class; t.name = std::move(n); t.dtype = d; t.size = threads; return t;
  }
  static Type object(std::string n, DType d, long long threads) {
    Type t = cls(std::move(n), d, threads); t.kind = TypeKind::Object; return t;
  }
  static Type iterator(std::string n, DType d) { Type t; t.kind = TypeKind::Iterator; t.name = std::move(n); t.dtype = d; return t; }

  bool valid() const { return kind != TypeKind::Invalid; }
  bool is_scalar() const { return kind == TypeKind::Scalar; }
  bool is_array() const { return kind == TypeKind::Array; }
  bool is_int() const;      // bool excluded
  bool is_integral() const; // bool included
  bool is_float() const;
  bool is_complex() const;
  bool is_bool() const { return is_scalar() && dtype == DType::Bool; }

  // For messages: "float32", "weak int64 (a Python int)", "float32 array (2-d)".
  std::string str() const;
  // A stable spelling for cache keys and device-function instance names.
  std::string key() const;
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
};

// The C++ spelling of a scalar dtype in generated code.
std::string c_type(DType d);
// The C++ spelling of a value type (scalars, kernel arrays, raw pointers).
std::string c_type(const Type& t);
// Kind letter NumPy uses: b i u f c.
char dtype_kind(DType d);

// NEP 50 result type of a binary arithmetic operation on two scalars
// (weak with weak stays weak).
Type promote(const Type& a, const Type& b);
// The type a local holds when assigned both (Note [Weak scalars]); nullopt
// when no such type exists (an array and a scalar, tuples of other lengths).
std::optional<Type> join(const Type& a, const Type& b);
// Drops weakness (a weak literal on its own: int64, float64, ...).
Type strong(const Type& t);
// The dim3 values of cooperative groups (group.group_index() ...): a tuple of
// three uint32 named "dim3", whose elements kernels read as .x, .y and .z.
Type dim3_type();
bool is_dim3(const Type& t);

}  // namespace kiln::transpiler
