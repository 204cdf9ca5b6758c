// Shapes and strides of several same-shape operands reduced to the fewest
// dimensions that address the same elements in the same (C) order.
//
// Note [Collapsing dimensions]
// Size-1 dimensions are dropped; dimension d merges into d+1 when, for every
// operand, stride[d] == stride[d+1] * shape[d+1]. A C-contiguous operand set
// collapses to one dimension; a Fortran-ordered one does not (C order is the
// iteration order), which keeps element order right for copies between layouts.
#pragma once

#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

struct StridedPlan {
  Shape shape;                        // collapsed
  std::vector<Strides> strides;       // per operand, collapsed (bytes)
  int64_t size = 0;                   // elements
};

StridedPlan collapse_dims(const Shape& shape, const std::vector<Strides>& strides);

}  // namespace kiln::arraycore
