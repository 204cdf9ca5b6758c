"""Numerical calculus, correlation, interpolation and windows: gradient,
trapezoid, unwrap, cross, convolve, correlate, cov, corrcoef, interp, bartlett, blackman, hamming,
hanning, kaiser.

    kiln.gradient(f)                              # one array per axis
    kiln.gradient(f, 0.5, x, axis=(0, 1), edge_order=2)
    kiln.convolve(a, v, mode="same")              # direct sums, or FFTs for long float operands

The steps are NumPy's, run as kernels over views in arraycore
(arraycore/numeric_calculus.h, Note [Gradient steps]; arraycore/convolution.h,
Note [Correlation lags], Note [Correlation by FFT]).
"""
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln import _copyto
from kiln import _manipulation
from kiln import _reductions
from kiln import _scans
from kiln import _sorting
from kiln._core import ndarray
from kiln._ufunc_methods import _operand

_ufn = _core._ufuncs
_SCALARS = (ndarray, bool, int, float, complex, numpy.generic)


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of f by second-order central differences inside and
    one-sided differences of order ``edge_order`` (1 or 2) at the ends, as
    numpy.gradient: varargs give the spacing (none: 1; one scalar for every
    axis; or one scalar or 1-d coordinate array per axis). One array per
    axis of ``axis`` (a tuple of them, a single array for one axis)."""
    spacing = [v if isinstance(v, _SCALARS) else _creation.asarray(v) for v in varargs]
    f = f if isinstance(f, ndarray) else _creation.asarray(f)   # numpy.asanyarray(f), as NumPy and CuPy
    outs = _core._gradient(f, spacing, tuple(axis) if isinstance(axis, list) else axis, edge_order)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _correlation(a, v, mode, convolve):
    r = _core._correlate(_operand(a), _operand(v), mode, convolve)
    if isinstance(r, ndarray):
        return r
    a, u, start, length, dtype = r   # Note [Correlation by FFT]
    from kiln import fft
    n = a.size + u.size - 1
    if dtype.kind == "c":
        full = fft.ifft(fft.fft(a, n) * fft.fft(u, n))
    else:
        full = fft.irfft(fft.rfft(a, n) * fft.rfft(u, n), n)
    return full[start:start + length].astype(dtype, copy=False)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of the 1-d a and v, as numpy.convolve
    (mode 'full', 'same' or 'valid'; 0-d operands count as 1-d). Floating
    operands of 256 elements or more go through FFTs, as CuPy's do: Note
    [Correlation by FFT]."""
    return _correlation(a, v, mode, True)


def correlate(a, v, mode="valid"):
    """The cross-correlation sum_n a[n + k] * conj(v[n]) of the 1-d a and v,
    as numpy.correlate (mode 'valid', 'same' or 'full'). Floating operands
    of 256 elements or more go through FFTs, as CuPy's do: Note
    [Correlation by FFT]."""
    return _correlation(a, v, mode, False)


def bartlett(M):
    """The Bartlett (triangular) window of M points, as numpy.bartlett (float64)."""
    return _core._window("bartlett", M, 0.0)


def blackman(M):
    """The Blackman window of M points, as numpy.blackman (float64)."""
    return _core._window("blackman", M, 0.0)


def hamming(M):
    """The Hamming window of M points, as numpy.hamming (float64)."""
    return _core._window("hamming", M, 0.0)


def hanning(M):
    """The Hann window of M points, as numpy.hanning (float64)."""
    return _core._window("hanning", M, 0.0)


