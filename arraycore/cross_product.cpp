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

CrossResult cross(const NDArray& a_in, const NDArray& b_in, int64_t axisa, int64_t axisb, int64_t axisc) {
  if (a_in.ndim() < 1 || b_in.ndim() < 1) throw std::invalid_argument("At least one array has zero dimension");
  const int64_t sa[] = {normalize_axis(axisa, a_in.ndim(), "axisa")};
  const int64_t sb[] = {normalize_axis(axisb, b_in.ndim(), "axisb")};
  const int64_t last[] = {-1};
  const NDArray a = moveaxis(a_in, sa, last), b = moveaxis(b_in, sb, last);
  const int64_t na = a.shape().back(), nb = b.shape().back();
  if ((na != 2 && na != 3) || (nb != 2 && nb != 3))
    throw std::invalid_argument("incompatible dimensions for cross product\n(dimension must be 2 or 3)");
  CrossResult r{NDArray::empty({}, DType::Bool), na == 2 || nb == 2};
  const Shape sa0(a.shape().begin(), a.shape().end() - 1), sb0(b.shape().begin(), b.shape().end() - 1);
  Shape base;
  try {
    base = broadcast_shapes({sa0, sb0});
  } catch (const std::invalid_argument&) {   // NumPy's numpy.broadcast(a[..., 0], b[..., 0]) message
    throw std::invalid_argument(
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape " +
        shape_repr(sa0) + " and arg 1 with shape " + shape_repr(sb0) + ".");
  }
  const bool vectors = na == 3 || nb == 3;
  Shape shape = base;
  if (vectors) {
    shape.push_back(3);
    axisc = normalize_axis(axisc, static_cast<int>(shape.size()), "axisc");
  }
  const DType dtype = promote_types(a.dtype(), b.dtype());
  const NDArray cp = NDArray::empty(shape, dtype);
  std::vector<NDArray> av, bv;   // the components (a missing third one: none)
  for (int64_t k = 0; k < na; ++k) av.push_back(component(a, k));
  for (int64_t k = 0; k < nb; ++k) bv.push_back(component(b, k));
  // out = x * y - u * v over components (a missing one is zero: a term or the whole product drops).
  auto write = [&](const NDArray& out, int xi, int yi, int ui, int vi) {
    const bool first = xi < na && yi < nb, second = ui < na && vi < nb;
    ExpressionKernel k("kiln_cross");
    auto product = [&](int i, int j) {
      return k.call("multiply", {k.input(UfuncInput::of(av[i]), dtype), k.input(UfuncInput::of(bv[j]), dtype)},
                    dtype);
    };
    Value v = first && second ? k.call("subtract", {product(xi, yi), product(ui, vi)}, dtype)
              : first         ? product(xi, yi)
                              : k.call("negative", {product(ui, vi)}, dtype);
    k.run(v, &out);
  };
  if (!vectors) {
    write(cp, 0, 1, 1, 0);
  } else {
    write(component(cp, 0), 1, 2, 2, 1);
    write(component(cp, 1), 2, 0, 0, 2);
    write(component(cp, 2), 0, 1, 1, 0);
  }
  if (!vectors) {
    r.result = cp;
  } else {
    const int64_t from[] = {-1}, to[] = {axisc};
    r.result = moveaxis(cp, from, to);
  }
  return r;
}

}  // namespace kiln::arraycore
