"""NumPy's functions built on the ufuncs: where, clip, nan_to_num, real, imag,
isreal, iscomplex, angle, i0, sinc, isclose, allclose, array_equal (around,
round and fix are in kiln/_rounding.py). Each is one kernel from the
elementwise engine, written in C++ (arraycore/math_functions.h, Note [One
kernel per function] in arraycore/expression_kernel.h); this module keeps
the signatures, the argument shaping and NumPy's warnings.

    kiln.where(c, x, 0.0)             # result_type(x, 0.0), Python scalars weak
    kiln.clip(a, 0, None, out=a)      # NumPy's dtype and NaN / signed-zero rules
    kiln.isclose(a, b, equal_nan=True)
    kiln.allclose(a, b)               # a Python bool, as NumPy's

Differences from NumPy: results are kiln arrays, 0-d where NumPy returns a
scalar (as CuPy); inputs are kiln arrays or scalars (host arrays and lists
raise TypeError, as the ufuncs do), except isclose's and allclose's a and b,
which take any array-like as NumPy's and CuPy's do. An ``out=`` overlapping an input gets
what NumPy gives: the inputs are read as they were before the call.
"""
import warnings

import numpy

from kiln import _copyto
from kiln import _core
from kiln._core import ndarray
from kiln._creation import asarray as _asarray, full as _full
from kiln._indexing import nonzero
from kiln._predicates import isneginf, isposinf

_PYTHON_SCALARS = (bool, int, float, complex)


def _check_operand(x, what="argument"):
    if isinstance(x, (ndarray, numpy.generic)) or type(x) in _PYTHON_SCALARS:
        return x
    raise TypeError("Unsupported type %s for %s: kiln functions take kiln arrays and scalars; "
                    "move host data to the device with kiln.asarray() first" % (type(x), what))


def _real_dtype(dtype):
    return numpy.dtype(dtype).type(0).real.dtype


def _check_out(out):
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("out must be a kiln.ndarray, got %s" % type(out).__name__)
    return out


def where(condition, x=None, y=None):
    """``x`` where ``condition`` is true, else ``y``, broadcast together; the
    dtype is result_type(x, y) (Python scalars weak; a Python int out of
    its range is an OverflowError, as in NumPy 2.5). ``where(condition)`` alone is kiln.nonzero's."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    for v in (condition, x, y):
        _check_operand(v)
    return _core._where(condition, x, y)


_NO_VALUE = object()


def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE, max=_NO_VALUE):
    """``a`` limited to [a_min, a_max] (either bound None: no limit; bounds
    may be arrays, broadcast). NumPy's dtype (a Python int beyond an integer
    array's range drops that bound), its NaN propagation (a's NaN first,
    then a_min's, then a_max's) and its signed-zero ties: with both bounds
    scalars a float32/float64 tie keeps ``a``'s zero, with array bounds it
    takes the bound's, as NumPy's two loops do. Complex: lexicographic
    order, a NaN in ``a`` wins, a bound holding a NaN is taken only where
    the comparison with it fails (NumPy's loop)."""
    if a_min is _NO_VALUE and a_max is _NO_VALUE:
        a_min = None if min is _NO_VALUE else min
        a_max = None if max is _NO_VALUE else max
    elif a_min is _NO_VALUE or a_max is _NO_VALUE:
        raise TypeError("clip() missing 1 required positional argument: '%s'"
                        % ("a_min" if a_min is _NO_VALUE else "a_max"))
    elif min is not _NO_VALUE or max is not _NO_VALUE:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                         "provided is forbidden.")
    for v in (a, a_min, a_max):
        if v is not None:
            _check_operand(v)
    r = _core._clip(a, a_min, a_max, _check_out(out))
    return r if out is None else out   # the very object passed, as NumPy


