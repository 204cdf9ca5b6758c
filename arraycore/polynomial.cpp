// NumPy's polynomial routines as compositions of kiln operations
// (polynomial.h). Every step is the ufunc, reduction or copy NumPy's own
// code performs, in its order, so dtypes (NEP 50: NumPy scalars and 0-d
// arrays strong, Python scalars weak), rounding and errors are NumPy's.
#include "arraycore/polynomial.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <stdexcept>
#include <string>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/creation.h"
#include "arraycore/indexing.h"
#include "arraycore/promotion.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/transfer.h"
#include "arraycore/ufunc_apply.h"
#include "arraycore/views.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// One ufunc call on two operands, into `out` when given (in place).
NDArray apply2(const char* name, const UfuncInput& a, const UfuncInput& b, const NDArray* out = nullptr) {
  const UfuncInput in[] = {a, b};
  UfuncOptions options;
  if (out) options.out.push_back(*out);
  return ufunc_apply(ufunc(name), in, options)[0];
}

NDArray binary(const char* name, const NDArray& a, const NDArray& b, const NDArray* out = nullptr) {
  return apply2(name, UfuncInput::of(a), UfuncInput::of(b), out);
}

NDArray with_scalar(const char* name, const NDArray& a, const ScalarValue& s) {
  return apply2(name, UfuncInput::of(a), UfuncInput::of(s));
}

NDArray unary(const char* name, const NDArray& a) {
  const UfuncInput in[] = {UfuncInput::of(a)};
  return ufunc_apply(ufunc(name), in, {})[0];
}

// a[start:stop] along the first axis (a view).
NDArray rows(const NDArray& a, int64_t start, int64_t stop) {
  Shape shape = a.shape();
  shape[0] = std::max<int64_t>(stop - start, 0);
  return a.view_as(shape, a.strides(), a.offset() + start * a.strides()[0]);
}

// a[i] (a view of one less dimension).
NDArray item(const NDArray& a, int64_t i) {
  Shape shape(a.shape().begin() + 1, a.shape().end());
  Strides strides(a.strides().begin() + 1, a.strides().end());
  return a.view_as(shape, strides, a.offset() + i * a.strides()[0]);
}

// numpy.atleast_1d.
NDArray at_least_1d(const NDArray& a) {
  if (a.ndim() > 0) return a;
  return a.view_as({1}, {static_cast<int64_t>(a.itemsize())}, a.offset());
}

int64_t length_of(const NDArray& a) {
  if (a.ndim() == 0) throw TypeError("len() of unsized object");
  return a.shape()[0];
}

// A 0-d array of `dtype` holding `value`.
NDArray scalar_array(DType dtype, double value) {
  NDArray a = NDArray::empty({}, dtype);
  unsigned char bytes[16] = {};
  cast_scalar(&value, DType::Float64, bytes, dtype);
  copy_from_host(a, bytes, runtime::current_stream());
  return a;
}

void fill(const NDArray& dst, double value) {
  if (dst.size() == 0) return;
  copy_into(broadcast_view(scalar_array(dst.dtype(), value), dst.shape()), dst);
}

// numpy.concatenate((a, b)) along the first axis, with NumPy's messages.
NDArray concat0(const NDArray& a, const NDArray& b) {
  if (a.ndim() == 0 || b.ndim() == 0) throw std::invalid_argument("zero-dimensional arrays cannot be concatenated");
  if (a.ndim() != b.ndim())
    throw std::invalid_argument("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                                std::to_string(a.ndim()) + " dimension(s) and the array at index 1 has " +
                                std::to_string(b.ndim()) + " dimension(s)");
  for (int d = 1; d < a.ndim(); ++d)
    if (a.shape()[d] != b.shape()[d])
      throw std::invalid_argument(
          "all the input array dimensions except for the concatenation axis must match exactly, but along dimension " +
          std::to_string(d) + ", the array at index 0 has size " + std::to_string(a.shape()[d]) +
          " and the array at index 1 has size " + std::to_string(b.shape()[d]));
  Shape shape = a.shape();
  shape[0] += b.shape()[0];
  NDArray r = NDArray::empty(shape, promote_types(a.dtype(), b.dtype()));
  if (a.size()) copy_into(a, rows(r, 0, a.shape()[0]));
  if (b.size()) copy_into(b, rows(r, a.shape()[0], shape[0]));
  return r;
}

