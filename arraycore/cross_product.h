// numpy.cross (cross_product.cpp): the cross product of 2- or 3-vectors
// along an axis of each operand, broadcast over the others, each component
// one ExpressionKernel with NumPy's steps (operands cast to the promoted
// dtype first, then x * y - u * v in that dtype; bool: the ufuncs' TypeError).
//
//   CrossResult r = cross(a, b, -1, -1, -1);     // r.result; r.two_dimensional: NumPy's DeprecationWarning
#pragma once

#include <cstdint>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

struct CrossResult {
  NDArray result;
  bool two_dimensional = false;   // an operand held 2-vectors (NumPy 2 deprecates them: the caller warns)
};

// numpy.cross(a, b, axisa, axisb, axisc). Errors are NumPy's: ValueError for
// 0-d operands and vectors not of 2 or 3 components, AxisError naming
// axisa/axisb/axisc, the broadcasting ValueError.
CrossResult cross(const NDArray& a, const NDArray& b, int64_t axisa, int64_t axisb, int64_t axisc);

}  // namespace kiln::arraycore
