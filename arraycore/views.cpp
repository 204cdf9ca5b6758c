#include "arraycore/views.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/indexing.h"

namespace kiln::arraycore {

namespace {

// Each axis normalised (AxisError for the first out of range), then a repeat
// throws std::invalid_argument(duplicate_message): every axis is checked for
// range before any repeat is reported, as NumPy's Python helpers do.
std::vector<int> unique_axes(std::span<const int64_t> axes, int ndim, const std::string& argname,
                             const std::string& duplicate_message) {
  std::vector<int> out;
  out.reserve(axes.size());
  for (int64_t ax : axes) out.push_back(normalize_axis(ax, ndim, argname));
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i] == out[j]) throw std::invalid_argument(duplicate_message);
  return out;
}

NDArray permuted(const NDArray& a, const std::vector<int>& order) {
  Shape shape(order.size());
  Strides strides(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    shape[i] = a.shape()[order[i]];
    strides[i] = a.strides()[order[i]];
  }
  return a.view_as(std::move(shape), std::move(strides), a.offset());
}

// A fresh array in `order` holding a's elements, seen as `shape` (same size).
NDArray copy_as(const NDArray& a, const Shape& shape, Order order) {
  NDArray c = astype(a, a.dtype(), order);
  return NDArray(c.memory(), c.dtype(), shape, contiguous_strides(shape, c.itemsize(), order), c.offset());
}

}  // namespace

bool is_view_of(const NDArray& v, const NDArray& a) { return v.memory() == a.memory(); }

Shape resolve_reshape(const Shape& requested, int64_t size) {
  check_ndim(requested.size());
  Shape shape = requested;
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      if (unknown >= 0) throw std::invalid_argument("can only specify one unknown dimension");
      unknown = static_cast<int>(i);
    } else {
      known *= shape[i];
    }
  }
  auto fail = [&] {
    return std::invalid_argument("cannot reshape array of size " + std::to_string(size) + " into shape " +
                                 shape_text(requested));
  };
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) throw fail();
    shape[unknown] = size / known;
  }
  if (shape_size(shape) != size) throw fail();
  return shape;
}

// Note [Reshape views]
// Reading `a` in C order, a new shape is a view exactly when every run of
// old axes that merges into one group of new axes is evenly strided: group
// the non-1 axes of old and new shapes into the shortest runs with equal
// products (p_old == p_new); within a run, old axis k must have stride
// stride[k + 1] * shape[k + 1]; the new axes of the run then take strides
// from the run's innermost stride outwards. Length-1 new axes take the stride
// a contiguous array would have (any stride is valid for them). F order is C
// order with both axis lists reversed. An empty array is always a view
// (contiguous strides). These are NumPy's rules (its attempt-nocopy-reshape):
// a reshape is a view wherever NumPy's is.
std::optional<Strides> reshape_strides(const NDArray& a, const Shape& shape, Order order) {
  const int64_t itemsize = static_cast<int64_t>(a.itemsize());
  if (a.size() == 0) return contiguous_strides(shape, a.itemsize(), order);
  std::vector<std::pair<int64_t, int64_t>> old;   // (length, stride) of a's non-1 axes
  for (int d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] != 1) old.emplace_back(a.shape()[d], a.strides()[d]);
  Shape next = shape;
  if (order == Order::F) {
    std::reverse(old.begin(), old.end());
    std::reverse(next.begin(), next.end());
  }
  const size_t n = next.size();
  std::vector<std::optional<int64_t>> strides(n);
  std::vector<size_t> big;   // positions of next's non-1 axes
  for (size_t j = 0; j < n; ++j)
    if (next[j] != 1) big.push_back(j);
  size_t i = 0, j = 0;
  while (i < old.size()) {
    size_t i_end = i + 1, j_end = j + 1;
    int64_t p_old = old[i].first, p_new = next[big[j]];
    while (p_old != p_new) {   // grow the group until both sides hold the same elements
      if (p_old < p_new) p_old *= old[i_end++].first;
      else p_new *= next[big[j_end++]];
    }
    for (size_t k = i; k + 1 < i_end; ++k)
      if (old[k].second != old[k + 1].second * old[k + 1].first) return std::nullopt;
    int64_t step = old[i_end - 1].second;
    for (size_t k = j_end; k-- > j;) {
      strides[big[k]] = step;
      step *= next[big[k]];
    }
    i = i_end;
    j = j_end;
  }
  Strides out(n);
  int64_t step = itemsize;   // length-1 axes: the stride a contiguous array would have
  for (size_t k = n; k-- > 0;) {
    if (strides[k]) {
      out[k] = *strides[k];
      step = out[k] * next[k];
    } else {
      out[k] = step;
    }
  }
  if (order == Order::F) std::reverse(out.begin(), out.end());
  return out;
}

