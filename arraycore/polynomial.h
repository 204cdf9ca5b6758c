// NumPy's polynomial routines over kiln arrays (polynomial.cpp): the
// "poly1d" family (numpy.polyval, polyadd, polymul, polydiv, polyder,
// polyint, poly, roots, polyfit's system, vander) and the parts of
// numpy.polynomial that CuPy has (polynomial.polyvander, polycompanion;
// polyutils.as_series, trimseq, trimcoef). Each composes existing operations
// (ufunc_apply, reduce_apply, copy_into, views) in NumPy's order of
// operations, so results, dtypes and errors are NumPy's; the eigenvalue and
// least-squares steps of roots, poly and polyfit are kiln.linalg's, called by
// the Python layer between these entries.
//
//   NDArray c = poly1d_coeffs(a);          // a's coefficients without leading zeros (a view)
//   NDArray y = polyval(c, x);             // Horner's scheme, as numpy.polyval
//   NDArray p = polymul(c, c);             // numpy.convolve of the trimmed coefficients
//   auto [q, r] = polydiv(p, c);
//
// Note [Polynomial host reads]
// Where NumPy's result shape depends on values (leading or trailing zeros:
// poly1d, roots, trimseq, trimcoef, as_series; polydiv's remainder trim;
// poly's conjugate-pair test) the entry reads a bool mask (or the few values
// it needs) back to the host: one synchronisation, as CuPy's versions do.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// numpy.poly1d(c).coeffs: c (0-d or 1-d) from its first nonzero on (a view
// of c), or [0] of c's dtype when every value is zero.
// std::invalid_argument "Polynomial must be 1d only." for ndim > 1.
NDArray poly1d_coeffs(const NDArray& c);

// numpy.polyval(p, x) for an array x: y = zeros_like(x); y = y * x + p[i]
// for each p[i] along p's first axis (arraycore::TypeError for 0-d p).
NDArray polyval(const NDArray& p, const NDArray& x);

// numpy.polyval(p, q) for a poly1d q (its coefficients): the coefficients of
// p(q(x)), each step trimmed as poly1d's arithmetic does.
NDArray polyval_poly1d(const NDArray& p, const NDArray& q);

// numpy.polyadd / polysub (`subtract`) of two coefficient arrays (0-d taken
// as 1-d): the shorter one is padded with leading zeros.
NDArray polyadd(const NDArray& a, const NDArray& b, bool subtract);

// numpy.polymul: numpy.convolve of poly1d_coeffs(a) and poly1d_coeffs(b), in
// their promoted dtype (bool: logical and/or).
NDArray polymul(const NDArray& a, const NDArray& b);

// numpy.polydiv(u, v): (quotient, remainder), in floating point.
std::pair<NDArray, NDArray> polydiv(const NDArray& u, const NDArray& v);

// numpy.polyder(p, m); m < 0: std::invalid_argument.
NDArray polyder(const NDArray& p, int64_t m);

// numpy.polyint(p, m, k); `k` none = zeros, else 0-d or 1-d constants
// (std::invalid_argument when fewer than m and not one).
NDArray polyint(const NDArray& p, int64_t m, const std::optional<NDArray>& k);

// numpy.poly's product of (x - z) over a 1-d z, after casting z as NumPy's
// mintypecode does (float32/float64/complex64/complex128 kept, every other
// dtype to float64); a complex result whose roots come in conjugate pairs is
// made real. Empty z: none (NumPy returns the Python float 1.0).
// z of another shape: std::invalid_argument (NumPy's message).
std::optional<NDArray> poly_from_zeros(const NDArray& z);

// numpy.roots, first half: p's companion matrix (floating point, leading and
// trailing zeros stripped) when it has one (two or more coefficients left),
// and the number of trailing zeros (roots at 0; none when p is all zeros,
// whose roots are numpy.array([])).
struct RootsSetup {
  std::optional<NDArray> companion;
  int64_t trailing_zeros = 0;
};
RootsSetup roots_setup(const NDArray& p);

// numpy.roots, second half: the eigenvalues (none: an empty float64 array)
// followed by `trailing_zeros` zeros of their dtype.
NDArray roots_finish(const std::optional<NDArray>& eigenvalues, int64_t trailing_zeros);

// numpy.vander(x, N, increasing): x 1-d, N default len(x), dtype
// promote_types(x.dtype, int64).
NDArray vander(const NDArray& x, std::optional<int64_t> n, bool increasing);

// numpy.polynomial.polynomial.polyvander(x, deg): shape x.shape + (deg + 1,)
// in x's floating dtype (a view of a (deg + 1,) + x.shape array, as NumPy's).
NDArray polyvander(const NDArray& x, int64_t deg);

// numpy.polynomial.polynomial.polycompanion(c).
NDArray polycompanion(const NDArray& c);

// numpy.polynomial.polyutils.as_series(arrays, trim): 1-d copies in the
// arrays' common type (std::invalid_argument for empty, non-1-d or bool).
std::vector<NDArray> as_series(std::span<const NDArray> arrays, bool trim);

// numpy.polynomial.polyutils.trimseq(a): a without trailing zeros (a view,
// keeping the first element).
NDArray trimseq(const NDArray& a);

// numpy.polynomial.polyutils.trimcoef(c, tol) after its tol < 0 check: tol
// is compared with abs(c) as NumPy compares it (a Python scalar weak).
NDArray trimcoef(const NDArray& c, const UfuncInput& tol);

// numpy.polyfit's least-squares system: the scaled Vandermonde matrix `lhs`
// (weighted by w), the right-hand side `rhs` and the column scales, after
// NumPy's argument checks (TypeError / ValueError as numpy.polyfit raises).
// `eps_rcond`: len(x) * finfo(x.dtype).eps, NumPy's default rcond.
struct PolyfitSystem {
  NDArray lhs, rhs, scale;
  double eps_rcond = 0;
};
PolyfitSystem polyfit_system(const NDArray& x, const NDArray& y, int64_t deg, const std::optional<NDArray>& w);

// (c.T / scale).T: the coefficients of the unscaled problem.
NDArray polyfit_unscale(const NDArray& c, const NDArray& scale);

}  // namespace kiln::arraycore
