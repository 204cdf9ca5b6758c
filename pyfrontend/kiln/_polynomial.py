"""NumPy's poly1d family for kiln arrays: poly1d, polyval, polyadd, polysub,
polymul, polydiv, polyder, polyint, poly, roots, polyfit and vander.

    p = kiln.poly1d([1, -3, 2])          # x**2 - 3 x + 2
    p(kiln.arange(3)), p.roots, p.deriv(), p * p
    c = kiln.polyfit(x, y, 2)

Each routine is a C++ composition of kiln operations (arraycore/polynomial.h)
in NumPy's order of operations; roots, poly and polyfit call kiln.linalg
(eigvals, eigvalsh, lstsq, inv) between them. As CuPy does, roots refuses
boolean coefficients and poly refuses a square matrix that is not Hermitian
(NotImplementedError); poly1d's str and repr are NumPy's, of poly1d.get().
kiln's ufuncs and ndarray operators take a poly1d as its coefficient array,
as NumPy's do (Note [poly1d operands] in pyfrontend/ufunc_binding.cpp).
"""
import operator
import warnings

import numpy

from kiln import _core, linalg
from kiln._creation import asarray, zeros
from kiln._manipulation import concatenate


def _array(x):
    return x.coeffs if isinstance(x, poly1d) else asarray(x)


def _wrap(val, *inputs):
    return poly1d(val) if any(isinstance(i, poly1d) for i in inputs) else val


