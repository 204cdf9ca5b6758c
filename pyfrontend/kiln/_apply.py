"""Routines that call a Python function on parts of an array (numpy's
apply_along_axis, apply_over_axes, piecewise): the calls are Python's, each
on kiln arrays, and the results are assembled with kiln's own operations."""
import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._creation import zeros_like
from kiln._manipulation import _asarray, _axis, expand_dims, moveaxis, stack


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d(1-d slice, *args, **kwargs) for every 1-d slice of arr along
    axis; the results' dimensions take axis's place (numpy.apply_along_axis:
    one Python call per slice)."""
    a = _asarray(arr)
    axis = _axis(axis, a.ndim)
    moved = moveaxis(a, axis, -1)
    outer = moved.shape[:-1]
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    positions = numpy.ndindex(outer)
    first = next(positions)
    result = _asarray(func1d(moved[first], *args, **kwargs))
    out = _core.empty(outer + result.shape, result.dtype)
    out[first] = result
    for ind in positions:
        out[ind] = _asarray(func1d(moved[ind], *args, **kwargs))
    n = len(outer)
    return out.transpose(tuple(range(axis)) + tuple(range(n, out.ndim)) + tuple(range(axis, n)))


def apply_over_axes(func, a, axes):
    """func(a, axis) for each axis in turn, each result (kept at a's ndim, or
    given back the reduced axis) the next input: numpy.apply_over_axes."""
    val = _asarray(a)
    for axis in (axes,) if numpy.ndim(axes) == 0 else axes:
        axis = axis + val.ndim if axis < 0 else axis
        res = func(val, axis)
        if res.ndim != val.ndim:
            res = expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


def piecewise(x, condlist, funclist, *args, **kw):
    """An array like x holding funclist[k] (a value, or a function called on
    x[condlist[k]]) where condlist[k] holds; one more function than
    conditions covers the rest: numpy.piecewise."""
    x = _asarray(x)
    if numpy.isscalar(condlist) or (not isinstance(condlist[0], (list, ndarray, numpy.ndarray)) and x.ndim):
        condlist = [condlist]
    conds = [_asarray(c).astype(bool) for c in condlist]
    n = len(conds)
    if n == len(funclist) - 1:
        conds.append(~stack(conds).any(axis=0))
    elif n != len(funclist):
        raise ValueError("with %d condition(s), either %d or %d functions are expected" % (n, n, n + 1))
    y = zeros_like(x)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
        elif (vals := x[cond]).size:
            y[cond] = func(vals, *args, **kw)
    return y
