// CUB's warp and block collectives in kernels (kiln.jit.cub, as cupyx.jit.cub):
// the types a kernel builds from them, the rules of their calls and their
// C++ spellings (cub.cpp). infer.cpp and lower.cpp ask here; the C++ behind
// them is CUB itself on CUDA and kiln/jit_cub.h's implementation on the host.
//
//   WarpReduce = jit.cub.WarpReduce[numpy.float32]       # a Class: cub_specialize
//   storage = jit.shared_memory(dtype=WarpReduce.TempStorage, size=1)
//   agg = WarpReduce(storage[0])                         # an Object: cub_construct
//   total = agg.Sum(x[i])                                # float32, valid in lane 0
//   top = agg.Reduce(x[i], jit.cub.Max())
//
// Note [kiln.jit.cub]
// Classes (WarpReduce[T], BlockReduce[T, threads], their TempStorage) are
// compile-time values, as dtypes are. TempStorage lives only in shared
// memory: an element of such an array, and a collective built on one, are
// C++ pointers to it (`cub::WarpReduce<float>::TempStorage*`), so locals
// holding them are declared before their first assignment like any other; a
// method call builds the CUB object on the spot,
// `cub::WarpReduce<float>(*agg_).Sum(v)`, which costs nothing (CUB's
// collectives hold only a reference). The aggregate is valid in lane 0 of the
// warp (thread 0 of the block), as CUB documents. float16 and bfloat16 values
// reduce in float32 and round once at the end, as NumPy's float16 sums do (a
// sum rounded to half at every step drifts from NumPy's by several ulps).
// Sum() adds, Max() and Min() are NumPy's maximum and minimum (NaN wins,
// complex numbers in NumPy's order): kiln's functors on both backends.
#pragma once

#include <string>

#include "transpiler/builtins.h"
#include "transpiler/types.h"

namespace kiln::transpiler {

// `class_row[index]`: WarpReduce[dtype] or BlockReduce[dtype, threads];
// `index_type` is the index's type, `index` its expression.
Type cub_specialize(const BuiltinInfo& class_row, const Type& index_type, const Expr& index);
// `cls.attr` (only .TempStorage of a collective class).
Type cub_class_attribute(const Type& cls, const std::string& attr, const Expr& e);
// `cls(args)`: a collective on its TempStorage.
Type cub_construct(const Type& cls, const CallSite& s);
// The result of calling a CubOperator or CubMethod row (site.self: the object).
Type cub_call_result(const BuiltinInfo& b, const CallSite& s);

bool cub_is_temp_storage(const Type& t);
// The dtype a collective of T computes in (Note [kiln.jit.cub]).
DType cub_compute_dtype(DType t);
// "jit.cub.WarpReduce[float32].TempStorage", for messages and keys.
std::string cub_type_str(const Type& t);
// The C++ class of a Class or Object: "cub::BlockReduce<float, 256>", "cub::WarpReduce<float>::TempStorage".
std::string cub_cpp_class(const Type& t);
// The C++ type of an Object value (a TempStorage pointer, or an operator functor).
std::string cub_c_type(const Type& t);

}  // namespace kiln::transpiler
