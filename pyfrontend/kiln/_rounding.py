"""around/round and fix, NumPy's algorithms in one kernel each, and the
ndarray methods round, clip, conj and conjugate (attached on import).

    kiln.around(a, 2)          # rint(a * 100) / 100 in a's dtype, as NumPy
    kiln.round(a, -1)          # integers: rint(a / 10) * 10 in float64, cast back
    a.round(1, out=b); a.clip(0, 1); a.conj()

NumPy's rounding steps (Note [NumPy's rounding]) run as one kernel written
in C++ (arraycore/math_functions.h); this module keeps the signatures, the
argument checks and the paths that are a copy or a single rint.
"""
import operator

from kiln import _core
from kiln import _math_functions as _mf
from kiln._core import ndarray
from kiln._creation import asarray as _asarray


def around(a, decimals=0, out=None):
    """Round to ``decimals`` places (negative: left of the point), halves to
    even; NumPy's algorithm and results bit for bit (Note [NumPy's
    rounding]). bool arrays raise TypeError unless ``out`` is a float array,
    as in NumPy."""
    decimals = operator.index(decimals)
    _mf._check_operand(a)
    if not isinstance(a, ndarray):
        a = _asarray(a)
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("out must be a kiln.ndarray, got %s" % type(out).__name__)
    if a.dtype.kind in "iu" and decimals >= 0 and out is None:
        return a.copy()
    if decimals == 0 and a.dtype.kind not in "iu":
        r = _core._ufuncs["rint"](a, out=out)
        return r if out is None else out
    r = _core._around(a, decimals, out)
    return r if out is None else out   # the very object passed, as NumPy


round = around


def fix(x, out=None):
    """Round toward zero: kiln.trunc, as NumPy 2's fix (integers stay
    integers)."""
    return _core._ufuncs["trunc"](x, out=out)


def _round_method(self, decimals=0, out=None):
    """a.round(decimals=0, out=None): kiln.around."""
    return around(self, decimals, out)


def _clip_method(self, min=None, max=None, out=None, **kwargs):
    """a.clip(min=None, max=None, out=None): kiln.clip."""
    if kwargs:
        raise TypeError("clip() got unexpected keyword arguments %s" % sorted(kwargs))
    return _mf.clip(self, min, max, out)


def _conjugate_method(self):
    """The complex conjugate (a copy); a real or bool array is returned
    itself, as NumPy's method does."""
    return _core._ufuncs["conjugate"](self) if self.dtype.kind == "c" else self


ndarray.round = _round_method
ndarray.clip = _clip_method
ndarray.conj = _conjugate_method
ndarray.conjugate = _conjugate_method