class poly1d:
    """numpy.poly1d with kiln coefficients (`get()` gives the numpy.poly1d)."""
    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, (poly1d, numpy.poly1d)):
            self._coeffs, self._variable = asarray(c_or_r.coeffs), c_or_r.variable if variable is None else variable
            return
        self._coeffs = _core._poly1d_coeffs(asarray(poly(c_or_r) if r else c_or_r))
        self._variable = "x" if variable is None else variable

    coeffs = c = coef = coefficients = property(lambda self: self._coeffs)
    variable = property(lambda self: self._variable)
    order = o = property(lambda self: self._coeffs.size - 1)
    roots = r = property(lambda self: roots(self._coeffs))

    def get(self, stream=None):
        return numpy.poly1d(self._coeffs.get(), variable=self._variable)

    def set(self, a, stream=None):
        self._coeffs, self._variable = asarray(a.coeffs), a.variable

    __repr__ = lambda self: repr(self.get())
    __str__ = lambda self: str(self.get())
    __len__ = lambda self: self.order
    __iter__ = lambda self: iter(self._coeffs)
    __call__ = lambda self, val: polyval(self._coeffs, val)
    __neg__ = lambda self: poly1d(-self._coeffs)
    __pos__ = lambda self: self

    def __mul__(self, other):
        if numpy.isscalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(polymul(self._coeffs, poly1d(other).coeffs))

    def __rmul__(self, other):
        return poly1d(other * self._coeffs) if numpy.isscalar(other) else self * other

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, poly1d(other).coeffs))

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, poly1d(other).coeffs))

    def __rsub__(self, other):
        return poly1d(polysub(poly1d(other).coeffs, self._coeffs))

    def __pow__(self, val):
        if not numpy.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = [1]
        for _ in range(val):
            res = polymul(self._coeffs, res)
        return poly1d(res)

    def __truediv__(self, other):
        if numpy.isscalar(other):
            return poly1d(self._coeffs / other)
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        return poly1d(other / self._coeffs) if numpy.isscalar(other) else polydiv(poly1d(other), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return self._coeffs.shape == other.coeffs.shape and bool((self._coeffs == other.coeffs).all())

    def __ne__(self, other):
        return NotImplemented if not isinstance(other, poly1d) else not self == other

    def __getitem__(self, val):
        if val > self.order or val < 0:
            return self._coeffs.dtype.type(0)
        return self._coeffs[self.order - val]

    def __setitem__(self, key, val):
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            self._coeffs = concatenate((zeros(key - self.order, self._coeffs.dtype), self._coeffs))
        self._coeffs[self.order - key] = val

    def integ(self, m=1, k=0):
        return poly1d(polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        return poly1d(polyder(self._coeffs, m=m))


def polyval(p, x):
    """numpy.polyval: p evaluated at x by Horner's scheme (a poly1d x gives the poly1d p(x))."""
    if isinstance(x, poly1d):
        return poly1d(_core._polyval_poly1d(_array(p), x.coeffs))
    return _core._polyval(_array(p), asarray(x))


def polyadd(a1, a2):
    """numpy.polyadd: the sum of two polynomials (a poly1d when either is one)."""
    return _wrap(_core._polyadd(_array(a1), _array(a2), False), a1, a2)


def polysub(a1, a2):
    """numpy.polysub: the difference of two polynomials (a poly1d when either is one)."""
    return _wrap(_core._polyadd(_array(a1), _array(a2), True), a1, a2)


def polymul(a1, a2):
    """numpy.polymul: the product of two polynomials (a poly1d when either is one)."""
    return _wrap(_core._polymul(_array(a1), _array(a2)), a1, a2)


def polydiv(u, v):
    """numpy.polydiv: (quotient, remainder) of the division of u by v."""
    q, r = _core._polydiv(_array(u), _array(v))
    return (poly1d(q), poly1d(r)) if isinstance(u, poly1d) or isinstance(v, poly1d) else (q, r)


def polyder(p, m=1):
    """numpy.polyder: the m-th derivative of p."""
    return _wrap(_core._polyder(_array(p), int(m)), p)


def polyint(p, m=1, k=None):
    """numpy.polyint: the m-th antiderivative of p, with integration constants k."""
    return _wrap(_core._polyint(_array(p), int(m), None if k is None else asarray(k)), p)


def poly(seq_of_zeros):
    """numpy.poly: the coefficients of the monic polynomial with the given roots (or of a
    Hermitian matrix's characteristic polynomial; other square matrices: NotImplementedError, as CuPy)."""
    z = _array(seq_of_zeros)
    if z.ndim == 2 and z.shape[0] == z.shape[1] != 0:
        if not bool((z == z.conj().T).all()):
            raise NotImplementedError("kiln.poly of a square matrix supports Hermitian matrices only, as cupy.poly")
        z = linalg.eigvalsh(z)
    return _core._poly(z)


def roots(p):
    """numpy.roots: the eigenvalues of p's companion matrix (kiln.linalg.eigvals), then
    the roots at zero; boolean p: NotImplementedError, as CuPy."""
    p = _array(p)
    if p.dtype == bool:
        raise NotImplementedError("kiln.roots does not support boolean coefficients, as cupy.roots")
    companion, zeros = _core._roots_setup(p)
    r = _core._roots_finish(None if companion is None else linalg.eigvals(companion), zeros)
    # Real roots of a real p are real, as numpy.roots gives them with NumPy
    # 2.4 and 2.5 alike (2.5's eigvals is complex always: Note [Eig dtypes]).
    if r.dtype.kind == "c" and p.dtype.kind != "c" and not bool((r.imag != 0).any()):
        r = r.real.copy()
    return r


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """numpy.polyfit: the least-squares fit of a polynomial of degree deg (kiln.linalg.lstsq)."""
    order = int(deg) + 1
    lhs, rhs, scale, eps_rcond = _core._polyfit_system(asarray(x), asarray(y), order - 1 if deg >= 0 else -1,
                                                       None if w is None else asarray(w))
    rcond = eps_rcond if rcond is None else rcond
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = _core._polyfit_unscale(c, scale)
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", numpy.exceptions.RankWarning, stacklevel=2)
    if full or not cov:
        return (c, resids, rank, s, rcond) if full else c
    vbase = linalg.inv(lhs.T @ lhs) / linalg.outer(scale, scale)
    if cov != "unscaled" and lhs.shape[0] <= order:
        raise ValueError("the number of data points must exceed order to scale the covariance matrix")
    fac = 1 if cov == "unscaled" else resids / (lhs.shape[0] - order)
    return c, (vbase if rhs.ndim == 1 else vbase[:, :, None]) * fac


def vander(x, N=None, increasing=False):
    """numpy.vander: the Vandermonde matrix of the 1-d x."""
    return _core._vander(asarray(x), None if N is None else operator.index(N), bool(increasing))
