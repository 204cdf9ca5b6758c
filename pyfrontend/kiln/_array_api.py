"""The array API standard's names for what kiln has under NumPy's names
(a.__array_namespace__() is the kiln module itself).

    xp = a.__array_namespace__()
    xp.concat([a, b]); xp.permute_dims(a, (1, 0)); xp.acos(a); xp.astype(a, xp.float32)

The ufunc aliases are the very same ufunc objects (kiln.acos is
kiln.arccos), as in NumPy 2. The dtype helpers (finfo, iinfo, isdtype) are
NumPy's: kiln's dtypes are NumPy's dtypes. What the standard has and kiln
lacks (matmul, tensordot, vecdot: linear algebra; __array_namespace_info__)
is absent, not stubbed. ndarray.to_device is attached here.
"""
import operator

import numpy

from kiln import _core
from kiln import _manipulation
from kiln._ndarray_methods import _axis

_UFUNC_ALIASES = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
                  "atan2": "arctan2", "atanh": "arctanh", "bitwise_left_shift": "left_shift",
                  "bitwise_right_shift": "right_shift", "bitwise_invert": "invert", "pow": "power"}
ufunc_aliases = {alias: _core._ufuncs[name] for alias, name in _UFUNC_ALIASES.items()}

finfo, iinfo, isdtype = numpy.finfo, numpy.iinfo, numpy.isdtype


def astype(x, dtype, /, *, copy=True, device=None):
    """x cast to dtype (a new array unless copy=False and x has that dtype)."""
    return x.astype(dtype, copy=copy)


def concat(arrays, /, *, axis=0):
    """concatenate; ``axis=None`` joins the flattened arrays."""
    if axis is None:
        return _manipulation.concatenate([_manipulation.ravel(a) for a in arrays], axis=0)
    return _manipulation.concatenate(arrays, axis=axis)


def permute_dims(x, /, axes):
    """transpose with the axes given (a view)."""
    return _manipulation.transpose(x, axes)


def matrix_transpose(x, /):
    """The last two axes swapped (a view); ValueError below 2-d."""
    return x.mT


def unstack(x, /, *, axis=0):
    """The views along ``axis``, as a tuple."""
    axis = _axis(operator.index(axis), x.ndim)
    moved = _manipulation.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def to_device(self, device, /, *, stream=None):
    """The array on ``device`` (a kiln.cuda.Device or its id): itself when it
    is already there, else a copy made there (through the host)."""
    from kiln.cuda import Device
    target = device if isinstance(device, Device) else Device(operator.index(device))
    if target.id == self._device_id:
        return self
    host = self.get(stream=stream)
    with target:
        return _core._from_numpy(host)


_core.ndarray.to_device = to_device
