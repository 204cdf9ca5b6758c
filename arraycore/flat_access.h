// Reading and writing an array through positions of its C-order flattening
// (numpy's a.flat), whatever its layout, and the routines made of it:
// putmask, fill_diagonal, resize; and byteswap, which rewrites each element's
// bytes in place or into a copy (flat_access.cpp).
//
//   NDArray s = flat_slice_get(a, 1, 2, 3);      // a.flat[1:7:2] (a new 1-d array)
//   flat_slice_set(a, 0, 5, 4, v);               // a.flat[0:20:5] = v, v repeated as needed
//   putmask(a, mask, v);                         // a.flat[i] = v.flat[i % v.size] where mask.flat[i]
//   fill_diagonal(a, v, false);                  // numpy.fill_diagonal
//
// Note [Flat positions]
// A flat position k of `a` names the element at k's C-order coordinates in
// a's shape, for any strides: kernels address `a` as a kiln::RawArray, whose
// operator[] turns k into that element's offset (stdlib_kernels/kiln/
// elementwise.h), so no contiguous copy of `a` is made and written back. The
// kernels move elements as unsigned integers of the itemsize (one module per
// itemsize, not per dtype): values are cast to a's dtype first. Values are
// read cyclically, value i % n for the i-th position written (NumPy's rule
// for flat assignment, put, putmask and resize); values that share memory
// with the target are copied first, so every value is read before any write.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// a.flat[start + i * step] for i < count: a new 1-d C-contiguous array of
// a's dtype. Positions must lie in [0, a.size()) (the caller resolves the
// slice).
NDArray flat_slice_get(const NDArray& a, int64_t start, int64_t step, int64_t count);

// a.flat[start + i * step] = values.flat[i % values.size()] for i < count,
// values cast to a's dtype (unsafely; the front end checks casting). Nothing
// happens when `values` is empty. Throws "assignment destination is
// read-only" (ValueError) for a read-only `a`.
void flat_slice_set(const NDArray& a, int64_t start, int64_t step, int64_t count, const NDArray& values);

// numpy.putmask: where mask.flat[i] is nonzero, a.flat[i] = values.flat[i %
// values.size()]. `mask` (any dtype) must have a's size (std::invalid_argument
// "putmask: mask and data must be the same size"); values of another dtype
// must cast safely to a's (TypeError, NumPy's message) unless `unsafe`.
void putmask(const NDArray& a, const NDArray& mask, const NDArray& values, bool unsafe);

// numpy.fill_diagonal: a.flat[:end:step] = values, with NumPy's step (a 2-d
// array may be tall: `wrap` continues the diagonal below the first square);
// std::invalid_argument for a.ndim < 2 ("array must be at least 2-d") and
// for unequal dimensions beyond 2-d.
void fill_diagonal(const NDArray& a, const NDArray& values, bool wrap);

// numpy.resize: a new array of `shape` filled with a.flat repeated (zeros
// when a is empty).
NDArray resize(const NDArray& a, const Shape& shape);

// numpy.trim_zeros' bounds: per axis d, [first, last + 1) of the
// coordinates along d of a's nonzero elements ((0, 0) on every axis when
// there is none). One launch over a's flat positions and one read back.
std::vector<std::pair<int64_t, int64_t>> nonzero_bounds(const NDArray& a);

// numpy.ndarray.byteswap: each element's bytes reversed (each part's of a
// complex), into `a` itself when `inplace`, else into a new C-ordered array.
NDArray byteswap(const NDArray& a, bool inplace);

}  // namespace kiln::arraycore
