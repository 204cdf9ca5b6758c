#include "arraycore/axes.h"

namespace kiln::arraycore {

AxisError::AxisError(int64_t axis_, int ndim_, std::string argname_)
    : std::out_of_range("axis " + std::to_string(axis_) + " is out of bounds for array of dimension " +
                        std::to_string(ndim_)),
      axis(axis_),
      ndim(ndim_),
      argname(std::move(argname_)) {}

int normalize_axis(int64_t axis, int ndim, const std::string& argname) {
  if (axis < -ndim || axis >= ndim) throw AxisError(axis, ndim, argname);
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> normalize_axes(std::span<const int64_t> axes, int ndim, const std::string& argname,
                                const std::string& duplicate_message) {
  std::vector<int> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    int d = normalize_axis(a, ndim, argname);
    for (int e : out)
      if (e == d) throw std::invalid_argument(duplicate_message);
    out.push_back(d);
  }
  return out;
}

}  // namespace kiln::arraycore
