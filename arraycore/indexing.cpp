#include "arraycore/indexing.h"

#include <string>

#include "arraycore/copy.h"

namespace kiln::arraycore {

std::string shape_text(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

namespace {

// Python's slice.indices(length): clamped start, stop and the element count.
void adjust_slice(const IndexItem& item, int64_t length, int64_t& start, int64_t& step, int64_t& count) {
  step = item.step.value_or(1);
  if (step == 0) throw std::invalid_argument("slice step cannot be zero");
  const int64_t lower = step < 0 ? -1 : 0;
  const int64_t upper = step < 0 ? length - 1 : length;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v;
    if (x < 0) {
      x += length;
      return x < lower ? lower : x;
    }
    return x > upper ? upper : x;
  };
  start = clamp(item.start, step < 0 ? upper : lower);
  int64_t stop = clamp(item.stop, step < 0 ? lower : upper);
  if (step < 0) count = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
  else count = start < stop ? (stop - start - 1) / step + 1 : 0;
}

}  // namespace

NDArray index_view(const NDArray& a, const std::vector<IndexItem>& key) {
  int consumed = 0, ellipses = 0;
  for (const auto& item : key) {
    if (item.kind == IndexItem::Kind::Integer || item.kind == IndexItem::Kind::Slice) ++consumed;
    if (item.kind == IndexItem::Kind::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > a.ndim())
    throw IndexError("too many indices for array: array is " + std::to_string(a.ndim()) +
                     "-dimensional, but " + std::to_string(consumed) + " were indexed");
  Shape shape;
  Strides strides;
  int64_t offset = a.offset();
  int axis = 0;
  auto keep_axis = [&] {
    shape.push_back(a.shape()[axis]);
    strides.push_back(a.strides()[axis]);
    ++axis;
  };
  for (const auto& item : key) {
    switch (item.kind) {
      case IndexItem::Kind::NewAxis:
        shape.push_back(1);
        strides.push_back(0);
        break;
      case IndexItem::Kind::Ellipsis:
        for (int n = a.ndim() - consumed; n > 0; --n) keep_axis();
        break;
      case IndexItem::Kind::Integer: {
        int64_t length = a.shape()[axis], i = item.value;
        if (i < -length || i >= length)
          throw IndexError("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                           " with size " + std::to_string(length));
        if (i < 0) i += length;
        offset += i * a.strides()[axis];
        ++axis;
        break;
      }
      case IndexItem::Kind::Slice: {
        int64_t start, step, count;
        adjust_slice(item, a.shape()[axis], start, step, count);
        if (count > 0) offset += start * a.strides()[axis];
        shape.push_back(count);
        strides.push_back(a.strides()[axis] * step);
        ++axis;
        break;
      }
    }
  }
  while (axis < a.ndim()) keep_axis();
  return a.view_as(shape, strides, offset);
}

NDArray broadcast_to(const NDArray& value, const Shape& shape) {
  const int nd = static_cast<int>(shape.size()), vd = value.ndim();
  if (vd > nd)
    throw std::invalid_argument("could not broadcast input array from shape " + shape_text(value.shape()) +
                                " into shape " + shape_text(shape));
  Strides strides(nd, 0);
  for (int i = 0; i < vd; ++i) {
    int64_t have = value.shape()[vd - 1 - i], want = shape[nd - 1 - i];
    if (have == want) strides[nd - 1 - i] = value.strides()[vd - 1 - i];
    else if (have != 1)
      throw std::invalid_argument("could not broadcast input array from shape " + shape_text(value.shape()) +
                                  " into shape " + shape_text(shape));
  }
  return value.view_as(shape, strides, value.offset());
}

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  size_t nd = 0;
  for (const Shape& s : shapes) nd = std::max(nd, s.size());
  Shape out(nd, 1);
  for (const Shape& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[nd - 1 - i];
      int64_t v = s[s.size() - 1 - i];
      if (v == o || v == 1) continue;
      if (o != 1) {
        std::string text = "operands could not be broadcast together with shapes ";
        for (const Shape& t : shapes) text += shape_text(t) + " ";
        throw std::invalid_argument(text);
      }
      o = v;
    }
  }
  return out;
}

// value without the leading length-1 axes beyond dst's ndim: NumPy's
// assignment (a[:] = ones((1, 4)) into shape (4,)) drops them.
static NDArray without_extra_unit_axes(const NDArray& value, int ndim) {
  const int extra = value.ndim() - ndim;
  for (int d = 0; d < extra; ++d)
    if (value.shape()[d] != 1) return value;   // broadcast_to's error names both shapes
  if (extra <= 0) return value;
  return value.view_as(Shape(value.shape().begin() + extra, value.shape().end()),
                       Strides(value.strides().begin() + extra, value.strides().end()), value.offset());
}

void assign(const NDArray& dst, const NDArray& value_in) {
  require_writeable(dst);   // Note [Read-only arrays]
  const NDArray value = without_extra_unit_axes(value_in, dst.ndim());
  NDArray src = broadcast_to(value, dst.shape());
  if (dst.size() == 0) return;
  // Overlapping memory (a[1:] = a[:-1]): copy the source out first.
  if (src.memory() == dst.memory() || src.memory()->ptr() == dst.memory()->ptr()) {
    auto [slo, shi] = byte_extent(src.shape(), src.strides(), src.itemsize());
    auto [dlo, dhi] = byte_extent(dst.shape(), dst.strides(), dst.itemsize());
    int64_t s0 = src.offset() + slo, s1 = src.offset() + shi, d0 = dst.offset() + dlo, d1 = dst.offset() + dhi;
    if (s0 < d1 && d0 < s1) src = broadcast_to(astype(value, value.dtype(), Order::C), dst.shape());
  }
  copy_into(src, dst);
}

}  // namespace kiln::arraycore
