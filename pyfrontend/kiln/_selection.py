"""Elements picked from several arrays: by an index array (choose) or by the
first true condition (select).

    kiln.choose(a, [x, y, z], mode="clip")       # x, y or z per element, by a
    kiln.select([c0, c1], [x, y], default=0)      # x where c0, else y where c1, else 0

Each is one C++ call (arraycore/selection.h, Note [Selection kernels]): one
elementwise-engine launch over the broadcast shape. choose's mode='raise'
checks the indices on the device and reads one flag back (one sync) to raise.
"""
import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._copyto import copyto
from kiln._ufunc_methods import _operand

_PYTHON_SCALARS = (bool, int, float, complex)


def _choices_list(choices):
    """choices as a list of kiln arrays and scalars (a kiln array gives the
    slices along its first axis)."""
    if isinstance(choices, ndarray):
        if choices.ndim == 0:
            raise ValueError("0-d arrays can't be choices: need a sequence of arrays or an array of ndim >= 1")
        return [choices[k] for k in range(choices.shape[0])]
    return [c if isinstance(c, ndarray) or isinstance(c, _PYTHON_SCALARS) else _operand(c) for c in choices]


def _deliver(result, out, what):
    if out is None:
        return result
    if not isinstance(out, ndarray):
        raise TypeError("%s: out must be a kiln.ndarray, got %s" % (what, type(out).__name__))
    if tuple(out.shape) != tuple(result.shape):
        raise TypeError("%s: invalid shape for output array." % what)
    copyto(out, result, casting="unsafe")
    return out


_MODES = ("raise", "wrap", "clip")


def choose(a, choices, out=None, mode="raise"):
    """choices[a[...]][...] per element, as numpy.choose: a (integers) and the
    choices broadcast together; out-of-range indices raise ValueError
    (mode='raise'), wrap around (mode='wrap') or are clipped to the first
    or last choice (mode='clip'). The result has the choices' common dtype."""
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' (got %r)" % (mode,))
    result = _core._choose(_operand(a), _choices_list(choices), mode)
    return _deliver(result, out, "choose")


def _condition(c, k):
    if isinstance(c, (bool, numpy.bool_)):
        return numpy.bool_(c)
    if not isinstance(c, ndarray) or c.dtype != numpy.bool_:
        raise TypeError("invalid entry %d in condlist: should be boolean ndarray" % k)
    return c


def select(condlist, choicelist, default=0):
    """Per element, choicelist[k] for the first k whose condlist[k] holds,
    else default, as numpy.select (conditions bool arrays, all broadcast
    together; result in the common dtype of the choices and default)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [_condition(c, k) for k, c in enumerate(condlist)]
    values = [c if isinstance(c, ndarray) or isinstance(c, _PYTHON_SCALARS) else _operand(c)
              for c in list(choicelist) + [default]]
    return _core._select(conds, values)


def _choose_method(self, choices, out=None, mode="raise"):
    return choose(self, choices, out, mode)


_choose_method.__name__ = "choose"
_choose_method.__doc__ = choose.__doc__
ndarray.choose = _choose_method
