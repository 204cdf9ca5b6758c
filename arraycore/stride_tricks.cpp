#include "arraycore/stride_tricks.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"

namespace kiln::arraycore {

NDArray as_strided(const NDArray& a, const Shape& shape, const Strides& strides, bool writeable) {
  if (shape.size() != strides.size()) throw std::invalid_argument("mismatch in length of strides and shape");
  require_within_memory(*a.memory(), a.offset(), a.dtype(), shape, strides);
  NDArray v = a.view_as(shape, strides, a.offset());
  if (!writeable) v.set_writeable(false);
  return v;
}

NDArray sliding_window_view(const NDArray& a, std::span<const int64_t> window_shape,
                            std::span<const int64_t> axes, bool axes_given, bool writeable) {
  for (int64_t w : window_shape)
    if (w < 0) throw std::invalid_argument("`window_shape` cannot contain negative values");
  std::vector<int> ax;
  if (!axes_given) {
    if (static_cast<int>(window_shape.size()) != a.ndim())
      throw std::invalid_argument("Since axis is `None`, must provide window_shape for all dimensions of `x`; got " +
                                  std::to_string(window_shape.size()) + " window_shape elements and `x.ndim` is " +
                                  std::to_string(a.ndim()) + ".");
    for (int d = 0; d < a.ndim(); ++d) ax.push_back(d);
  } else {
    for (int64_t d : axes) ax.push_back(normalize_axis(d, a.ndim()));
    if (window_shape.size() != ax.size())
      throw std::invalid_argument("Must provide matching length window_shape and axis; got " +
                                  std::to_string(window_shape.size()) + " window_shape elements and " +
                                  std::to_string(ax.size()) + " axes elements.");
  }
  Shape shape = a.shape();
  Strides strides = a.strides();
  for (size_t k = 0; k < ax.size(); ++k) {
    if (shape[ax[k]] < window_shape[k])
      throw std::invalid_argument("window shape cannot be larger than input array shape");
    shape[ax[k]] -= window_shape[k] - 1;
  }
  for (size_t k = 0; k < ax.size(); ++k) {
    shape.push_back(window_shape[k]);
    strides.push_back(a.strides()[ax[k]]);
  }
  return as_strided(a, shape, strides, writeable);
}

}  // namespace kiln::arraycore
