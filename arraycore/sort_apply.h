// The sort family's operations: sort, argsort, partition, argpartition,
// lexsort and ndarray.sort (sort_apply.cpp), and searchsorted
// (search_apply.cpp), over the sort engine (sort.h) and the elementwise
// engine. Arguments are checked as NumPy checks them (axes through axes.h).
//
//   NDArray s = sort_apply(a, -1);                 // sorted copy along the last axis
//   NDArray i = argsort_apply(a, std::nullopt);    // int64 indices sorting a.ravel()
//   sort_in_place(a, 0);                           // ndarray.sort(axis=0)
//   NDArray p = searchsorted_apply(a, v, "left", nullptr);   // int64, v's shape
//
// Note [Sort along an axis]
// Every sort moves `axis` last and sees the array as (m, n) rows: a view when
// the other axes merge into one stride (no copy), else a C-contiguous copy.
// Results are written through the same kind of view, or into a C-contiguous
// temporary that is copied back through the axis-permuted view of the
// result. Sorts are always stable, whatever `kind` says, so argsort gives
// NumPy's kind='stable' result; partition and argpartition sort fully, which
// satisfies their contract (NumPy promises only that element kth is in
// place, smaller ones before, larger after).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arraycore/elementwise.h"
#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// numpy's sort kind/order/stable checks: kind (nullopt: None) one of quicksort,
// quick, mergesort, merge, heapsort, heap, stable; not together with stable;
// no order (kiln arrays have no fields). std::invalid_argument (ValueError);
// kind_repr is how the message shows a bad kind (Python's repr).
void check_sort_kind(std::optional<std::string_view> kind, std::string_view kind_repr, bool order_given,
                     bool stable_given);

// a sorted along `axis` (nullopt: a flattened in C order), a new array.
NDArray sort_apply(const NDArray& a, std::optional<int64_t> axis);

// int64 indices that sort a along `axis` (nullopt: flattened), ties in order.
NDArray argsort_apply(const NDArray& a, std::optional<int64_t> axis);

// ndarray.sort: a sorted in place along `axis`.
void sort_in_place(const NDArray& a, int64_t axis);

// Sorts a along the normalised `axis` into keys_out (a's shape and dtype)
// and/or index_out (a's shape, int64), any layouts; keys_out may be a
// (Note [Sort along an axis]).
void sort_along_axis(const NDArray& a, int axis, const NDArray* keys_out, const NDArray* index_out);

// partition's kth argument as the binding reads it (numpy.asarray(kth)).
struct KthArgument {
  std::vector<int64_t> values;   // flattened
  bool integer = true;           // an integer dtype (not bool)
  int ndim = 0;
};

// partition (indices false) or argpartition (true) of a around kth along
// `axis` (nullopt: flattened): kind must be "introselect" (kind_repr: as
// check_sort_kind); kth integers in [-n, n). The result is a full (stable)
// sort (Note [Sort along an axis]).
NDArray partition_apply(const NDArray& a, const KthArgument& kth, std::optional<int64_t> axis,
                        std::optional<std::string_view> kind, std::string_view kind_repr, bool order_given,
                        bool indices);

// numpy.lexsort: int64 indices sorting by the last key, ties broken by the
// one before, along `axis` of the keys' common shape. TypeError for no keys,
// std::invalid_argument for keys of different shapes.
NDArray lexsort_apply(std::span<const NDArray> keys, int64_t axis);

// out[r, j] = src[r, idx[r, j]] for C-contiguous 2-D src (m, n) and int64
// idx (m, k), a new (m, k) array of src's dtype: take_along_axis on rows.
NDArray gather_rows(const NDArray& src, const NDArray& idx);

// numpy.searchsorted(a, v, side, sorter) for a 1-d kiln array a (sorted, or
// sorted through the int sorter, its argsort) and v of any shape: int64
// positions of v's shape. a and v compare in their promoted dtype
// (numpy.result_type). NumPy's ValueError/TypeError messages.
NDArray searchsorted_apply(const NDArray& a, const NDArray& v, std::string_view side, const NDArray* sorter);

// The elementwise spec `name` (made on first use from params, operation and
// the preamble, which follows #include <kiln/ufunc_math.h>; exact floating
// point options), kept for the process: the sort, search and set kernels.
const EwSpec& keyed_spec(const std::string& name, const std::vector<EwParam>& params, const std::string& operation,
                         const std::string& preamble = "");

// `x` as C-contiguous (itself when it is one, else a copy).
NDArray c_contiguous_copy(const NDArray& x);

}  // namespace kiln::arraycore
