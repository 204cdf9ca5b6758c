// ufunc.reduce and the reductions built on it (sum, prod, max, min, any,
// all, nansum, nanprod, nanmax, nanmin, and the ndarray methods): argument
// normalisation (axes, dtype=, out=, keepdims=, initial=, where=), the loop
// dtype, the start value, the reduction spec (all kernel text here), the
// allocation and one launch of the reduction engine (reduction.h), or of a
// sequential fold for the ufuncs that do not reorder (reduce_apply.cpp).
//
//   ReduceOptions o;                                   // kiln.add.reduce(a, axis=(0, 2), keepdims=True)
//   o.axes = std::vector<int64_t>{0, 2};
//   o.keepdims = true;
//   NDArray r = reduce_apply(ufunc("add"), a, o);
//
// The helpers below it (reduction_axes, reduced_shape, check_reduction_out,
// finish_reduction, rows_of) are the argument rules every reduction family
// shares (statistics, arg-reductions): use them rather than copies.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

struct ReduceOptions {
  // axis=: none = every axis (axis=None); a tuple's entries; or one int
  // (`single`: a 0-d operand then accepts 0 and -1, as NumPy's reduce does).
  std::optional<std::vector<int64_t>> axes;
  bool single = false;
  std::optional<DType> dtype;          // dtype=
  std::optional<NDArray> out;          // out= (its shape must be the result's)
  bool keepdims = false;
  // initial=: Default (not given: the ufunc's identity), None_ (initial=None:
  // no start value), or Value (`initial`, converted to the loop dtype as
  // numpy.array(initial, dtype=loop) does).
  enum class Initial { Default, None_, Value } initial_kind = Initial::Default;
  ScalarValue initial;
  // where=: none = everywhere; else a mask broadcast to the operand's shape
  // (a 0-d bool array for where=False).
  std::optional<NDArray> where;
  bool skip_nan = false;               // NaNs count as the identity (nansum, nanprod: add and multiply)
};

// Reduces `a` with the binary ufunc `uf` as numpy.ufunc.reduce: the result
// (a new array, or `options.out` with the result cast into it). Throws
// std::invalid_argument (ValueError), AxisError, TypeError, UfuncTypeError,
// ScalarOverflow (OverflowError for an initial= out of the loop dtype's range).
NDArray reduce_apply(const UfuncDef& uf, const NDArray& a, const ReduceOptions& options);

// The reduced axes of an ndim-dimensional operand for `axes` (none = all),
// normalised (AxisError), in the order given; a repeat is ValueError
// ("duplicate value in 'axis'"). `single` is an int axis= (0 and -1 name no
// axis of a 0-d operand).
std::vector<int> reduction_axes(const std::optional<std::vector<int64_t>>& axes, bool single, int ndim);

// `shape` without the reduced axes, or with 1 for each when keepdims.
Shape reduced_shape(const Shape& shape, std::span<const int> axes, bool keepdims);

// NumPy's ValueErrors for an out= of another ndim or shape than `shape`
// (`name` the operation, as NumPy's message names it).
void check_reduction_out(const std::string& name, const NDArray& out, const Shape& shape, bool keepdims);

// `result` reshaped to `shape` (its size), or, with `out`, cast into out (NumPy's
// unsafe casting) and out returned.
NDArray finish_reduction(const NDArray& result, const Shape& shape, const std::optional<NDArray>& out);

// a's elements with axes permuted to `perm`, cast to `dtype`, as a
// C-contiguous (m, n) array (no copy when `a` already is one).
NDArray rows_of(const NDArray& a, std::span<const int> perm, int64_t m, int64_t n, DType dtype);

// a with axes permuted to `perm` as an (m, n) view (the last axis of perm
// along the rows, size-1 axes ignored), or nullopt when the other axes do not
// merge into one stride: rows_of without a copy, when one is possible.
std::optional<NDArray> row_view(const NDArray& a, std::span<const int> perm, int64_t m, int64_t n);

// The dtype a reduction or scan of `uf` over `in` runs in: the (t, t) -> t
// loop NumPy picks for dtype= `requested` and out's dtype `out` (without
// either, add and multiply run bool and narrow integers in int64/uint64).
DType reduction_loop_dtype(const UfuncDef& uf, DType in, std::optional<DType> requested, std::optional<DType> out);

// NumPy's ValueErrors for a ufunc that is not binary with one output
// (`method`: "reduce" or "accumulate").
void check_binary_method(const UfuncDef& uf, const std::string& method);

// Note [Reorderable ufuncs]
// NumPy calls a binary ufunc reorderable when it has an identity, or is one of
// maximum/minimum/fmax/fmin (identity None, still associative and
// commutative). Only those reduce over several axes at once, and only those
// are reduced and scanned in parallel here (Note [Pairwise passes]); the
// others (subtract, divide, power, lcm, comparisons, ...) fold sequentially in
// NumPy's order, x0 op x1 op x2 ...
bool reorderable(const UfuncDef& uf);

// The C++ expression of dtype's C type with exactly the bits of the value
// at `bytes` (itemsize(dtype) bytes of that dtype).
std::string literal_of(const void* bytes, DType dtype);

}  // namespace kiln::arraycore
