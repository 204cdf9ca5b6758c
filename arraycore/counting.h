// Counting into bins (counting.cpp): the kernels of numpy.digitize's
// direction check, bincount, histogram and histogram2d. kiln/_counting.py
// composes them with the extremes, the bin-width estimators and NumPy's
// scalar type rules for the few host scalars (first, last, their
// difference), which it passes here as NumPy scalars of the dtypes they
// take (Note [Histogram edges]).
//
//   int dir = bins_direction(bins);                        // 1, -1 or 0 (neither)
//   NDArray c = bin_counts(x, nullptr, 10);                 // bincount of x, 10 bins
//   NDArray e = linspace_edges(first, last, delta, step, 11, DType::Float64);
//   NDArray h = uniform_bin_counts(a, nullptr, lo, hi, first, denom, 10, e);
//
// Every kernel is one elementwise-engine launch, one thread per value, its
// source generated here per dtype (generated_spec), including
// stdlib_kernels/kiln/search.h.
//
// Note [Atomic bin sums]
// Counts (bincount, histogram without weights) are 64-bit integer atomic adds:
// exact and deterministic. Integer and bool weights are summed the same way.
// Float weights are summed by float64 atomicAdd, in an order that varies from
// run to run on a GPU: a bin's sum is exact to within (k - 1) u sum|w| (k the
// bin's count, u = 2^-53), as NumPy's sequential sum is, but its last bits may
// differ from NumPy's and between runs. Complex weights (histogram only:
// NumPy's bincount and histogram2d refuse them) make two float64 atomic sums
// per bin, one per part, each within that bound for its part. histogram
// rounds the float64 sums to the weights' dtype once; NumPy does so per block
// of 65536 elements. With bins given as edges, NumPy sums weights as
// differences of a cumulative sum, which rounds differently again (within the
// same kind of bound). Each value is one global atomic add (two, complex):
// values crowding into few bins serialise on them (no per-block privatised
// histogram yet).
//
// Note [Histogram edges]
// Uniform bins are placed as NumPy places them, operation for operation, in
// the same dtypes: edges by NumPy's linspace algorithm (k * step + first in the
// dtype of first and last, the last edge set to last; kiln.linspace computes in
// double instead), and each value's bin by (x - first) / (last - first) * n
// truncated, then moved by one where the value lies below its bin's lower edge
// or on its upper edge. Values on an edge land in NumPy's bin, the last bin is
// closed, values outside [first, last] and NaNs are dropped. The scalars (first,
// last, their difference) follow NumPy's type promotion for the Python or NumPy
// scalars they come from, which can make the arithmetic wider than the edges.
#pragma once

#include <cstdint>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// How weights are summed into bins (Note [Atomic bin sums]): no weights
// (counts), integer or bool weights (int64 sums), float (float64), complex
// (complex128).
enum class BinSum { Count, Int, Float, Complex };

// The sum kind histogram uses for weights of `dtype`.
BinSum bin_sum_for(DType weights);
// The dtype of the sums: int64, float64 or complex128.
DType bin_sum_dtype(BinSum kind);

// The direction of the 1-d `bins` as NumPy's digitize decides it on the
// values as float64: 1 when they never decrease, -1 when they never
// increase, 0 otherwise (the first element differing from bins[0] gives the
// direction to check; a NaN there counts as a step down). One sync.
int bins_direction(const NDArray& bins);

// numpy.bincount's counts of the non-negative integers in the 1-d `x` into
// `length` bins (the caller checked the values), or the float64 sums of
// `weights` (x's shape, any real dtype) at those positions.
NDArray bin_counts(const NDArray& x, const NDArray* weights, int64_t length);

// NumPy's linspace(start, stop, num) as the histogram edges (num >= 2), cast to
// `dtype` (Note [Histogram edges]): start, stop, delta = stop - start and
// step = delta / (num - 1) are NumPy scalars of one float or complex dtype,
// the edges' arithmetic type; a zero step scales by delta instead.
NDArray linspace_edges(const ScalarValue& start, const ScalarValue& stop, const ScalarValue& delta,
                       const ScalarValue& step, int64_t num, DType dtype);

// Counts (or weight sums: bin_sum_for(weights)) of the 1-d `a` over `nbins`
// uniform bins with the given `edges` (Note [Histogram edges]). NumPy
// scalars: lo and hi (first and last in the dtype NumPy compares a with),
// first (in the dtype of edges - first) and denom = last - first (in the
// dtype of the division).
NDArray uniform_bin_counts(const NDArray& a, const NDArray* weights, const ScalarValue& lo, const ScalarValue& hi,
                           const ScalarValue& first, const ScalarValue& denom, int64_t nbins, const NDArray& edges);

// Counts (or weight sums) of the 1-d non-empty `a` in the bins between the
// increasing `edges` (at least 2): edges[k] <= x < edges[k + 1], the last
// bin closed; compared in the common dtype of a and edges.
NDArray edge_bin_counts(const NDArray& a, const NDArray* weights, const NDArray& edges);

// numpy.histogram2d's float64 counts (or float64 sums of the real
// `weights`) of the points (x[k], y[k]) over the bins between the
// increasing edges ex and ey: shape (ex.size - 1, ey.size - 1), a value on
// an axis's last edge in the last bin, values outside and NaNs dropped.
NDArray histogram2d_counts(const NDArray& x, const NDArray& y, const NDArray* weights, const NDArray& ex,
                           const NDArray& ey);

// numpy.histogramdd's float64 counts (or float64 sums of the real
// `weights`) of the N points in the rows of the (N, D) `sample` over the
// bins between the increasing `edges` (D arrays, each at least 1 long):
// shape (edges[0].size - 1, ...), a value on an axis's last edge in its
// last bin, values outside and NaNs dropped. Compared in the common dtype
// of the sample and every axis's edges.
NDArray histogramdd_counts(const NDArray& sample, const NDArray* weights, const std::vector<NDArray>& edges);

}  // namespace kiln::arraycore
