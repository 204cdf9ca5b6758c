"""Array creation and host transfers (the rest of creation arrives with the ndarray)."""
import math
import operator

import numpy

from kiln import _core
from kiln._core import ndarray, empty, zeros


def asarray(a, dtype=None, order=None):
    """A kiln array from a kiln array (no copy when dtype matches) or host data."""
    if isinstance(a, ndarray):
        if dtype is None or numpy.dtype(dtype) == a.dtype:
            return a
        return a.astype(dtype)
    out = _core._from_numpy(a, dtype)
    if order in ("F", "f") and out.ndim > 1:
        raise NotImplementedError("Fortran-ordered uploads arrive with the ndarray copy kernel")
    return out


def array(obj, dtype=None, copy=True, order="K"):
    """A new kiln array from host data or another kiln array."""
    if isinstance(obj, ndarray):
        if copy:
            return _core._from_numpy(obj.get(), dtype)
        return asarray(obj, dtype)
    return _core._from_numpy(obj, dtype)


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """Copy a kiln array to a NumPy array (into ``out`` when given); NumPy and
    other host inputs come back through numpy.asarray.

    With ``blocking=False`` the copy is only queued on ``stream``: ``out`` (or
    the returned array) is complete once that stream is synchronized, and the
    host is free meanwhile when ``out`` is page-locked memory."""
    if isinstance(a, ndarray):
        return _core._to_numpy(a, stream, order, out, blocking)
    if out is not None:
        out[...] = a
        return out
    return numpy.asarray(a, order=order)


def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in [start, stop), as numpy.arange."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ZeroDivisionError("step of arange must not be zero")
    if dtype is None:
        dtype = numpy.result_type(start, stop, step)
    dtype = numpy.dtype(dtype)
    n = max(int(math.ceil((stop - start) / step)), 0)
    integral = all(isinstance(v, (int, numpy.integer)) for v in (start, stop, step))
    if dtype.kind in "iu" and integral:
        return _core._arange_int(operator.index(start), operator.index(step), n, dtype)
    return _core._arange_float(float(start), float(step), n, dtype)


def ascontiguousarray(a, dtype=None):
    """A C-contiguous array (ndim >= 1) with a's values; a itself when it already is one."""
    if not isinstance(a, ndarray):
        return _core._from_numpy(numpy.ascontiguousarray(a), dtype)
    if a.ndim == 0:
        a = a.reshape(1)
    target = a.dtype if dtype is None else numpy.dtype(dtype)
    if a._c_contiguous and target == a.dtype:
        return a
    return a.astype(target, order="C")
