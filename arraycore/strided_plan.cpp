#include "arraycore/strided_plan.h"

namespace kiln::arraycore {

StridedPlan collapse_dims(const Shape& shape, const std::vector<Strides>& strides) {
  StridedPlan plan;
  plan.size = shape_size(shape);
  plan.strides.resize(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !plan.shape.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k)
      merge = plan.strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      plan.shape.back() *= shape[d];
      for (size_t k = 0; k < strides.size(); ++k) plan.strides[k].back() = strides[k][d];
    } else {
      plan.shape.push_back(shape[d]);
      for (size_t k = 0; k < strides.size(); ++k) plan.strides[k].push_back(strides[k][d]);
    }
  }
  return plan;
}

}  // namespace kiln::arraycore