def _fill_value(value, dtype, default):
    """nan_to_num's replacement `value` as `dtype` (NumPy's copyto casting)."""
    if value is None:
        value = default
    if value is None or not (type(value) in _PYTHON_SCALARS or isinstance(value, numpy.generic)):
        raise TypeError("Cannot cast scalar from dtype('O') to %r according to the rule "
                        "'same_kind'" % dtype)
    source = numpy.result_type(value, dtype) if type(value) in _PYTHON_SCALARS else value.dtype
    if not numpy.can_cast(source, dtype, "same_kind"):
        raise TypeError("Cannot cast scalar from %r to %r according to the rule 'same_kind'"
                        % (source, dtype))
    with numpy.errstate(over="ignore"):
        return numpy.asarray(value).astype(dtype)[()]


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf``
    (default: the dtype's largest and most negative finite values), in each
    part of a complex value; into ``x`` itself when ``copy=False``. Integer
    and bool arrays come back unchanged (a copy unless ``copy=False``)."""
    _check_operand(x)
    if not isinstance(x, ndarray):
        x = _asarray(x)
        copy = True
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    real = _real_dtype(x.dtype)
    info = numpy.finfo(real)
    if any(isinstance(v, (ndarray, numpy.ndarray, list, tuple)) for v in (nan, posinf, neginf)):
        # Array fills, broadcast against x: NumPy's copyto where each test holds.
        out = x.copy() if copy else x
        for part in (out.real, out.imag) if out.dtype.kind == "c" else (out,):
            tests = (_core._ufuncs["isnan"](part), isposinf(part), isneginf(part))
            for test, v, default in zip(tests, (nan, posinf, neginf), (0.0, info.max, info.min)):
                _copyto.copyto(part, default if v is None else _asarray(v), casting="same_kind", where=test)
        return out
    fills = [_fill_value(v, real, d) for v, d in ((nan, None), (posinf, info.max), (neginf, info.min))]
    r = _core._nan_to_num(x, *fills, None if copy else x)
    return r if copy else x


def real(val):
    """The real part (a view of a complex array; the array itself otherwise)."""
    return (val if isinstance(val, ndarray) else _asarray(_check_operand(val))).real


def imag(val):
    """The imaginary part (a view of a complex array; read-only zeros otherwise)."""
    return (val if isinstance(val, ndarray) else _asarray(_check_operand(val))).imag


def isreal(x):
    """Where the imaginary part is zero (True everywhere for real dtypes)."""
    x = x if isinstance(x, ndarray) else _asarray(x)   # sequences too, as NumPy and CuPy
    if x.dtype.kind != "c":
        return _full(x.shape, True, numpy.dtype(numpy.bool_))
    return _core._complex_part_test(x, False)


def iscomplex(x):
    """Where the imaginary part is nonzero (False everywhere for real dtypes)."""
    x = x if isinstance(x, ndarray) else _asarray(x)   # sequences too, as NumPy and CuPy
    if x.dtype.kind != "c":
        return _full(x.shape, False, numpy.dtype(numpy.bool_))
    return _core._complex_part_test(x, True)


def angle(z, deg=False):
    """arctan2(imag, real) of each element (arctan2(0, z) for real dtypes,
    so int8 gives float16 as in NumPy); in degrees when ``deg``."""
    _check_operand(z)
    if type(z) in _PYTHON_SCALARS:
        z = numpy.asarray(z)[()]     # NumPy's angle makes every input an array
    return _core._angle(z, bool(deg))


def i0(x):
    """The modified Bessel function of the first kind, order 0 (kiln::ufn::i0:
    within 16 ulp of NumPy, Note [i0] in kiln/ufunc_transcendental.h).
    Integer and bool inputs give float64; float16 is computed in float32 and
    rounded once (NumPy evaluates its series in float16)."""
    return _core._i0(_check_operand(x))


def sinc(x):
    """sin(pi x) / (pi x), 1 where pi x is 0, by NumPy's steps (pi x rounded
    to the result type first): kiln::ufn::sinc for real dtypes, where(y, y,
    1e-20) then sin(y) / y for complex. The sine is kiln's (within the ulp
    bounds of kiln/ufunc_transcendental.h, not bit for bit); NaN results may
    carry another sign than NumPy's."""
    return _core._sinc(_check_operand(x))


def _check_tolerances(a, b, rtol, atol):
    """a and b as kiln arrays or scalars (host arrays and sequences are
    copied to the device, as numpy.isclose and CuPy's isclose take any
    array-like), the operand checks for rtol/atol and NumPy's warning for a
    non-finite scalar one (Note [isclose] in arraycore/math_functions.cpp)."""
    a, b = (v if isinstance(v, (ndarray, numpy.generic)) or type(v) in _PYTHON_SCALARS
            else _asarray(v) for v in (a, b))
    for v in (rtol, atol):
        _check_operand(v)
    for tol in (rtol, atol):
        if not isinstance(tol, ndarray) and not numpy.isfinite(tol):
            warnings.warn("One of rtol or atol is not valid, atol: %s, rtol: %s" % (atol, rtol),
                          RuntimeWarning, stacklevel=3)
            break
    return a, b


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |a - b| <= atol + rtol * |b| (b finite) or a == b, with
    NumPy's dtypes at each step; NaNs equal each other when ``equal_nan``.
    A non-finite scalar rtol/atol warns as NumPy does (array ones are not
    checked). a and b may be host arrays or sequences (copied to the device,
    as CuPy does)."""
    a, b = _check_tolerances(a, b, rtol, atol)
    return _core._isclose(a, b, rtol, atol, bool(equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere, as a Python bool (as NumPy; CuPy
    returns a 0-d array): one kernel, no temporary array. a and b may be
    host arrays or sequences, as in isclose."""
    a, b = _check_tolerances(a, b, rtol, atol)
    return _core._allclose(a, b, rtol, atol, bool(equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether a1 and a2 have one shape and equal elements (NaNs equal
    each other when ``equal_nan``), as a Python bool. Scalars count as 0-d
    arrays of NumPy's default dtypes."""
    a1, a2 = (numpy.asarray(_check_operand(v))[()] if type(v) in _PYTHON_SCALARS else v
              for v in (a1, a2))
    if numpy.shape(a1) != numpy.shape(a2):
        return False
    return _core._array_equal(a1, a2, bool(equal_nan))


def real_if_close(a, tol=100):
    """a.real when a is complex with every imaginary part below tol (in
    machine epsilons when tol > 1), else a itself: numpy.real_if_close."""
    a = _asarray(a)
    if a.dtype.kind != "c":
        return a
    tol = numpy.finfo(a.dtype).eps * tol if tol > 1 else tol
    return a.real if bool((abs(a.imag) < tol).all()) else a
