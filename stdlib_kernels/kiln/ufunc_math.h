// The scalar functions behind every ufunc loop, kiln::ufn::<ufunc name>
// (one overload per NumPy type loop): what generated ufunc kernels include.
//
//   out0 = kiln::ufn::floor_divide(in0, in1);   // NumPy's semantics, per dtype
#pragma once

#include "kiln/ufunc_arith.h"
#include "kiln/ufunc_transcendental.h"
#include "kiln/ufunc_bfloat16.h"