// The values of a bool array on the host (Note [Polynomial host reads]).
std::vector<unsigned char> host_flags(const NDArray& mask) {
  std::vector<unsigned char> flags(static_cast<size_t>(mask.size()));
  if (!flags.empty()) copy_to_host(mask, flags.data(), runtime::current_stream());
  return flags;
}

// Per element of a, whether it is nonzero (a != 0).
std::vector<unsigned char> nonzero_flags(const NDArray& a) { return host_flags(with_scalar("not_equal", a, ScalarValue::python_int(0))); }

// The values of a as complex128 on the host, C order.
std::vector<std::complex<double>> host_complex(const NDArray& a) {
  std::vector<std::complex<double>> v(static_cast<size_t>(a.size()));
  if (!v.empty()) copy_to_host(astype(a, DType::Complex128, Order::C), v.data(), runtime::current_stream());
  return v;
}

bool is_inexact(DType d) { return dtype_info(d).kind == 'f' || dtype_info(d).kind == 'c'; }

// numpy.convolve(x, y) of two non-empty 1-d arrays: out[k] = sum_j x[k - j] y[j],
// as one product over a Toeplitz view of x padded with zeros and one sum.
NDArray convolve_full(const NDArray& x, const NDArray& y) {
  const DType dt = promote_types(x.dtype(), y.dtype());
  const int64_t nx = x.shape()[0], ny = y.shape()[0], n = nx + ny - 1;
  NDArray pad = NDArray::zeros({nx + 2 * (ny - 1)}, dt);
  copy_into(x, rows(pad, ny - 1, ny - 1 + nx));
  const int64_t s = static_cast<int64_t>(pad.itemsize());
  const NDArray toeplitz = pad.view_as({n, ny}, {s, -s}, pad.offset() + (ny - 1) * s);
  ReduceOptions sum;
  sum.axes = std::vector<int64_t>{1};
  sum.dtype = dt;
  return reduce_apply(ufunc("add"), binary("multiply", toeplitz, y), sum);
}

}  // namespace

NDArray poly1d_coeffs(const NDArray& c) {
  if (c.ndim() > 1) throw std::invalid_argument("Polynomial must be 1d only.");
  const NDArray a = at_least_1d(c);
  const std::vector<unsigned char> nz = nonzero_flags(a);
  const auto first = std::find(nz.begin(), nz.end(), 1);
  if (first == nz.end()) return NDArray::zeros({1}, a.dtype());
  return rows(a, first - nz.begin(), a.shape()[0]);
}

NDArray polyval(const NDArray& p, const NDArray& x) {
  if (p.ndim() == 0) throw TypeError("iteration over a 0-d array");
  NDArray y = NDArray::zeros(x.shape(), x.dtype());
  for (int64_t i = 0; i < p.shape()[0]; ++i) y = binary("add", binary("multiply", y, x), item(p, i));
  return y;
}

NDArray polyval_poly1d(const NDArray& p, const NDArray& q) {
  if (p.ndim() == 0) throw TypeError("iteration over a 0-d array");
  NDArray y = NDArray::zeros({1}, DType::Int64);
  for (int64_t i = 0; i < p.shape()[0]; ++i) {
    // y * q: the Python int 0 times q's coefficients first, then products.
    y = i == 0 ? poly1d_coeffs(apply2("multiply", UfuncInput::of(ScalarValue::python_int(0)), UfuncInput::of(q))) : polymul(y, q);
    y = poly1d_coeffs(polyadd(y, poly1d_coeffs(item(p, i)), false));
  }
  return y;
}

