#include "arraycore/cross_product.h"

#include <stdexcept>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/expression_kernel.h"
#include "arraycore/indexing.h"
#include "arraycore/promotion.h"
#include "arraycore/views.h"

namespace kiln::arraycore {
namespace {

// v[..., k]: component k of the vectors along v's last axis (a view).
NDArray component(const NDArray& v, int64_t k) {
  Shape shape(v.shape().begin(), v.shape().end() - 1);
  Strides strides(v.strides().begin(), v.strides().end() - 1);
  return v.view_as(shape, strides, v.offset() + k * v.strides().back());
}

}  // namespace

NDArray cross(const NDArray& a_in, const NDArray& b_in, int64_t axisa, int64_t axisb, int64_t axisc) {
  if (a_in.ndim() < 1 || b_in.ndim() < 1) throw std::invalid_argument("At least one array has zero dimension");
  const int64_t sa[] = {normalize_axis(axisa, a_in.ndim(), "axisa")};
  const int64_t sb[] = {normalize_axis(axisb, b_in.ndim(), "axisb")};
  const int64_t last[] = {-1};
  const NDArray a = moveaxis(a_in, sa, last), b = moveaxis(b_in, sb, last);
  const int64_t na = a.shape().back(), nb = b.shape().back();
  if (na != 3 || nb != 3)
    throw std::invalid_argument("Both input arrays must be (arrays of) 3-dimensional vectors, but they are " +
                                std::to_string(na) + " and " + std::to_string(nb) + " dimensional instead.");
  const Shape sa0(a.shape().begin(), a.shape().end() - 1), sb0(b.shape().begin(), b.shape().end() - 1);
  Shape base;
  try {
    base = broadcast_shapes({sa0, sb0});
  } catch (const std::invalid_argument&) {   // NumPy's numpy.broadcast(a[..., 0], b[..., 0]) message
    throw std::invalid_argument(
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape " +
        shape_repr(sa0) + " and arg 1 with shape " + shape_repr(sb0) + ".");
  }
  Shape shape = base;
  shape.push_back(3);
  axisc = normalize_axis(axisc, static_cast<int>(shape.size()), "axisc");
  const DType dtype = promote_types(a.dtype(), b.dtype());
  const NDArray cp = NDArray::empty(shape, dtype);
  // the operands' components, alive while the kernels that read them run
  const NDArray av[] = {component(a, 0), component(a, 1), component(a, 2)};
  const NDArray bv[] = {component(b, 0), component(b, 1), component(b, 2)};
  // component i of the result: a[x] * b[y] - a[y] * b[x]
  auto write = [&](int64_t i, int64_t x, int64_t y) {
    ExpressionKernel k("kiln_cross");
    auto product = [&](int64_t p, int64_t q) {
      return k.call("multiply", {k.input(UfuncInput::of(av[p]), dtype), k.input(UfuncInput::of(bv[q]), dtype)},
                    dtype);
    };
    const NDArray out = component(cp, i);
    k.run(k.call("subtract", {product(x, y), product(y, x)}, dtype), &out);
  };
  write(0, 1, 2);
  write(1, 2, 0);
  write(2, 0, 1);
  const int64_t from[] = {-1}, to[] = {axisc};
  return moveaxis(cp, from, to);
}

}  // namespace kiln::arraycore