NDArray reshape(const NDArray& a, const Shape& shape, char order, CopyMode copy) {
  Order o = order == 'F' || (order == 'A' && a.f_contiguous() && !a.c_contiguous()) ? Order::F : Order::C;
  Shape resolved = resolve_reshape(shape, a.size());
  if (copy != CopyMode::Always) {
    if (std::optional<Strides> strides = reshape_strides(a, resolved, o))
      return a.view_as(std::move(resolved), std::move(*strides), a.offset());
    if (copy == CopyMode::Never) throw std::invalid_argument("Unable to avoid creating a copy while reshaping.");
  }
  return copy_as(a, resolved, o);
}

std::vector<int> memory_order_axes(std::span<const int64_t> strides) {
  std::vector<int> perm(strides.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](int x, int y) { return std::abs(strides[x]) > std::abs(strides[y]); });
  return perm;
}

std::vector<int> iteration_order_axes(std::span<const int64_t> strides) {
  std::vector<int> inner_first(strides.size());
  std::iota(inner_first.rbegin(), inner_first.rend(), 0);
  for (size_t i = 1; i < inner_first.size(); ++i) {
    const int64_t s = std::abs(strides[inner_first[i]]);
    size_t to = i;
    for (size_t j = i; j-- > 0;) {
      const int64_t t = std::abs(strides[inner_first[j]]);
      if (s == 0 || t == 0) continue;   // a 0-stride says nothing about memory order: look further in
      if (t <= s) break;
      to = j;
    }
    std::rotate(inner_first.begin() + to, inner_first.begin() + i, inner_first.begin() + i + 1);
  }
  return {inner_first.rbegin(), inner_first.rend()};
}

NDArray ravel(const NDArray& a, char order) {
  const Shape flat{a.size()};
  const Strides unit{static_cast<int64_t>(a.itemsize())};
  if (order == 'K') {
    NDArray t = permuted(a, iteration_order_axes(a.strides()));
    if (a.size() == 0 || reshape_strides(t, flat, Order::C) == std::optional<Strides>(unit))
      return a.view_as(flat, unit, a.offset());
    return copy_as(t, flat, Order::C);
  }
  bool f = order == 'F' || (order == 'A' && a.f_contiguous());
  if (f ? a.f_contiguous() : a.c_contiguous()) return a.view_as(flat, unit, a.offset());
  return copy_as(a, flat, f ? Order::F : Order::C);
}

NDArray transpose(const NDArray& a) {
  return a.view_as(Shape(a.shape().rbegin(), a.shape().rend()),
                 Strides(a.strides().rbegin(), a.strides().rend()), a.offset());
}

NDArray transpose(const NDArray& a, std::span<const int64_t> axes) {
  std::vector<int> order;
  order.reserve(axes.size());
  for (int64_t ax : axes) order.push_back(normalize_axis(ax, a.ndim()));
  if (static_cast<int>(order.size()) != a.ndim()) throw std::invalid_argument("axes don't match array");
  std::vector<bool> seen(order.size());
  for (int d : order) {
    if (seen[d]) throw std::invalid_argument("repeated axis in transpose");
    seen[d] = true;
  }
  return permuted(a, order);
}

NDArray swapaxes(const NDArray& a, int64_t axis1, int64_t axis2) {
  int i = normalize_axis(axis1, a.ndim()), j = normalize_axis(axis2, a.ndim());
  std::vector<int> order(a.ndim());
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[i], order[j]);
  return permuted(a, order);
}

