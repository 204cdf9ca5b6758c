// Array creation routines that run kernels, and the allocations behind
// NumPy's order='K'.
//
//   NDArray a = arange(0.0, 0.5, 10, DType::Float32);        // 0, 0.5, ..., 4.5
//   NDArray k = empty_in_axis_order({2, 3, 4}, DType::Int8, {1, 0, 2});   // strides (4, 12, 1)
//   fill_spaced(out, start, stop, base, 50, true, Spacing::Linear, false);  // linspace values
#pragma once

#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// n values start, start + step, ... of `dtype` (integers computed in 64-bit
// integer arithmetic, floats as start + i * step in double, then cast).
// float16 and complex dtypes arrive with the ndarray's cast machinery.
NDArray arange(double start, double step, int64_t n, DType dtype);
NDArray arange_int(int64_t start, int64_t step, int64_t n, DType dtype);

// An uninitialised array of `shape` whose memory holds the axes in
// `axis_order` (outermost first; a permutation of 0..ndim-1), with positive
// strides: what NumPy's order='K' allocates for a non-contiguous prototype.
// Throws std::invalid_argument when axis_order is not a permutation.
NDArray empty_in_axis_order(const Shape& shape, DType dtype, const std::vector<int>& axis_order);
// The same, filled with zeros (one memset on the current stream).
NDArray zeros_in_axis_order(const Shape& shape, DType dtype, const std::vector<int>& axis_order);

// What fill_spaced computes at position i of the spaced axis.
enum class Spacing : int {
  Linear = 0,       // numpy.linspace
  Logarithmic = 1,  // numpy.logspace: base ** (linspace value)
  Geometric = 2,    // numpy.geomspace
  Step = 3,         // linspace's retstep: (stop - start) / div, NaN when div <= 0
};

// Note [Spaced values]
// out[i, ...] = the i-th of `num` values from start[...] to stop[...] (axis 0
// of out is the spaced axis; start, stop and base are broadcast views of
// out's shape, stride 0 along axis 0). The arithmetic is NumPy's, done in
// double or complex double (out's dtype, Float64 or Complex128, which start,
// stop and base share); the caller casts to the result dtype.
// - Linear, with div = num - 1 when `endpoint` else num: start + i * step
//   for step = (stop - start) / div; where step is 0 (underflow) it is
//   start + (i / div) * (stop - start), as NumPy does (NumPy decides that for
//   all elements at once; here each element decides for itself). With
//   div <= 0: start + i * (stop - start). The last value is stop exactly when
//   `endpoint` and num > 1. `floor_values` floors the result (linspace with
//   an integer dtype).
// - Logarithmic: base ** (the Linear value).
// - Geometric: start and stop are rotated onto the positive real axis by
//   sign(start) (z / |z| for complex), spaced logarithmically in base 10,
//   the first and last values set to the rotated start and stop, and the
//   rotation undone: numpy.geomspace's steps.
// Throws std::invalid_argument on mismatched shapes or dtypes. One launch.
void fill_spaced(const NDArray& out, const NDArray& start, const NDArray& stop, const NDArray& base,
                 int64_t num, bool endpoint, Spacing spacing, bool floor_values);

}  // namespace kiln::arraycore
