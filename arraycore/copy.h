// The one generated copy/cast kernel that astype, copy, ascontiguousarray,
// strided downloads (and later __setitem__) share: dims collapsed
// (strided_plan.h), a contiguous fast path, N-d strided addressing with ndim
// as run-time data (kiln/strided_index.h), grid-stride loops.
//
//   NDArray b = astype(a, DType::Float64, Order::C);   // new array, converted
//   copy_into(a, b);                                    // same shapes, any layouts
//   copy_into_where(a, b, mask);                        // b[i] = a[i] where mask[i]
//
// Every pair of the 14 dtypes converts as NumPy's casts do (bit for bit,
// float16 included; complex -> real takes the real part, without NumPy's
// ComplexWarning, which is the front end's to give).
#pragma once

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// dst[...] = (dst dtype) src[...]; shapes must be equal (the caller
// broadcasts). Throws std::invalid_argument on a shape mismatch. A source
// overlapping dst is read before anything is written (Note [Overlapping
// copies]). Runs on the current stream.
void copy_into(const NDArray& src, const NDArray& dst);

// dst[i] = (dst dtype) src[i] where mask[i], for a bool mask; the three
// shapes must be equal (the caller broadcasts, e.g. with stride-0 views) and
// any strides are fine. Throws std::invalid_argument on a shape mismatch or a
// non-bool mask.
void copy_into_where(const NDArray& src, const NDArray& dst, const NDArray& mask);

// True when the byte ranges a and b span in one allocation meet.
bool shares_bytes(const NDArray& a, const NDArray& b);

// True when `a` shares bytes with `dst` without being the very same view
// (Note [Overlapping copies]): such a source must be copied before writing.
bool overlaps_partially(const NDArray& a, const NDArray& dst);

// A new array of `dtype` in `order` holding a's values.
NDArray astype(const NDArray& a, DType dtype, Order order);
// The same in order 'K': C or F for a C- or F-contiguous a, else a's memory
// order of axes (Note [Memory order of axes], arraycore/views.h).
NDArray astype_keeping_order(const NDArray& a, DType dtype);

}  // namespace kiln::arraycore
