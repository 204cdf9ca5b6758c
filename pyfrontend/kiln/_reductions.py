"""Reductions and statistics (sum ... trace), as functions and ndarray methods.

    kiln.sum(a, axis=(0, 2), keepdims=True)        # ufunc.reduce of kiln.add
    kiln.var(a, axis=1, ddof=1, where=mask)         # two engine passes: mean, squared deviations
    kiln.nanargmax(a, axis=0)                       # kiln::ValueIndex accumulator, first maximum
    a.mean(axis=-1)                                 # the same functions as ndarray methods

NumPy 2's signatures, result dtypes, NaN rules and errors. Full reductions
return 0-d kiln arrays. Every reduction runs on the reduction engine
(arraycore/reduction.h): sum, prod, min, max, any, all and the nan-variants
of the first four through ufunc.reduce's C++ call (_core._reduce_apply:
arraycore/reduce_apply.h); mean, var, std, the arg reductions and
count_nonzero through arraycore/statistics.h (kiln._core._mean, _var,
_arg_reduce, _count_nonzero). Float results differ from NumPy's only in
rounding: Note [Pairwise passes] in arraycore/reduce_apply.cpp bounds sums,
and a mean is such a sum divided by the count.
"""
import operator
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln._core import ndarray
from kiln._core import _reduce_apply
from kiln._ufunc_methods import _NO_VALUE, _operand, _reduce_axes

_uf = _core._ufuncs

