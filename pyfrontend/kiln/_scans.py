"""Cumulative sums and products, and differences along an axis.

    kiln.cumsum(a, axis=1)                    # add.accumulate: the scan engine
    kiln.nancumprod(a)                        # NaNs count as 1; axis=None flattens
    kiln.cumulative_sum(a, axis=0, include_initial=True)
    kiln.diff(a, n=2, axis=0, prepend=0)      # n subtract launches (!= for bool)

cumsum and cumprod are add.accumulate and multiply.accumulate
(arraycore/scan_apply.h; NaNs replaced there too for the nan-variants): a parallel scan (Note [Scan engine], arraycore/scan.h)
whose float results differ from NumPy's sequential ones by rounding only,
within Note [Scan rounding]'s bound. Result dtypes are NumPy 2's: bool and
integers narrower than 64 bits accumulate in int64 (uint64 for unsigned).
"""
import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln._core import ndarray
from kiln._ufunc_methods import _loop_dtype, _operand

_add = _core._ufuncs["add"]
_multiply = _core._ufuncs["multiply"]


def _flat_or_1d(a, axis):
    """(a, axis) as accumulate takes them: a raveled with axis None, a 0-d
    array as 1-d (NumPy scans a scalar as a one-element array)."""
    if axis is None:
        return _manipulation.ravel(a), 0
    if a.ndim == 0:
        return a.reshape((1,)), axis
    return a, axis


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along `axis` (all elements in C order when None)."""
    a, axis = _flat_or_1d(_operand(a), axis)
    return _add.accumulate(a, axis=axis, dtype=dtype, out=out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Running products along `axis` (all elements in C order when None)."""
    a, axis = _flat_or_1d(_operand(a), axis)
    return _multiply.accumulate(a, axis=axis, dtype=dtype, out=out)


def nancumsum(a, axis=None, dtype=None, out=None):
    """cumsum with NaNs counted as zero (leading NaNs give zeros)."""
    return cumsum(_core._nan_as(_operand(a), 0), axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """cumprod with NaNs counted as one (leading NaNs give ones)."""
    return cumprod(_core._nan_as(_operand(a), 1), axis, dtype, out)


def _cumulative(uf, x, axis, dtype, out, include_initial):
    x = _operand(x)
    if x.ndim == 0:
        x = x.reshape((1,))
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        axis = 0
    axis = _manipulation._axis(axis, x.ndim)
    if not include_initial:
        return uf.accumulate(x, axis=axis, dtype=dtype, out=out)
    shape = list(x.shape)
    shape[axis] += 1
    if out is None:
        out = _creation.empty(tuple(shape), _loop_dtype(uf, x.dtype, dtype, None))
    elif not isinstance(out, ndarray):
        raise TypeError("out must be a kiln.ndarray, got %s" % type(out).__name__)
    elif tuple(out.shape) != tuple(shape):
        raise ValueError("output parameter for cumulative has shape %s, expected %s" % (tuple(out.shape), tuple(shape)))
    before = (slice(None),) * axis
    out[before + (slice(0, 1),)] = uf.identity
    uf.accumulate(x, axis=axis, dtype=dtype, out=out[before + (slice(1, None),)])
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The array API's cumsum: axis may be None only for 1-d input; with
    include_initial the result starts with a zero along axis."""
    return _cumulative(_add, x, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The array API's cumprod: axis may be None only for 1-d input; with
    include_initial the result starts with a one along axis."""
    return _cumulative(_multiply, x, axis, dtype, out, include_initial)


def _edge(value, a, axis):
    """prepend/append of diff as an array of a's shape along every axis but
    `axis` (a scalar is broadcast to length 1 there)."""
    v = _operand(value)
    if v.ndim == 0:
        shape = list(a.shape)
        shape[axis] = 1
        v = _manipulation.broadcast_to(v, tuple(shape))
    return v


_NO_VALUE = object()


def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    """The n-th difference along `axis`, a[1:] - a[:-1] applied n times
    (a[1:] != a[:-1] for bool), after joining prepend and append along axis."""
    a = _operand(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _manipulation._axis(axis, a.ndim)
    if prepend is not _NO_VALUE or append is not _NO_VALUE:
        parts = [_edge(prepend, a, axis)] if prepend is not _NO_VALUE else []
        parts.append(a)
        if append is not _NO_VALUE:
            parts.append(_edge(append, a, axis))
        a = _manipulation.concatenate(parts, axis=axis)
    before = (slice(None),) * axis
    op = _core._ufuncs["not_equal" if a.dtype == numpy.bool_ else "subtract"]
    for _ in range(n):
        a = op(a[before + (slice(1, None),)], a[before + (slice(None, -1),)])
    return a


def _ediff_end(value, dtype, name):
    if value is None:
        return None
    v = _operand(value) if not isinstance(value, (list, tuple)) else _creation.asarray(value)
    if not numpy.can_cast(v.dtype, dtype, casting="same_kind"):
        raise TypeError("dtype of `%s` must be compatible with input `ary` under the `same_kind` rule." % name)
    return _manipulation.ravel(v)


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of ary flattened, with to_begin
    and to_end (cast to ary's dtype, same_kind) joined at the ends."""
    ary = _manipulation.ravel(_operand(ary))
    begin = _ediff_end(to_begin, ary.dtype, "to_begin")
    end = _ediff_end(to_end, ary.dtype, "to_end")
    nb = 0 if begin is None else begin.size
    nd = max(ary.size - 1, 0)
    result = _creation.empty((nb + nd + (0 if end is None else end.size),), ary.dtype)
    if begin is not None:
        result[:nb] = begin
    if nd or ary.dtype == numpy.bool_:
        _core._ufuncs["subtract"](ary[1:], ary[:-1], out=result[nb:nb + nd])
    if end is not None:
        result[nb + nd:] = end
    return result


def _method(fn):
    def method(self, axis=None, dtype=None, out=None):
        return fn(self, axis, dtype, out)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


ndarray.cumsum = _method(cumsum)
ndarray.cumprod = _method(cumprod)