NDArray polyadd(const NDArray& a, const NDArray& b, bool subtract) {
  NDArray x = at_least_1d(a), y = at_least_1d(b);
  const int64_t diff = y.shape()[0] - x.shape()[0];
  if (diff > 0) x = concat0(NDArray::zeros({diff}, x.dtype()), x);
  if (diff < 0) y = concat0(NDArray::zeros({-diff}, y.dtype()), y);
  return binary(subtract ? "subtract" : "add", x, y);
}

NDArray polymul(const NDArray& a, const NDArray& b) { return convolve_full(poly1d_coeffs(a), poly1d_coeffs(b)); }

std::pair<NDArray, NDArray> polydiv(const NDArray& u_in, const NDArray& v_in) {
  const NDArray u = with_scalar("add", at_least_1d(u_in), ScalarValue::python_float(0.0));
  const NDArray v = with_scalar("add", at_least_1d(v_in), ScalarValue::python_float(0.0));
  if (u.shape()[0] == 0 || v.shape()[0] == 0) throw IndexError("index 0 is out of bounds for axis 0 with size 0");
  const DType w = binary("add", item(u, 0), item(v, 0)).dtype();
  const int64_t m = u.shape()[0] - 1, n = v.shape()[0] - 1;
  const NDArray scale = apply2("divide", UfuncInput::of(ScalarValue::python_float(1.0)), UfuncInput::of(item(v, 0)));
  NDArray q = NDArray::zeros({std::max<int64_t>(m - n + 1, 1)}, w);
  NDArray r = astype(u, w, Order::C);
  for (int64_t k = 0; k < m - n + 1; ++k) {
    const NDArray d = binary("multiply", scale, item(r, k));
    copy_into(d, item(q, k));
    const NDArray part = rows(r, k, k + n + 1);
    binary("subtract", part, binary("multiply", d, v), &part);
  }
  // while allclose(r[0], 0, rtol=1e-14) and len(r) > 1: r = r[1:]
  const std::vector<std::complex<double>> values = host_complex(r);
  const int64_t len = r.shape()[0], row = len ? r.size() / len : 0;
  int64_t first = 0;
  auto close_to_zero = [&](int64_t i) {
    for (int64_t j = 0; j < row; ++j)
      if (!(std::abs(values[i * row + j]) <= 1e-8)) return false;
    return true;
  };
  while (first < len - 1 && close_to_zero(first)) ++first;
  return {q, rows(r, first, len)};
}

NDArray polyder(const NDArray& p, int64_t m) {
  if (m < 0) throw std::invalid_argument("Order of derivative must be positive (see polyint)");
  NDArray cur = p;
  for (int64_t step = 0;; ++step) {
    // NumPy computes p[:-1] * arange(n, 0, -1) before looking at m.
    const int64_t n = length_of(cur) - 1;
    const NDArray y = binary("multiply", rows(cur, 0, n), arange_int(n, -1, std::max<int64_t>(n, 0), DType::Int64));
    if (step == m) return cur;
    cur = y;
  }
}

NDArray polyint(const NDArray& p, int64_t m, const std::optional<NDArray>& k_in) {
  if (m < 0) throw std::invalid_argument("Order of integral must be positive (see polyder)");
  NDArray k = k_in ? at_least_1d(*k_in) : NDArray::zeros({m}, DType::Float64);
  if (length_of(k) == 1 && m > 1) {
    NDArray ones = NDArray::empty({m}, DType::Float64);
    fill(ones, 1.0);
    k = binary("multiply", item(k, 0), ones);
  }
  if (length_of(k) < m) throw std::invalid_argument("k must be a scalar or a rank-1 array of length 1 or >m.");
  NDArray cur = p;
  for (int64_t step = 0; step < m; ++step) {
    const int64_t len = length_of(cur);
    const NDArray scaled = binary("true_divide", cur, arange_int(len, -1, len, DType::Int64));
    cur = concat0(scaled, at_least_1d(item(k, step)));
  }
  return cur;
}

