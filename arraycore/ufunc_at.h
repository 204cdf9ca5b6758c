// ufunc.at's update loop: a[positions] = uf(a[positions], b), unbuffered
// (ufunc_at.cpp). The Python layer turns NumPy indices into flat positions
// (NumPy composition on the host); the loop choice, the casts and the kernel
// are here.
//
//   NDArray pos = ...;                                  // int64 flat C indices into a, in update order
//   ufunc_at_apply(ufunc("add"), a, pos, &b);           // kiln.add.at(a, indices, b)
#pragma once

#include "arraycore/ndarray.h"
#include "arraycore/ufunc.h"

namespace kiln::arraycore {

// Updates a in place: for k in order, a.flat[positions.flat[k]] =
// uf(a.flat[...], b.flat[k]) (unary ufuncs: b is nullptr), each result cast
// back to a's dtype. b (a binary ufunc's) is broadcast to positions' shape
// ("array is not broadcastable to correct shape" otherwise). The loop is the
// one the ufunc's call picks for a's and b's dtypes (UfuncTypeError
// otherwise). One thread runs every update, in order: O(updates) serial time.
void ufunc_at_apply(const UfuncDef& uf, const NDArray& a, const NDArray& positions, const NDArray* b);

}  // namespace kiln::arraycore