def kaiser(M, beta):
    """The Kaiser window of M points and shape beta, as numpy.kaiser (float64)."""
    return _core._window("kaiser", M, beta)


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant of the points (xp, fp) at x, as
    numpy.interp (xp increasing; float64, complex128 for complex fp): left
    and right (default fp[0] and fp[-1]) outside xp; with ``period``, x and
    xp are taken modulo the period (left and right ignored). Formulas:
    Note [interp] in arraycore/interpolation.h."""
    x, xp, fp = _operand(x), _operand(xp), _operand(fp)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period, left, right = abs(period), None, None
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x = x.astype(numpy.float64) % period
        xp = xp.astype(numpy.float64) % period
        order = _sorting.argsort(xp)
        xp, fp = xp[order], fp.astype(numpy.complex128 if fp.dtype.kind == "c" else numpy.float64)[order]
        xp = _manipulation.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = _manipulation.concatenate((fp[-1:], fp, fp[0:1]))
    return _core._interp(x, xp, fp, left, right)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of y along ``axis`` by the trapezoidal rule, as
    numpy.trapezoid: sample points x (1-d along axis, or y's shape), else
    the spacing dx; NumPy's steps, sum(d * (y[1:] + y[:-1]) / 2.0)."""
    y = _operand(y)
    d = dx
    if x is not None:
        x = _operand(x)
        d = _scans.diff(x, axis=-1 if x.ndim == 1 else axis)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(tuple(shape))
    before = (slice(None),) * _manipulation._axis(axis, y.ndim)
    total = _ufn["add"](y[before + (slice(1, None),)], y[before + (slice(None, -1),)])
    return _reductions.sum(_ufn["true_divide"](_ufn["multiply"](d, total), 2.0), axis=axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * numpy.pi):
    """p with jumps between neighbours along ``axis`` larger than
    max(discont, period / 2) replaced by their complement modulo period,
    as numpy.unwrap (NumPy's steps: the differences wrapped into
    [-period / 2, period / 2), corrected where at least discont, summed)."""
    p = _operand(p)
    dd = _scans.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = numpy.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _ufn["add"](_ufn["remainder"](_ufn["subtract"](dd, low), period), low)
    if ambiguous:
        _copyto.copyto(ddmod, high, where=_ufn["logical_and"](_ufn["equal"](ddmod, low), _ufn["greater"](dd, 0)))
    correct = _ufn["subtract"](ddmod, dd)
    _copyto.copyto(correct, 0, where=_ufn["less"](_ufn["absolute"](dd), discont))
    up = p.astype(dtype, copy=True)
    after = (slice(None),) * _manipulation._axis(axis, p.ndim) + (slice(1, None),)
    up[after] = _ufn["add"](p[after], _scans.cumsum(correct, axis=axis))
    return up


def _weights(w, n, name):
    """fweights/aweights as numpy.cov checks them (float64, 1-d, n long, not negative)."""
    w = (w if isinstance(w, ndarray) else _creation.asarray(w)).astype(numpy.float64)
    if w.ndim > 1:
        raise RuntimeError("cannot handle multidimensional %s" % name)
    if w.shape[0] != n:
        raise RuntimeError("incompatible numbers of samples and %s" % name)
    if bool(_reductions.any(_ufn["less"](w, 0))):
        raise ValueError("%s cannot be negative" % name)
    return w


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables in m's rows (columns when not
    rowvar) and y's, as numpy.cov: NumPy's steps (weighted means, centred
    product by dot, normalised by N - ddof or the weights' equivalent)."""
    import kiln
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = _operand(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = _operand(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = numpy.result_type(m.dtype, *(() if y is None else (y.dtype,)), numpy.float64)
    X = _manipulation.atleast_2d(m).astype(dtype)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return _creation.empty((0, 0))
    if y is not None:
        y = _manipulation.atleast_2d(y).astype(dtype)
        X = _manipulation.concatenate((X, y if rowvar or y.shape[0] == 1 else y.T), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        w = _weights(fweights, X.shape[1], "fweights")
        if not bool(kiln.all(_ufn["equal"](w, kiln.around(w)))):
            raise TypeError("fweights must be integer")
    if aweights is not None:
        aweights = _weights(aweights, X.shape[1], "aweights")
        w = aweights if w is None else w * aweights
    avg, w_sum = kiln.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * kiln.sum(w * aweights) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X -= avg[:, None]
    c = kiln.dot(X, (X if w is None else X * w).T.conj())
    c *= numpy.true_divide(1, fact) if not isinstance(fact, ndarray) else _ufn["true_divide"](1, fact)
    return c.squeeze()


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients, as numpy.corrcoef: cov(x, y, rowvar)
    divided by the outer product of the standard deviations, each part
    clipped to [-1, 1]."""
    import kiln
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c   # one variable: NumPy's scalar covariance divided by itself
    d = kiln.diag(c)
    stddev = kiln.sqrt(d.real)
    c /= stddev[:, None]
    c /= stddev[None, :]
    kiln.clip(c.real, -1, 1, out=c.real)
    if c.dtype.kind == "c":
        kiln.clip(c.imag, -1, 1, out=c.imag)
    return c


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of the 3-vectors along axisa of a and axisb of b
    (``axis`` sets all three), broadcast over the other axes, the vectors
    along axisc of the result, as numpy.cross (2-vectors: NumPy 2.5's
    ValueError)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    return _core._cross(_operand(a), _operand(b), axisa, axisb, axisc)


def linalg_cross(x1, x2, /, *, axis=-1):
    """numpy.linalg.cross: the cross product of 3-vectors along ``axis``."""
    return cross(x1, x2, axis=axis)