std::optional<NDArray> poly_from_zeros(const NDArray& z_in) {
  if (z_in.ndim() == 0) throw TypeError("dispatcher for __array_function__ did not return an iterable");
  if (z_in.ndim() != 1) throw std::invalid_argument("input must be 1d or non-empty square 2d array.");
  // numpy.mintypecode(z.dtype.char) over 'GDFgdf' with default 'd'.
  const DType in = z_in.dtype();
  const DType dt = in == DType::Float32 || in == DType::Float64 || in == DType::Complex64 || in == DType::Complex128
                       ? in
                       : DType::Float64;
  const int64_t n = z_in.shape()[0];
  if (n == 0) return std::nullopt;
  const NDArray z = astype(z_in, dt, Order::C);
  NDArray a = NDArray::empty({1}, dt);
  fill(a, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    // numpy.convolve(a, [1, -z[i]]): next[k] = a[k] - z[i] * a[k - 1].
    NDArray next = NDArray::empty({i + 2}, dt);
    copy_into(a, rows(next, 0, i + 1));
    fill(rows(next, i + 1, i + 2), 0.0);
    const NDArray tail = rows(next, 1, i + 2);
    binary("subtract", tail, binary("multiply", item(z, i), a), &tail);
    a = next;
  }
  if (dtype_info(dt).kind == 'c') {
    // Real coefficients when the roots come in conjugate pairs:
    // all(sort(roots) == sort(roots.conjugate())).
    std::vector<std::complex<double>> roots = host_complex(z), conj(roots.size());
    bool pairs = true;
    for (size_t i = 0; i < roots.size(); ++i) {
      if (std::isnan(roots[i].real()) || std::isnan(roots[i].imag())) pairs = false;
      conj[i] = std::conj(roots[i]);
    }
    auto less = [](const std::complex<double>& x, const std::complex<double>& y) {
      return x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());
    };
    if (pairs) {
      std::sort(roots.begin(), roots.end(), less);
      std::sort(conj.begin(), conj.end(), less);
      pairs = roots == conj;
    }
    if (pairs) a = astype(a.complex_part(false), a.complex_part(false).dtype(), Order::C);
  }
  return a;
}

RootsSetup roots_setup(const NDArray& p) {
  if (p.ndim() == 0) throw TypeError("dispatcher for __array_function__ did not return an iterable");
  if (p.ndim() != 1) throw std::invalid_argument("Input must be a rank-1 array.");
  const std::vector<unsigned char> nz = nonzero_flags(p);
  RootsSetup setup;
  const auto first = std::find(nz.begin(), nz.end(), 1);
  if (first == nz.end()) return setup;
  const int64_t lo = first - nz.begin();
  const int64_t hi = static_cast<int64_t>(nz.rend() - std::find(nz.rbegin(), nz.rend(), 1));   // last nonzero + 1
  setup.trailing_zeros = p.shape()[0] - hi;
  NDArray q = rows(p, lo, hi);
  if (!is_inexact(q.dtype())) q = astype(q, DType::Float64, Order::C);
  const int64_t n = hi - lo;
  if (n < 2) return setup;
  // diag(ones(n - 2), -1) with its first row -q[1:] / q[0].
  NDArray a = NDArray::zeros({n - 1, n - 1}, q.dtype());
  const int64_t s = static_cast<int64_t>(a.itemsize());
  fill(a.view_as({n - 2}, {n * s}, a.offset() + (n - 1) * s), 1.0);
  const NDArray top = item(a, 0);
  binary("divide", unary("negative", rows(q, 1, n)), item(q, 0), &top);
  setup.companion = a;
  return setup;
}

