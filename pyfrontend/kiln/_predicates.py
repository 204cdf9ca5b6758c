"""Predicates on arrays and values, and the array-requirement helpers.

    kiln.array_equiv([1, 2], [[1, 2], [1, 2]])     # True: equal after broadcasting
    kiln.may_share_memory(x[:7], x[6:])            # True: the byte spans meet
    kiln.shares_memory(x[0::2], x[1::2])           # False: no byte in both
    kiln.byte_bounds(x)                            # (low, high) device addresses
    kiln.isneginf(kiln.array([-kiln.inf, 1.0]))    # array([ True, False])

The memory questions are arithmetic on shapes, strides and offsets in C++
(arraycore/memory_ranges.h); nothing is read from the device. The value
predicates compose kiln's ufuncs and reductions.
"""
import operator

import numpy

import kiln
from kiln import _core
from kiln._core import ndarray


def array_equiv(a1, a2):
    """Whether a1 and a2 broadcast to one shape and are equal there, as a
    Python bool (False when they do not broadcast)."""
    a1, a2 = kiln.asarray(a1), kiln.asarray(a2)
    try:
        a1, a2 = kiln.broadcast_arrays(a1, a2)
    except ValueError:
        return False
    return _core._array_equal(a1, a2, False)


def _max_work(max_work, default):
    if max_work is None:
        return default
    return operator.index(max_work)


def _memory_question(a, b, max_work, name):
    if not isinstance(a, ndarray) or not isinstance(b, ndarray):
        if isinstance(a, ndarray) or isinstance(b, ndarray):
            return False   # a kiln array never shares memory with a host object
        return getattr(numpy, name)(a, b, max_work=max_work)
    if max_work == 0 and name == "may_share_memory":   # numpy.MAY_SHARE_BOUNDS
        return _core._may_share_memory(a, b)
    return _core._shares_memory(a, b, max_work)


def may_share_memory(a, b, /, max_work=None):
    """Whether a and b might share memory: their byte spans in one allocation
    meet (``max_work=None`` or 0); ``max_work=-1`` answers exactly, as
    :func:`shares_memory`."""
    return _memory_question(a, b, _max_work(max_work, 0), "may_share_memory")


def shares_memory(a, b, /, max_work=None):
    """Whether some byte belongs to an element of both a and b, exactly
    (``max_work=None`` or -1). A bound ``max_work >= 0`` raises
    ``numpy.exceptions.TooHardError`` when the answer needs more work than
    that (kiln counts the elements it compares, NumPy its solver's steps;
    both answer at no work when the spans are apart or a view is contiguous)."""
    return _memory_question(a, b, _max_work(max_work, -1), "shares_memory")


def byte_bounds(a):
    """(low, high): the device addresses of the first byte ``a`` spans and
    one past its last, as integers; (p, p) for an empty array."""
    if not isinstance(a, ndarray):
        return numpy.lib.array_utils.byte_bounds(a)
    return tuple(_core._byte_bounds(a))


def isscalar(element):
    """Whether ``element`` is a scalar: a NumPy scalar, or a Python number,
    string or bytes (never an array, kiln's 0-d arrays included)."""
    return numpy.isscalar(element)


def _scalar_type(x):
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, numpy.dtype):
        return dtype.type
    return numpy.asarray(x).dtype.type


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (or holds complex values, for a
    list or scalar), whatever its values."""
    return issubclass(_scalar_type(x), numpy.complexfloating)


def isrealobj(x):
    """Whether ``x`` has no complex dtype, whatever its values."""
    return not iscomplexobj(x)


def isfortran(a):
    """Whether ``a`` is Fortran-contiguous and not also C-contiguous."""
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)


def _sign_and_inf(x):
    x = kiln.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("This operation is not supported for %s values because it would be ambiguous."
                        % x.dtype)
    return kiln.isinf(x), kiln.signbit(x)


def isneginf(x, out=None):
    """Element-wise: x is negative infinity (a bool array, or out=)."""
    is_inf, negative = _sign_and_inf(x)
    return kiln.logical_and(is_inf, negative, out=out)


def isposinf(x, out=None):
    """Element-wise: x is positive infinity (a bool array, or out=)."""
    is_inf, negative = _sign_and_inf(x)
    return kiln.logical_and(is_inf, kiln.logical_not(negative), out=out)


def asarray_chkfinite(a, dtype=None, order=None):
    """kiln.asarray(a, dtype, order), raising ValueError when a floating or
    complex result holds an infinity or a NaN."""
    a = kiln.asarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not bool(kiln.isfinite(a).all()):
        raise ValueError("array must not contain infs or NaNs")
    return a


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
                 "FORTRAN": "F", "O": "OWNDATA", "OWNDATA": "OWNDATA"}


def require(a, dtype=None, requirements=None):
    """An array of ``dtype`` meeting ``requirements`` ('C'/'C_CONTIGUOUS',
    'F'/'F_CONTIGUOUS', 'O'/'OWNDATA'), copying only when ``a`` does not.
    As CuPy's: 'A', 'W' and 'E' are not accepted (ValueError), nor is a
    dtype that cannot be understood (ValueError, where NumPy raises TypeError)."""
    try:
        dtype = None if dtype is None else numpy.dtype(dtype)
    except TypeError:
        raise ValueError('Incorrect dtype "%s" provided' % (dtype,)) from None
    if not requirements:
        return kiln.asanyarray(a, dtype=dtype)
    wanted = set()
    for flag in requirements:
        if flag.upper() not in _REQUIREMENTS:
            raise ValueError('Incorrect flag "%s" in requirements' % flag)
        wanted.add(_REQUIREMENTS[flag.upper()])
    if {"C", "F"} <= wanted:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "C" if "C" in wanted else "F" if "F" in wanted else "A"
    arr = kiln.array(a, dtype=dtype, copy=None, order=order)
    if "OWNDATA" in wanted and not arr.flags.owndata:
        arr = arr.copy(order="F" if order == "F" else "C")
    return arr