# ---- sum prod min max any all and their nan-variants: ufunc.reduce ----

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):  # noqa: A001
    """Sum over axis (all by default), as numpy.sum; bool and small integers sum in int64/uint64."""
    return _reduce_apply(_uf["add"], a, axis, dtype, out, keepdims, initial, where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Product over axis, as numpy.prod."""
    return _reduce_apply(_uf["multiply"], a, axis, dtype, out, keepdims, initial, where)


def max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):  # noqa: A001
    """Maximum over axis, the first NaN when there is one, as numpy.max."""
    return _reduce_apply(_uf["maximum"], a, axis, None, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):  # noqa: A001
    """Minimum over axis, the first NaN when there is one, as numpy.min."""
    return _reduce_apply(_uf["minimum"], a, axis, None, out, keepdims, initial, where)


amax, amin = max, min


def any(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether any element over axis is nonzero (NaN is), as numpy.any."""
    return _reduce_apply(_uf["logical_or"], a, axis, None, out, keepdims, _NO_VALUE, where)


def all(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether every element over axis is nonzero, as numpy.all."""
    return _reduce_apply(_uf["logical_and"], a, axis, None, out, keepdims, _NO_VALUE, where)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """sum with NaNs counted as zero, as numpy.nansum."""
    return _reduce_apply(_uf["add"], a, axis, dtype, out, keepdims, initial, where, True)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """prod with NaNs counted as one, as numpy.nanprod."""
    return _reduce_apply(_uf["multiply"], a, axis, dtype, out, keepdims, initial, where, True)


def _warn_if_nan(result, message):
    """NumPy's RuntimeWarning when a result holds a NaN (one byte downloaded)."""
    if result.dtype.kind in "fc" and result.size and bool(any(_uf["isnan"](result))):
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    return result


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Maximum ignoring NaNs (fmax.reduce), as numpy.nanmax: an all-NaN slice
    gives NaN and a RuntimeWarning."""
    result = _reduce_apply(_uf["fmax"], a, axis, None, out, keepdims, initial, where)
    return _warn_if_nan(result, "All-NaN slice encountered")


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Minimum ignoring NaNs (fmin.reduce), as numpy.nanmin."""
    result = _reduce_apply(_uf["fmin"], a, axis, None, out, keepdims, initial, where)
    return _warn_if_nan(result, "All-NaN slice encountered")


def ptp(a, axis=None, out=None, keepdims=False):
    """max - min over axis, as numpy.ptp (bool raises subtract's TypeError)."""
    return _uf["subtract"](max(a, axis, None, keepdims), min(a, axis, None, keepdims),
                           **({} if out is None else {"out": out}))


def count_nonzero(a, axis=None, *, keepdims=False):
    """The number of nonzero elements over axis (int64), as numpy.count_nonzero;
    a 0-d kiln array, not a Python int, for a full count."""
    return _core._count_nonzero(a, axis, keepdims)


# ---- mean var std and their nan-variants: arraycore/statistics.h ----
# (Note [Mean and variance] in arraycore/statistics.cpp)

def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over axis, as numpy.mean (float64 for integers; float16
    accumulates in float32). One engine pass (Note [Mean and variance])."""
    return _core._mean(a, axis, dtype, out, keepdims, where, False)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """mean of the non-NaN elements, as numpy.nanmean (NaN and a
    RuntimeWarning for an all-NaN slice)."""
    return _core._mean(a, axis, dtype, out, keepdims, where, True)


def _given(value):
    return None if value is _NO_VALUE else value


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
        correction=_NO_VALUE):
    """Variance over axis, as numpy.var: the mean of |x - x.mean()|^2 over
    (count - ddof); real for complex input. mean= gives the mean (shaped as
    with keepdims=True); correction= is ddof's array-API name."""
    return _core._var(a, axis, dtype, out, ddof, keepdims, where, _given(mean), _given(correction), False, False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
        correction=_NO_VALUE):
    """Standard deviation, sqrt(var(...)), as numpy.std."""
    return _core._var(a, axis, dtype, out, ddof, keepdims, where, _given(mean), _given(correction), True, False)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
           correction=_NO_VALUE):
    """var of the non-NaN elements, as numpy.nanvar."""
    return _core._var(a, axis, dtype, out, ddof, keepdims, where, _given(mean), _given(correction), False, True)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
           correction=_NO_VALUE):
    """std of the non-NaN elements, as numpy.nanstd."""
    return _core._var(a, axis, dtype, out, ddof, keepdims, where, _given(mean), _given(correction), True, True)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted mean over axis, as numpy.average: weights of a's shape, or 1-d
    along one axis; returned=True adds the sum of the weights. Host arrays
    are uploaded, as CuPy's average does."""
    a = _creation.asarray(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        if not returned:
            return avg
        n = a.size // avg.size if avg.size else 0
        return avg, _creation.full(avg.shape, n, dtype=avg.dtype)
    w = _creation.asarray(weights)
    result_dtype = numpy.result_type(a.dtype, w.dtype, *(["f8"] if a.dtype.kind in "biu" else []))
    if tuple(w.shape) != tuple(a.shape):
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = _reduce_axes(axis, a.ndim)
        if tuple(w.shape) != tuple(a.shape[d] for d in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        order = sorted(range(len(axes)), key=lambda k: axes[k])
        w = w.transpose(order).reshape(tuple(a.shape[d] if d in axes else 1 for d in range(a.ndim)))
        w = _core._broadcast_to(w, a.shape)
    scale = sum(w, axis, result_dtype, keepdims=keepdims)
    if bool(any(_uf["equal"](scale, 0))):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = _uf["true_divide"](sum(_uf["multiply"](a, w, dtype=result_dtype), axis, keepdims=keepdims), scale)
    if not returned:
        return avg
    return avg, scale if scale.shape == avg.shape else _core._broadcast_to(scale, avg.shape).copy()


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along a diagonal (over axis1, axis2), as numpy.trace."""
    return sum(_creation.diagonal(_operand(a), operator.index(offset), axis1, axis2), -1, dtype, out)


# ---- argmax argmin nanargmax nanargmin: arraycore/statistics.h (Note [Arg reductions]) ----

def _index_dtype(name, result, dtype, out):
    """argmax/argmin's dtype= (CuPy's, not NumPy's): the integer dtype of the
    positions, int64 by default; out= decides it when given."""
    if dtype is None:
        return result
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError("%s: dtype must be an integer dtype for the positions, got %s" % (name, dtype))
    if out is not None and out.dtype != dtype:
        raise TypeError("%s: dtype=%s does not match out's dtype %s" % (name, dtype, out.dtype))
    return result.astype(dtype, copy=False)


def argmax(a, axis=None, out=None, *, keepdims=False, dtype=None):
    """Position of the first maximum (of the first NaN, if any) over axis, or
    in the flattened array for axis=None, as numpy.argmax; dtype= (CuPy's)
    gives the positions in another integer dtype."""
    return _index_dtype("argmax", _core._arg_reduce(a, axis, out, keepdims, True, False), dtype, out)


def argmin(a, axis=None, out=None, *, keepdims=False, dtype=None):
    """Position of the first minimum (first NaN, if any), as numpy.argmin;
    dtype= as argmax's."""
    return _index_dtype("argmin", _core._arg_reduce(a, axis, out, keepdims, False, False), dtype, out)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """argmax ignoring NaNs, as numpy.nanargmax; ValueError for an all-NaN slice."""
    return _core._arg_reduce(a, axis, out, keepdims, True, True)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """argmin ignoring NaNs, as numpy.nanargmin; ValueError for an all-NaN slice."""
    return _core._arg_reduce(a, axis, out, keepdims, False, True)


# ndarray methods: NumPy 2's set (ndarray.ptp is gone there); each is the
# function above with self as `a`. sum, prod, max, min, any and all are C++
# methods of kiln.ndarray, the same call as the functions above (Note
# [Reduction calls], pyfrontend/reduction_binding.cpp).
for _fn in (argmax, argmin, mean, var, std, trace):
    setattr(ndarray, _fn.__name__, _fn)