NDArray roots_finish(const std::optional<NDArray>& eigenvalues, int64_t trailing_zeros) {
  const NDArray w = eigenvalues ? *eigenvalues : NDArray::empty({0}, DType::Float64);
  return concat0(w, NDArray::zeros({trailing_zeros}, w.dtype()));
}

NDArray vander(const NDArray& x, std::optional<int64_t> n_in, bool increasing) {
  if (x.ndim() != 1) throw std::invalid_argument("x must be a one-dimensional array or sequence.");
  const int64_t len = x.shape()[0], n = n_in.value_or(len);
  NDArray v = NDArray::empty({len, n}, promote_types(x.dtype(), DType::Int64));
  const int64_t s = static_cast<int64_t>(v.itemsize());
  // Columns in increasing powers: v itself, or v[:, ::-1].
  const NDArray t = increasing ? v : v.view_as({len, n}, {n * s, -s}, v.offset() + (n - 1) * s);
  auto column = [&](int64_t j) { return t.view_as({len}, {t.strides()[0]}, t.offset() + j * t.strides()[1]); };
  if (n > 0) fill(column(0), 1.0);
  if (n > 1) {
    const NDArray rest = t.view_as({len, n - 1}, t.strides(), t.offset() + t.strides()[1]);
    if (len) copy_into(x.view_as(rest.shape(), {x.strides()[0], 0}, x.offset()), rest);
    for (int64_t j = 2; j < n; ++j) {   // multiply.accumulate along the row
      const NDArray c = column(j);
      binary("multiply", column(j - 1), c, &c);
    }
  }
  return v;
}

NDArray polyvander(const NDArray& x_in, int64_t deg) {
  if (deg < 0) throw std::invalid_argument("deg must be non-negative");
  const NDArray x = with_scalar("add", at_least_1d(x_in), ScalarValue::python_float(0.0));
  Shape dims{deg + 1};
  dims.insert(dims.end(), x.shape().begin(), x.shape().end());
  NDArray v = NDArray::empty(dims, x.dtype());
  copy_into(with_scalar("add", with_scalar("multiply", x, ScalarValue::python_int(0)), ScalarValue::python_int(1)), item(v, 0));
  if (deg > 0) copy_into(x, item(v, 1));
  for (int64_t i = 2; i <= deg; ++i) {
    const NDArray vi = item(v, i);
    binary("multiply", item(v, i - 1), x, &vi);
  }
  const int64_t src[] = {0}, dst[] = {v.ndim() - 1};
  return moveaxis(v, src, dst);
}

NDArray polycompanion(const NDArray& c_in) {
  const NDArray c = as_series(std::span<const NDArray>(&c_in, 1), true)[0];
  const int64_t len = c.shape()[0];
  if (len < 2) throw std::invalid_argument("Series must have maximum degree of at least 1.");
  if (len == 2) return binary("divide", unary("negative", item(c, 0)), item(c, 1)).reshape({1, 1});
  const int64_t n = len - 1;
  NDArray mat = NDArray::zeros({n, n}, c.dtype());
  const int64_t s = static_cast<int64_t>(mat.itemsize());
  fill(mat.view_as({n - 1}, {(n + 1) * s}, mat.offset() + n * s), 1.0);
  const NDArray last = mat.view_as({n}, {n * s}, mat.offset() + (n - 1) * s);
  binary("subtract", last, binary("divide", rows(c, 0, n), item(c, n)), &last);
  return mat;
}

std::vector<NDArray> as_series(std::span<const NDArray> arrays_in, bool trim) {
  std::vector<NDArray> arrays;
  for (const NDArray& a : arrays_in) {
    arrays.push_back(at_least_1d(a));
    if (a.size() == 0) throw std::invalid_argument("Coefficient array is empty");
    if (arrays.back().ndim() != 1) throw std::invalid_argument("Coefficient array is not 1-d");
  }
  std::vector<DType> dtypes;
  for (NDArray& a : arrays) {
    if (trim) a = trimseq(a);
    dtypes.push_back(a.dtype());
  }
  DType dt;
  try {
    dt = common_type(dtypes);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("Coefficient arrays have no common type");
  }
  for (NDArray& a : arrays) a = astype(a, dt, Order::C);
  return arrays;
}

