// numpy.cross (cross_product.cpp): the cross product of 3-vectors along an
// axis of each operand, broadcast over the others, each component one
// ExpressionKernel with NumPy's steps (operands cast to the promoted dtype
// first, then x * y - u * v in that dtype; bool: the ufuncs' TypeError).
// 2-vectors are refused, as NumPy 2.5 refuses them (2.0 to 2.4 deprecated
// them).
//
//   NDArray c = cross(a, b, -1, -1, -1);
#pragma once

#include <cstdint>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// numpy.cross(a, b, axisa, axisb, axisc). Errors are NumPy 2.5's: ValueError
// for 0-d operands and vectors not of 3 components, AxisError naming
// axisa/axisb/axisc, the broadcasting ValueError.
NDArray cross(const NDArray& a, const NDArray& b, int64_t axisa, int64_t axisb, int64_t axisc);

}  // namespace kiln::arraycore
