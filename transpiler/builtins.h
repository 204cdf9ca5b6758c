// The one table of what kernels can call or read besides their own locals:
// the math module, kiln ufuncs on scalars, Python builtins, thread indices,
// barriers, shared/local memory, atomics, warp and cooperative-group
// operations. A row is (qualified name, rule, C++ spelling, dtypes, doc);
// the rule decides argument checks and the result type here
// (builtin_result) and the C++ shape in lower_builtins.cpp. Adding a builtin
// of an existing rule is adding a row. Every kiln ufunc with one output is a
// row of rule Ufunc, made from arraycore's ufunc table.
//
//   const BuiltinInfo* b = find_builtin("math.sqrt");   // rule Math1, spelling "kiln::jit::sqrt"
//   Type t = builtin_result(*b, site);                  // float32 for a float32 argument
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transpiler/ast.h"
#include "transpiler/types.h"

namespace kiln::transpiler {

enum class BuiltinRule : uint8_t {
  Namespace,     // only its attributes are used: kiln.jit.threadIdx, math
  IndexValue,    // threadIdx.x ...: a uint32 value, spelling = the C++ expression
  IntValue,      // warpsize: an int32 value
  Math1,         // one float (ints become float64): same float type
  Math2,         // two floats, promoted
  MathPred,      // one float -> bool
  MathToInt,     // math.floor/ceil/trunc: a float -> int64 (as Python)
  Abs,           // abs(x): same type (complex -> its float)
  MinMax,        // min/max of two or more scalars: promoted
  Round,         // round(x) -> int64; round(x, n) -> float
  Len,           // len(array) -> int64
  PyCast,        // int(x), float(x), bool(x), complex(x)
  Range,         // range(stop), range(start, stop[, step]); kiln.jit.range(..., unroll=)
  Print,         // print(*args, sep=' ', end='\n') -> printf
  Barrier,       // syncthreads(): no arguments
  SyncWarp,      // syncwarp(mask=0xffffffff)
  LaneId,        // laneid() -> uint32
  Grid,          // grid(ndim): uint32 or a tuple of them
  GridSize,      // gridsize(ndim)
  SharedMemory,  // shared_memory(dtype, size or None, alignment=None)
  LocalMemory,   // local_memory(dtype, size)
  Atomic,        // atomic_op(array, index, value) -> old value
  AtomicCas,     // atomic_cas(array, index, compare, value) -> old value
  Shuffle,       // shfl_*_sync(mask, value, lane/delta/laneMask, width=32) -> value's type
  Vote,          // all_sync/any_sync(mask, predicate) -> bool
  Ballot,        // ballot_sync(mask, predicate) -> uint32
  GroupCtor,     // cg.this_grid(), cg.this_thread_block(): a group value (spelling = its type)
  GroupSync,     // group.sync()
  GroupQuery,    // group.thread_rank() ...: no arguments; dtypes = the result ("I" uint32, "Q" uint64,
                 // "?" bool, "3" a dim3: a tuple of three uint32 with .x .y .z), spelling = the C++ function
  CgSync,        // cg.sync(group)
  CgWait,        // cg.wait(group), cg.wait_prior(group, n): for cg.memcpy_async
  CgMemcpy,      // cg.memcpy_async(group, dst, dst_index, src, src_index, nbytes, aligned_size=None)
  Ufunc,         // kiln.<ufunc>(scalars...): NumPy's loop for the operands (arraycore's table),
                 // spelling = the ufunc's device function (kiln/ufunc_math.h)
  CubClass,      // jit.cub.WarpReduce[dtype], BlockReduce[dtype, threads]: a class (cub.h)
  CubOperator,   // jit.cub.Sum() ...: a reduction operator object; spelling = its C++ functor
  CubMethod,     // <collective>.Sum(value), .Reduce(value, op); spelling = the C++ method
  ThrustPolicy,  // jit.thrust.seq, jit.thrust.device: a value only algorithms take
  Thrust,        // jit.thrust.<algorithm>(policy, iterators..., values...) (thrust.h); spelling = the C++ function
  ArrayIter,     // array.begin(), array.end(): an iterator (thrust.h)
};

struct BuiltinInfo {
  std::string_view name;      // qualified: "math.sqrt", "builtins.range", "kiln.jit.atomic_add"
  BuiltinRule rule;
  std::string_view spelling;  // C++: function, expression or type name
  std::string_view dtypes;    // dtype chars the operation takes ("" = any); NumPy's char codes
  std::string_view doc;
};

const std::vector<BuiltinInfo>& builtin_table();
const BuiltinInfo* find_builtin(std::string_view name);

// What a call site gives the rules: argument types and expressions, keyword
// arguments, and how to read a compile-time integer/dtype from an argument.
struct CallSite {
  const Expr& call;                                        // the Call node
  std::vector<Type> args;                                  // positional, in order
  std::vector<std::pair<std::string, Type>> kwargs;
  std::function<std::optional<long long>(const Expr&)> const_int;
  const Type* self = nullptr;                              // a method's object (CubMethod)
  const Expr& arg(size_t i) const { return *call.operands[i + 1]; }
  const Type* kwarg(std::string_view name) const;
  // Parameter `i` named `name`: given by position or by keyword; nullptr when absent.
  const Type* param(size_t i, std::string_view name) const;
  const Expr* param_expr(size_t i, std::string_view name) const;
};

// The result type of calling `b` at `site`; throws TranspileError naming what
// the builtin takes when the arguments do not fit.
Type builtin_result(const BuiltinInfo& b, const CallSite& site);
// The type of reading value builtin `b` (IndexValue, IntValue).
Type builtin_value_type(const BuiltinInfo& b);

// The loop NumPy picks for ufunc row `b` at `site` (input and output dtypes).
struct UfuncCall {
  std::vector<DType> in;
  DType out;
};
// `dtype`: the call's dtype= keyword (a DTypeObj type) or nullptr.
UfuncCall ufunc_call(const BuiltinInfo& b, const std::vector<Type>& args, const Expr& call, const Type* dtype = nullptr);

// "int32, uint32, float32" for a dtypes string, for messages.
std::string dtype_list(std::string_view chars);
bool dtype_allowed(std::string_view chars, DType d);

}  // namespace kiln::transpiler
