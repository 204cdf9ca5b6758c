// Array creation routines that run kernels.
#pragma once

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// n values start, start + step, ... of `dtype` (integers computed in 64-bit
// integer arithmetic, floats as start + i * step in double, then cast).
// float16 and complex dtypes arrive with the ndarray's cast machinery.
NDArray arange(double start, double step, int64_t n, DType dtype);
NDArray arange_int(int64_t start, int64_t step, int64_t n, DType dtype);

}  // namespace kiln::arraycore
