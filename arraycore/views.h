// The view operations on NDArray: reshape (with NumPy's view rules), ravel,
// transpose, swapaxes, moveaxis, squeeze, expand_dims, flip and broadcast_to.
// Each returns an NDArray sharing `a`'s memory when it is a view; reshape and
// ravel return a fresh (owning) array when a copy is needed. Axis arguments
// are checked by arraycore/axes.h (AxisError) with NumPy's messages.
//
//   NDArray a = NDArray::empty({4, 6}, DType::Float32);
//   NDArray t = transpose(a);                             // (6, 4), a view
//   NDArray r = reshape(t, {24}, 'C');                    // a copy: t is not C-contiguous
//   NDArray f = reshape(t, {2, 12}, 'F');                 // a view (Note [Reshape views])
//   is_view_of(f, a);                                     // true
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// numpy's copy= of reshape: None (copy only when no view exists), True, False.
enum class CopyMode : uint8_t { IfNeeded, Always, Never };

// Whether `v` shares `a`'s memory (a view of it rather than a fresh copy).
bool is_view_of(const NDArray& v, const NDArray& a);

// `requested` with its one negative (unknown) entry resolved for `size`
// elements; std::invalid_argument with NumPy's messages ("can only specify
// one unknown dimension", "cannot reshape array of size 6 into shape (4,)",
// "maximum supported dimension for an ndarray is currently 64, found 65").
Shape resolve_reshape(const Shape& requested, int64_t size);

// The strides that view `a` as `shape` read in `order` (C or F), or nullopt
// when no view can (Note [Reshape views]). `shape` has a's size.
std::optional<Strides> reshape_strides(const NDArray& a, const Shape& shape, Order order);

// numpy.reshape: `shape` may hold one -1; `order` is 'C', 'F' or 'A' (the
// index order elements are read and placed in). A view when the strides
// allow one (unless copy is Always), else a copy in `order`; copy=Never
// throws std::invalid_argument("Unable to avoid creating a copy while reshaping.").
NDArray reshape(const NDArray& a, const Shape& shape, char order = 'C', CopyMode copy = CopyMode::IfNeeded);

// numpy.ravel: 1-d, read in `order` ('C', 'F', 'A' or 'K'); a view when no copy is needed.
NDArray ravel(const NDArray& a, char order = 'C');

// Note [Memory order of axes]
// The axes of an array with `strides`, outermost first, as a new array of
// order 'K' lays them out (copies, astype, *_like; the caller takes C or F
// first for a C- or F-contiguous array): NumPy's and CuPy's rule, a stable
// sort by |stride|, largest outermost, equal strides (0 among them) in axis
// order. Checked against NumPy's empty_like(order='K') on 2,000 random
// broadcast, permuted, reversed and stepped layouts. Reading order 'K'
// (ravel, flatten) is NumPy's iterator order instead: iteration_order_axes.
std::vector<int> memory_order_axes(std::span<const int64_t> strides);

// The axes, outermost first, in which ravel and flatten with order 'K' read
// an array (NumPy's iterator order): an insertion sort from the innermost
// axis outwards, an axis moving inwards past axes of larger |stride|, where
// a 0-stride compares with nothing. It differs from memory_order_axes
// around 0-strides: strides (8, 0, 16) read (1, 2, 0), lay out (2, 0, 1).
std::vector<int> iteration_order_axes(std::span<const int64_t> strides);

// Axes reversed (numpy's a.T).
NDArray transpose(const NDArray& a);
// Axes permuted: result axis i is a's axis axes[i]. AxisError for an axis out
// of range; ValueError (std::invalid_argument) "axes don't match array" or
// "repeated axis in transpose".
NDArray transpose(const NDArray& a, std::span<const int64_t> axes);

NDArray swapaxes(const NDArray& a, int64_t axis1, int64_t axis2);

// numpy.moveaxis: the `source` axes moved to the `destination` positions.
NDArray moveaxis(const NDArray& a, std::span<const int64_t> source, std::span<const int64_t> destination);

// Without the given length-1 axes (every length-1 axis when `axes` is nullopt).
NDArray squeeze(const NDArray& a, const std::optional<std::vector<int64_t>>& axes);

// Length-1 axes inserted at the positions `axes` name in the result.
NDArray expand_dims(const NDArray& a, std::span<const int64_t> axes);

// Elements reversed along the given axes (every axis when `axes` is nullopt).
NDArray flip(const NDArray& a, const std::optional<std::vector<int64_t>>& axes);

// numpy.broadcast_to: stride 0 on new and stretched axes; std::invalid_argument
// with NumPy's messages when `a` does not broadcast to `shape`.
NDArray broadcast_view(const NDArray& a, const Shape& shape);

}  // namespace kiln::arraycore
