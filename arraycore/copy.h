// The one generated copy/cast kernel that astype, copy, ascontiguousarray,
// strided downloads (and later __setitem__) share: dims collapsed
// (strided_plan.h), a contiguous fast path, N-d strided addressing with ndim
// as run-time data (kiln/strided_index.h), grid-stride loops.
//
//   NDArray b = astype(a, DType::Float64, Order::C);   // new array, converted
//   copy_into(a, b);                                    // same shapes, any layouts
#pragma once

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// True when copy_into can convert between these dtypes today (float16 and
// complex conversions arrive with kiln's half and complex device headers).
bool copy_supported(DType from, DType to);

// dst[...] = (dst dtype) src[...]; shapes must be equal. Throws
// std::invalid_argument on a shape mismatch, std::logic_error when
// !copy_supported. Runs on the current stream.
void copy_into(const NDArray& src, const NDArray& dst);

// A new array of `dtype` in `order` holding a's values.
NDArray astype(const NDArray& a, DType dtype, Order order);

}  // namespace kiln::arraycore
