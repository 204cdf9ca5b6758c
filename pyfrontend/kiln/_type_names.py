"""NumPy's type names and printing helpers on the kiln module.

kiln's dtypes are NumPy's (``a.dtype`` is a ``numpy.dtype``), so the dtype
class, the scalar type hierarchy and the C-named aliases are NumPy's own
objects, as ``kiln.float32`` is ``numpy.float32``::

    kiln.dtype("f4") == kiln.float32                  # numpy.dtype
    kiln.issubdtype(a.dtype, kiln.integer)            # numpy.issubdtype
    kiln.array_repr(kiln.arange(3))                   # 'array([0, 1, 2])'

The printing functions format a host copy of the array with NumPy's
printer and honour NumPy's print options (``kiln.set_printoptions`` is
NumPy's): what prints is what ``kiln.asnumpy(a)`` would print.
"""
import numpy as _numpy

from kiln._core import ndarray

# The dtype class and the abstract scalar hierarchy (numpy.generic ...).
dtype = _numpy.dtype
generic, number, integer, signedinteger, unsignedinteger = (
    _numpy.generic, _numpy.number, _numpy.integer, _numpy.signedinteger, _numpy.unsignedinteger)
inexact, floating, complexfloating = _numpy.inexact, _numpy.floating, _numpy.complexfloating

# The C-named aliases of the sized types, as NumPy 2 defines them on this platform.
byte, short, intc, int_, long, longlong = (  # noqa: A001  (numpy.long, as NumPy names it)
    _numpy.byte, _numpy.short, _numpy.intc, _numpy.int_, _numpy.long, _numpy.longlong)
ubyte, ushort, uintc, uint, ulong, ulonglong = (
    _numpy.ubyte, _numpy.ushort, _numpy.uintc, _numpy.uint, _numpy.ulong, _numpy.ulonglong)
intp, uintp = _numpy.intp, _numpy.uintp
half, single, double = _numpy.half, _numpy.single, _numpy.double
csingle, cdouble = _numpy.csingle, _numpy.cdouble

# Type queries on dtypes and type codes: pure host logic, NumPy's.
issubdtype = _numpy.issubdtype
mintypecode = _numpy.mintypecode
typename = _numpy.typename
iterable = _numpy.iterable

# NumPy's print options are kiln's: arrays print through NumPy's printer.
get_printoptions, set_printoptions, printoptions = (
    _numpy.get_printoptions, _numpy.set_printoptions, _numpy.printoptions)


def _host(a):
    return a.get() if isinstance(a, ndarray) else a


def array2string(a, *args, **kwargs):
    """NumPy's array2string of a host copy of ``a`` (every option NumPy's)."""
    return _numpy.array2string(_host(a), *args, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's array_repr of a host copy of ``arr``: ``array([0, 1, 2])``."""
    return _numpy.array_repr(_host(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's array_str of a host copy of ``a``: ``[0 1 2]``."""
    return _numpy.array_str(_host(a), max_line_width, precision, suppress_small)


def format_float_positional(x, *args, **kwargs):
    """NumPy's format_float_positional; ``x`` may be a 0-d kiln array."""
    return _numpy.format_float_positional(_host(x), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs):
    """NumPy's format_float_scientific; ``x`` may be a 0-d kiln array."""
    return _numpy.format_float_scientific(_host(x), *args, **kwargs)
