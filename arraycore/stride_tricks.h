// Views with strides the caller chooses (stride_tricks.cpp): numpy.lib.
// stride_tricks' as_strided and sliding_window_view.
//
//   NDArray w = sliding_window_view(x, {3}, {});   // (n,) -> (n - 2, 3), a read-only view of x
//   NDArray v = as_strided(x, {2, 2}, {8, 8}, true);
//
// Unlike NumPy's, as_strided refuses a view that reaches outside the memory
// `a` lies in (std::invalid_argument, require_within_memory in ndarray.h): on
// a GPU such a view faults or corrupts other allocations.
#pragma once

#include <cstdint>
#include <span>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// A view of a's memory from a's first element with `shape` and byte
// `strides`, read-only unless `writeable` (and a is); std::invalid_argument
// when the view reaches outside a's memory.
NDArray as_strided(const NDArray& a, const Shape& shape, const Strides& strides, bool writeable);

// numpy.lib.stride_tricks.sliding_window_view: every window of
// `window_shape` over the axes `axes` (all of a's axes, in order, when
// empty; repeats allowed), as trailing dimensions of a view. ValueError
// (std::invalid_argument) with NumPy's messages for negative or oversized
// windows and mismatched lengths.
NDArray sliding_window_view(const NDArray& a, std::span<const int64_t> window_shape,
                            std::span<const int64_t> axes, bool axes_given, bool writeable);

}  // namespace kiln::arraycore
