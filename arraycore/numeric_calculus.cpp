#include "arraycore/numeric_calculus.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <deque>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "arraycore/axes.h"
#include "arraycore/creation.h"
#include "arraycore/expression_kernel.h"
#include "arraycore/indexing.h"

namespace kiln::arraycore {
namespace {

char kind_of(DType d) { return dtype_info(d).kind; }

// a[..., start:stop, ...] along `axis` (0 <= start <= stop <= n): a view.
NDArray along(const NDArray& a, int axis, int64_t start, int64_t stop) {
  Shape shape = a.shape();
  shape[axis] = stop - start;
  return a.view_as(shape, a.strides(), a.offset() + start * a.strides()[axis]);
}

// The 1-d `v` seen with ndim axes, its values along `axis` (a view).
NDArray along_axis(const NDArray& v, int ndim, int axis) {
  Shape shape(ndim, 1);
  Strides strides(ndim, 0);
  shape[axis] = v.shape()[0];
  strides[axis] = v.strides()[0];
  return v.view_as(shape, strides, v.offset());
}

// np.empty_like(a, dtype): a's memory order (order='K').
NDArray empty_like(const NDArray& a, DType dtype) {
  if (a.c_contiguous()) return NDArray::empty(a.shape(), dtype, Order::C);
  if (a.f_contiguous()) return NDArray::empty(a.shape(), dtype, Order::F);
  std::vector<int> order(a.ndim());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return std::abs(a.strides()[x]) > std::abs(a.strides()[y]); });
  return empty_in_axis_order(a.shape(), dtype, order);
}

bool is_python_scalar(const UfuncInput& v) { return !v.array && v.scalar.kind != ScalarValue::Kind::Typed; }

// A Python scalar's value as complex double (Python's float(v) / complex(v)).
std::complex<double> python_value(const ScalarValue& v) {
  switch (v.kind) {
    case ScalarValue::Kind::Bool:
    case ScalarValue::Kind::Int: return static_cast<double>(v.i);
    case ScalarValue::Kind::UInt: return static_cast<double>(v.u);
    case ScalarValue::Kind::Complex: return {v.re, v.im};
    default: return v.re;
  }
}

// Python's `c * h` and `c / h` for a float c and a Python scalar h: a weak float or complex.
Value weak_number(std::complex<double> z, bool complex) {
  Value r = weak_float(z.real());
  if (complex) {
    r.weak_value.kind = ScalarValue::Kind::Complex;
    r.weak_value.im = z.imag();
  }
  return r;
}
std::complex<double> python_quotient(double c, std::complex<double> h, bool complex) {
  if (!complex) return c / h.real();   // float division by zero: inf, where Python raises ZeroDivisionError
  // Python's complex division (Smith's method), real numerator.
  if (std::abs(h.real()) >= std::abs(h.imag())) {
    const double ratio = h.imag() / h.real(), denom = h.real() + h.imag() * ratio;
    return {c / denom, -c * ratio / denom};
  }
  const double ratio = h.real() / h.imag(), denom = h.real() * ratio + h.imag();
  return {c * ratio / denom, -c / denom};
}

// One axis's spacing (Note [Gradient steps]): uniform (a scalar: a Python
// scalar, a NumPy scalar, or a 0-d array: `held`) or the 1-d differences
// of coordinates (`held`).
struct AxisStep {
  bool uniform = true;
  UfuncInput scalar;
  std::optional<NDArray> held;
  UfuncInput input() const { return held ? UfuncInput::of(*held) : scalar; }
};

// The differences of the 1-d coordinates x (float64 for integer ones), or
// their first when all are equal (NumPy's diffx[0]: a 0-d view).
AxisStep coordinate_step(const NDArray& x) {
  const DType dt = kind_of(x.dtype()) == 'i' || kind_of(x.dtype()) == 'u' ? DType::Float64 : x.dtype();
  const int64_t n = x.shape()[0];
  ExpressionKernel k("kiln_gradient_diff");
  const NDArray upper = n ? along(x, 0, 1, n) : x, lower = n ? along(x, 0, 0, n - 1) : x;
  const Value hi = k.input(UfuncInput::of(upper), dt), lo = k.input(UfuncInput::of(lower), dt);
  const NDArray d = k.run(k.call(dt == DType::Bool ? "not_equal" : "subtract", {hi, lo}));
  if (d.size() == 0) throw IndexError("index 0 is out of bounds for axis 0 with size 0");
  AxisStep s;
  const NDArray first = d.view_as({}, {}, d.offset());
  ExpressionKernel eq("kiln_gradient_uniform");
  const UfuncInput d_in = UfuncInput::of(d), first_in = UfuncInput::of(first);
  if (eq.run_all(eq.call("equal", {eq.input(d_in), eq.input(first_in)}))) {
    s.held = first;
  } else {
    s.uniform = false;
    s.held = d;
  }
  return s;
}