NDArray moveaxis(const NDArray& a, std::span<const int64_t> source, std::span<const int64_t> destination) {
  std::vector<int> src = unique_axes(source, a.ndim(), "source", "repeated axis in `source` argument");
  std::vector<int> dst = unique_axes(destination, a.ndim(), "destination", "repeated axis in `destination` argument");
  if (src.size() != dst.size())
    throw std::invalid_argument("`source` and `destination` arguments must have the same number of elements");
  std::vector<int> order;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(src.begin(), src.end(), d) == src.end()) order.push_back(d);
  std::vector<std::pair<int, int>> moves;
  for (size_t k = 0; k < src.size(); ++k) moves.emplace_back(dst[k], src[k]);
  std::sort(moves.begin(), moves.end());
  for (auto [d, s] : moves) order.insert(order.begin() + d, s);
  return permuted(a, order);
}

NDArray squeeze(const NDArray& a, const std::optional<std::vector<int64_t>>& axes) {
  std::vector<bool> drop(a.ndim());
  if (a.ndim() == 0 && axes) {   // NumPy lets a 0-d array squeeze axis 0 (or -1): nothing to drop
    for (int64_t ax : *axes)
      if (ax != 0 && ax != -1) normalize_axis(ax, 0);   // throws NumPy's AxisError
    return a;
  }
  if (!axes) {
    for (int d = 0; d < a.ndim(); ++d) drop[d] = a.shape()[d] == 1;
  } else {
    for (int d : unique_axes(*axes, a.ndim(), {}, "duplicate value in 'axis'")) drop[d] = true;
    for (int d = 0; d < a.ndim(); ++d)
      if (drop[d] && a.shape()[d] != 1)
        throw std::invalid_argument("cannot select an axis to squeeze out which has size not equal to one");
  }
  std::vector<int> keep;
  for (int d = 0; d < a.ndim(); ++d)
    if (!drop[d]) keep.push_back(d);
  return permuted(a, keep);
}

NDArray expand_dims(const NDArray& a, std::span<const int64_t> axes) {
  const int ndim = a.ndim() + static_cast<int>(axes.size());
  std::vector<bool> added(ndim);
  for (int d : unique_axes(axes, ndim, {}, "repeated axis")) added[d] = true;
  Shape shape(ndim);
  Strides strides(ndim);
  for (int d = 0, k = 0; d < ndim; ++d) {
    if (added[d]) {
      shape[d] = 1;
      strides[d] = 0;
    } else {
      shape[d] = a.shape()[k];
      strides[d] = a.strides()[k++];
    }
  }
  return a.view_as(std::move(shape), std::move(strides), a.offset());
}

NDArray flip(const NDArray& a, const std::optional<std::vector<int64_t>>& axes) {
  std::vector<int> which;
  if (axes) {
    which = unique_axes(*axes, a.ndim(), {}, "repeated axis");
  } else {
    which.resize(a.ndim());
    std::iota(which.begin(), which.end(), 0);
  }
  Strides strides = a.strides();
  int64_t offset = a.offset();
  for (int d : which) {
    if (a.size() != 0) offset += (a.shape()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  return a.view_as(a.shape(), std::move(strides), offset);
}

NDArray broadcast_view(const NDArray& a, const Shape& shape) {
  if (shape.empty() && a.ndim() != 0) throw std::invalid_argument("cannot broadcast a non-scalar to a scalar array");
  for (int64_t n : shape)
    if (n < 0) throw std::invalid_argument("all elements of broadcast shape must be non-negative");
  // NumPy's iterator refuses an element count beyond int64 (a running
  // product); then the view obeys Note [Array size limit] like any array.
  int64_t count = 1;
  for (int64_t n : shape)
    if (__builtin_mul_overflow(count, n, &count)) throw std::invalid_argument("iterator is too large");
  checked_nbytes(shape, a.itemsize());
  try {
    return broadcast_to(a, shape);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("operands could not be broadcast together with remapped shapes "
                                "[original->remapped]: " + shape_text(a.shape()) + "  and requested shape " +
                                shape_text(shape));
  }
}

}  // namespace kiln::arraycore
