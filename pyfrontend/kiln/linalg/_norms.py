"""Vector and matrix norms: kiln.linalg.norm (numpy.linalg.norm's every ord
and axis), vector_norm and matrix_norm (NumPy 2's array API forms), and
the array API's diagonal and trace over the last two axes. Argument
normalisation over kiln's ufuncs and reductions; the 2, -2 and 'nuc'
matrix norms take singular values from kiln.linalg.svdvals.

    n = kiln.linalg.norm(x)                        # 2-norm of x flattened (0-d)
    rows = kiln.linalg.norm(m, ord=1, axis=1)      # sum of |m[i, j]| over j
    f = kiln.linalg.matrix_norm(stack, ord="fro")  # one Frobenius norm per matrix

Note [Norm dtypes]
Norms are computed as NumPy computes them, so their dtypes follow: integer
and bool inputs are cast to float64 first; float16/32/64 stay; complex64
and complex128 give float32 and float64 (|x| and re^2 + im^2 are real).
The plain 2-norm (and Frobenius) is sqrt(sum(re^2 + im^2)) as NumPy's,
without rescaling, so it overflows where NumPy's does.
"""
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln import _reductions

_uf = _core._ufuncs
AxisError = numpy.exceptions.AxisError


def _squares(x):
    """|x|^2 elementwise, real: re^2 + im^2 for complex x."""
    if x.dtype.kind == "c":
        re, im = x.real, x.imag
        return _uf["add"](_uf["multiply"](re, re), _uf["multiply"](im, im))
    return _uf["multiply"](x, x)


def _singular_values(x):
    """The singular values of each matrix in x's last two axes
    (kiln.linalg.svdvals, looked up when first needed)."""
    from kiln import linalg
    svdvals = getattr(linalg, "svdvals", None)
    if svdvals is not None:
        return svdvals(x)
    svd = getattr(linalg, "svd", None)
    if svd is None:
        raise NotImplementedError("the matrix norms of ord 2, -2 and 'nuc' need kiln.linalg.svdvals, "
                                  "which this kiln does not have yet")
    return svd(x, compute_uv=False)


def _vector_norm(x, ord, axis, keepdims):
    """The norm of each vector along ``axis`` (an int)."""
    if ord is None or (not isinstance(ord, str) and ord == 2):
        return _uf["sqrt"](_reductions.sum(_squares(x), axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError("Invalid norm order '%s' for vectors" % ord)
    if ord == numpy.inf:
        return _reductions.max(_uf["absolute"](x), axis, keepdims=keepdims, initial=0)
    if ord == -numpy.inf:
        return _reductions.min(_uf["absolute"](x), axis, keepdims=keepdims)
    real = x.real.dtype
    if ord == 0:
        return _reductions.sum(_uf["not_equal"](x, 0).astype(real), axis, keepdims=keepdims)
    if ord == 1:
        return _reductions.sum(_uf["absolute"](x), axis, keepdims=keepdims)
    # Any other p: (sum |x|^p)^(1/p), both powers in the real dtype as NumPy's.
    p = numpy.asarray(ord, dtype=real)
    total = _reductions.sum(_uf["power"](_uf["absolute"](x), p.item()), axis, keepdims=keepdims)
    return _uf["power"](total, numpy.reciprocal(p).item())


def _matrix_norm(x, ord, row, col, keepdims):
    """The norm of each matrix over axes row and col (distinct, non-negative)."""
    if ord in (2, -2, "nuc"):
        s = _singular_values(_manipulation.moveaxis(x, (row, col), (-2, -1)))
        if ord == "nuc":
            res = _reductions.sum(s, -1)
        else:
            res = _reductions.max(s, -1, initial=0) if ord == 2 else _reductions.min(s, -1)
    elif ord in (None, "fro", "f"):
        res = _uf["sqrt"](_reductions.sum(_squares(x), (row, col)))
    elif ord in (1, -1, numpy.inf, -numpy.inf):
        # 1: the largest column sum of |x| (sum over rows, extreme over columns); inf: the largest row sum.
        # (Empty matrices: 0 for the maxima, as NumPy's initial=0; the minima raise.)
        summed, kept = (row, col) if ord in (1, -1) else (col, row)
        sums = _reductions.sum(_uf["absolute"](x), summed)
        kept -= kept > summed
        res = _reductions.max(sums, kept, initial=0) if ord in (1, numpy.inf) else _reductions.min(sums, kept)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        res = _manipulation.reshape(res, tuple(shape))
    return res


def _axis_tuple(axis):
    if axis is None or isinstance(axis, tuple):
        return axis
    try:
        return (int(axis),)
    except Exception:
        raise TypeError("'axis' must be None, an integer or a tuple of integers") from None


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: a vector norm along one axis, or a matrix norm over
    two. ``axis=None`` with ``ord=None`` is the 2-norm of x flattened; with
    another ord, x must be 1-d (vector norm) or 2-d (matrix norm). Vector
    ords: None/2, inf, -inf, 0 (count of nonzeros), 1, and any other real p;
    matrix ords: None/'fro', 'nuc', inf, -inf, 1, -1, 2, -2 (the last two and
    'nuc' through kiln.linalg.svdvals). Result dtypes: Note [Norm dtypes].
    Results are kiln arrays (0-d where NumPy returns a scalar)."""
    x = _creation.asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(numpy.float64)
    axis = _axis_tuple(axis)
    if axis is None:
        if ord is None or (ord in ("f", "fro") and x.ndim == 2) or (ord == 2 and x.ndim == 1):
            res = _uf["sqrt"](_reductions.sum(_squares(_manipulation.ravel(x))))
            return _manipulation.reshape(res, (1,) * x.ndim) if keepdims else res
        if x.ndim not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(x.ndim))
    if len(axis) == 1:
        return _vector_norm(x, ord, axis[0], keepdims)
    if len(axis) == 2:
        row, col = [operator.index(a) for a in axis]
        for a in (row, col):
            if not -x.ndim <= a < x.ndim:
                raise AxisError(a, x.ndim)
        row, col = row % x.ndim, col % x.ndim
        if row == col:
            raise ValueError("Duplicate axes given.")
        return _matrix_norm(x, ord, row, col, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """numpy.linalg.vector_norm: the vector norm of ``ord`` over ``axis``
    (None: every axis; a tuple: those axes together, as one vector)."""
    x = _creation.asarray(x)
    if axis is None:
        axes = tuple(range(x.ndim))
        res = norm(_manipulation.ravel(x), ord=ord, axis=0)
    else:
        axes = _manipulation._axis_tuple(axis, x.ndim)
        rest = [d for d in range(x.ndim) if d not in axes]
        flat = _manipulation.reshape(_manipulation.transpose(x, rest + list(axes)),
                                     tuple(x.shape[d] for d in rest) + (-1,))
        res = norm(flat, ord=ord, axis=-1)
    if keepdims:
        res = _manipulation.reshape(res, tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    return res


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """numpy.linalg.matrix_norm: the matrix norm of ``ord`` of each matrix in
    x's last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def diagonal(x, /, *, offset=0):
    """numpy.linalg.diagonal: the ``offset``-th diagonal of each matrix in
    x's last two axes, a view (kiln.diagonal's note on writing applies)."""
    return _creation.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """numpy.linalg.trace: the sum of the ``offset``-th diagonal of each
    matrix in x's last two axes (kiln.trace's dtype rule)."""
    return _reductions.trace(x, offset, -2, -1, dtype)