std::vector<AxisStep> axis_steps(const NDArray& f, std::span<const UfuncInput> spacing, const std::vector<int>& axes) {
  const size_t n = spacing.size();
  std::vector<AxisStep> steps(axes.size());
  auto scalar_step = [](const UfuncInput& v) {
    AxisStep s;
    if (v.array) s.held = *v.array;
    else s.scalar = v;
    return s;
  };
  if (n == 0) {
    for (AxisStep& s : steps) s.scalar = UfuncInput{nullptr, weak_float(1.0).weak_value};
  } else if (n == 1 && (!spacing[0].array || spacing[0].array->ndim() == 0)) {
    for (AxisStep& s : steps) s = scalar_step(spacing[0]);
  } else if (n == axes.size()) {
    for (size_t i = 0; i < n; ++i) {
      const UfuncInput& v = spacing[i];
      if (!v.array || v.array->ndim() == 0) {
        steps[i] = scalar_step(v);
        continue;
      }
      if (v.array->ndim() != 1) throw std::invalid_argument("distances must be either scalars or 1d");
      if (v.array->shape()[0] != f.shape()[axes[i]])
        throw std::invalid_argument("when 1d, distances must match the length of the corresponding dimension");
      steps[i] = coordinate_step(*v.array);
    }
  } else {
    throw TypeError("invalid number of arguments");
  }
  return steps;
}

// The factor `c * h` (multiply) or `c / h` (divide) of a uniform spacing h, as NumPy's scalar arithmetic has it.
Value factor(ExpressionKernel& k, const AxisStep& s, double c, bool divide) {
  const UfuncInput h = s.input();
  if (is_python_scalar(h)) {
    const bool complex = h.scalar.kind == ScalarValue::Kind::Complex;
    const std::complex<double> v = python_value(h.scalar);
    return weak_number(divide ? python_quotient(c, v, complex) : c * v, complex);
  }
  const Value hv = k.input(h);
  return divide ? k.call("divide", {weak_float(c), hv}) : k.call("multiply", {weak_float(c), hv});
}

// The operand's values f[lo:hi] along axis, in the gradient's working dtype.
Value values(ExpressionKernel& k, std::deque<NDArray>& keep, const NDArray& f, int axis, int64_t lo, int64_t hi,
             DType work) {
  keep.push_back(along(f, axis, lo, hi));
  return k.input(UfuncInput::of(keep.back()), work);
}

// a * f0 + b * f1 + c * f2, NumPy's order.
Value three_point(ExpressionKernel& k, const Value& a, const Value& f0, const Value& b, const Value& f1, const Value& c,
                  const Value& f2) {
  return k.call("add", {k.call("add", {k.call("multiply", {a, f0}), k.call("multiply", {b, f1})}),
                        k.call("multiply", {c, f2})});
}