NDArray trimseq(const NDArray& a) {
  const int64_t len = length_of(a);
  if (len == 0) return a;
  if (a.size() != len)
    throw std::invalid_argument(
        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  const std::vector<unsigned char> nz = nonzero_flags(a);
  const auto last = std::find(nz.rbegin(), nz.rend(), 1);
  const int64_t keep = last == nz.rend() ? 1 : static_cast<int64_t>(nz.rend() - last);
  return keep == len ? a : rows(a, 0, keep);
}

NDArray trimcoef(const NDArray& c_in, const UfuncInput& tol) {
  const NDArray c = as_series(std::span<const NDArray>(&c_in, 1), true)[0];
  const std::vector<unsigned char> big = host_flags(apply2("greater", UfuncInput::of(unary("absolute", c)), tol));
  const auto last = std::find(big.rbegin(), big.rend(), 1);
  if (last == big.rend()) return with_scalar("multiply", rows(c, 0, 1), ScalarValue::python_int(0));
  return astype(rows(c, 0, big.rend() - last), c.dtype(), Order::C);
}

PolyfitSystem polyfit_system(const NDArray& x_in, const NDArray& y_in, int64_t deg, const std::optional<NDArray>& w_in) {
  const NDArray x = with_scalar("add", x_in, ScalarValue::python_float(0.0));
  const NDArray y = with_scalar("add", y_in, ScalarValue::python_float(0.0));
  if (deg < 0) throw std::invalid_argument("expected deg >= 0");
  if (x.ndim() != 1) throw TypeError("expected 1D vector for x");
  if (x.size() == 0) throw TypeError("expected non-empty vector for x");
  if (y.ndim() < 1 || y.ndim() > 2) throw TypeError("expected 1D or 2D array for y");
  if (x.shape()[0] != y.shape()[0]) throw TypeError("expected x and y to have same length");
  const DType real = dtype_info(x.dtype()).kind == 'c' ? (x.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64)
                                                       : x.dtype();
  const double eps = real == DType::Float16 ? std::ldexp(1.0, -10) : real == DType::Float32 ? std::ldexp(1.0, -23)
                                                                                            : std::ldexp(1.0, -52);
  PolyfitSystem sys{vander(x, deg + 1, false), y, x, static_cast<double>(x.shape()[0]) * eps};
  if (w_in) {
    const NDArray w = with_scalar("add", *w_in, ScalarValue::python_float(0.0));
    if (w.ndim() != 1) throw TypeError("expected a 1-d array for weights");
    if (w.shape()[0] != y.shape()[0]) throw TypeError("expected w and y to have the same length");
    const NDArray column = w.view_as({w.shape()[0], 1}, {w.strides()[0], 0}, w.offset());
    binary("multiply", sys.lhs, column, &sys.lhs);
    binary("multiply", sys.rhs, sys.rhs.ndim() == 2 ? column : w, &sys.rhs);
  }
  ReduceOptions sum;
  sum.axes = std::vector<int64_t>{0};
  sum.single = true;
  sys.scale = unary("sqrt", reduce_apply(ufunc("add"), binary("multiply", sys.lhs, sys.lhs), sum));
  binary("true_divide", sys.lhs, sys.scale, &sys.lhs);
  return sys;
}

NDArray polyfit_unscale(const NDArray& c, const NDArray& scale) {
  if (c.ndim() < 2) return binary("true_divide", c, scale);
  return binary("true_divide", c, scale.view_as({scale.shape()[0], 1}, {scale.strides()[0], 0}, scale.offset()));
}

}  // namespace kiln::arraycore