void gradient_axis(const NDArray& f, DType work, DType otype, int axis, const AxisStep& s, int64_t edge_order,
                   const NDArray& out) {
  const int64_t n = f.shape()[axis];
  const int ndim = f.ndim();
  std::deque<NDArray> keep;   // the views the kernels read (ExpressionKernel keeps pointers to them)
  auto run = [&](ExpressionKernel& k, const Value& v, int64_t lo, int64_t hi) {
    const NDArray target = along(out, axis, lo, hi);
    k.run(k.as_type(v, otype), &target);
  };
  // The differences d[lo:hi] of non-uniform coordinates, along axis.
  auto diffs = [&](ExpressionKernel& k, int64_t lo, int64_t hi) {
    keep.push_back(along_axis(along(*s.held, 0, lo, hi), ndim, axis));
    return k.input(UfuncInput::of(keep.back()));
  };
  auto sum = [&](ExpressionKernel& k, const Value& x, const Value& y) { return k.call("add", {x, y}); };
  auto mul = [&](ExpressionKernel& k, const Value& x, const Value& y) { return k.call("multiply", {x, y}); };
  auto div = [&](ExpressionKernel& k, const Value& x, const Value& y) { return k.call("divide", {x, y}); };
  auto neg = [&](ExpressionKernel& k, const Value& x) { return k.call("negative", {x}); };
  {  // Interior: second-order central differences.
    ExpressionKernel k("kiln_gradient_interior");
    const Value f0 = values(k, keep, f, axis, 0, n - 2, work), f2 = values(k, keep, f, axis, 2, n, work);
    if (s.uniform) {
      run(k, div(k, k.call("subtract", {f2, f0}), factor(k, s, 2.0, false)), 1, n - 1);
    } else {
      const Value dx1 = diffs(k, 0, n - 2), dx2 = diffs(k, 1, n - 1);
      const Value a = div(k, neg(k, dx2), mul(k, dx1, sum(k, dx1, dx2)));
      const Value b = div(k, k.call("subtract", {dx2, dx1}), mul(k, dx1, dx2));
      const Value c = div(k, dx1, mul(k, dx2, sum(k, dx1, dx2)));
      run(k, three_point(k, a, f0, b, values(k, keep, f, axis, 1, n - 1, work), c, f2), 1, n - 1);
    }
  }
  if (edge_order == 1) {
    for (bool last : {false, true}) {
      ExpressionKernel k(last ? "kiln_gradient_last1" : "kiln_gradient_first1");
      const int64_t lo = last ? n - 2 : 0;
      const Value d = k.call("subtract", {values(k, keep, f, axis, lo + 1, lo + 2, work), values(k, keep, f, axis, lo, lo + 1, work)});
      const Value h = s.uniform ? k.input(s.input()) : diffs(k, last ? n - 2 : 0, last ? n - 1 : 1);
      run(k, div(k, d, h), last ? n - 1 : 0, last ? n : 1);
    }
    return;
  }
  for (bool last : {false, true}) {
    ExpressionKernel k(last ? "kiln_gradient_last2" : "kiln_gradient_first2");
    const int64_t lo = last ? n - 3 : 0;
    Value a, b, c;
    if (s.uniform) {
      a = factor(k, s, last ? 0.5 : -1.5, true);
      b = factor(k, s, last ? -2.0 : 2.0, true);
      c = factor(k, s, last ? 1.5 : -0.5, true);
    } else {
      const Value dx1 = diffs(k, lo, lo + 1), dx2 = diffs(k, lo + 1, lo + 2);
      const Value two = weak_float(2.0);
      if (!last) {
        a = div(k, neg(k, sum(k, mul(k, two, dx1), dx2)), mul(k, dx1, sum(k, dx1, dx2)));
        b = div(k, sum(k, dx1, dx2), mul(k, dx1, dx2));
        c = div(k, neg(k, dx1), mul(k, dx2, sum(k, dx1, dx2)));
      } else {
        a = div(k, dx2, mul(k, dx1, sum(k, dx1, dx2)));
        b = div(k, neg(k, sum(k, dx2, dx1)), mul(k, dx1, dx2));
        c = div(k, sum(k, mul(k, two, dx2), dx1), mul(k, dx2, sum(k, dx1, dx2)));
      }
    }
    const Value f0 = values(k, keep, f, axis, lo, lo + 1, work), f1 = values(k, keep, f, axis, lo + 1, lo + 2, work),
                f2 = values(k, keep, f, axis, lo + 2, lo + 3, work);
    run(k, three_point(k, a, f0, b, f1, c, f2), last ? n - 1 : 0, last ? n : 1);
  }
}

}  // namespace

std::vector<NDArray> gradient(const NDArray& f, std::span<const UfuncInput> spacing, const AxisArg& axis,
                              int64_t edge_order) {
  const int ndim = f.ndim();
  std::vector<int> axes;
  if (axis.kind == AxisArg::Kind::None) {
    axes.resize(ndim);
    std::iota(axes.begin(), axes.end(), 0);
  } else {
    axes = normalize_axes(axis.values, ndim, {}, "repeated axis");
  }
  const std::vector<AxisStep> steps = axis_steps(f, spacing, axes);
  if (edge_order > 2) throw std::invalid_argument("'edge_order' greater than 2 not supported");
  // Note [Gradient steps]: inexact f computes in its dtype; integers in float64; bool fails at the subtraction.
  const char kind = kind_of(f.dtype());
  const DType work = kind == 'i' || kind == 'u' ? DType::Float64 : f.dtype();
  const DType otype = kind == 'f' || kind == 'c' ? f.dtype() : DType::Float64;
  std::vector<NDArray> outs;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (f.shape()[axes[i]] < edge_order + 1)
      throw std::invalid_argument(
          "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are "
          "required.");
    if (edge_order != 1 && f.shape()[axes[i]] < 3)
      throw IndexError("index 2 is out of bounds for axis " + std::to_string(axes[i]) + " with size " +
                       std::to_string(f.shape()[axes[i]]));
    NDArray out = empty_like(f, otype);
    gradient_axis(f, work, otype, axes[i], steps[i], edge_order, out);
    outs.push_back(out);
  }
  return outs;
}

}  // namespace kiln::arraycore
