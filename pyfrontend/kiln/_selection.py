"""Elements picked from several arrays: by an index array (choose) or by the
first true condition (select).

    kiln.choose(a, [x, y, z], mode="clip")       # x, y or z per element, by a
    kiln.select([c0, c1], [x, y], default=0)      # x where c0, else y where c1, else 0

Each is one elementwise-engine launch over the broadcast shape, generated
for the number of choices (a switch over them). choose's mode='raise' checks
the indices on the device and reads one flag back (one sync) to raise.
"""
import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln._core import ndarray
from kiln._copyto import copyto
from kiln._ufunc_methods import _ctype, _operand, _spec

_PYTHON_SCALARS = (bool, int, float, complex)


def _choices_list(choices):
    """choices as a list of kiln arrays and scalars (a kiln array gives the
    slices along its first axis)."""
    if isinstance(choices, ndarray):
        if choices.ndim == 0:
            raise ValueError("0-d arrays can't be choices: need a sequence of arrays or an array of ndim >= 1")
        return [choices[k] for k in range(choices.shape[0])]
    return [c if isinstance(c, ndarray) or isinstance(c, _PYTHON_SCALARS) else _operand(c) for c in choices]


def _common_dtype(values):
    """NumPy's result type of kiln arrays and scalars (Python scalars weak)."""
    return numpy.result_type(*[v.dtype if isinstance(v, ndarray) else v for v in values])


def _params_and_args(values, dtype, prefix):
    """(params, args) of one engine input per value, loaded as `dtype`:
    arrays broadcast later, scalars converted as NumPy's cast does (unsafe,
    so choose([...], [int8s, 500]) wraps 500 as NumPy does)."""
    c = _ctype(dtype)
    params, args = [], []
    for k, v in enumerate(values):
        if isinstance(v, ndarray):
            params.append(("%s%d" % (prefix, k), c, _ctype(v.dtype), "in"))
            args.append(v)
        else:
            params.append(("%s%d" % (prefix, k), c, "", "in"))
            args.append(numpy.asarray(v).astype(dtype)[()])
    return params, args


def _broadcast(args, shape):
    return [_core._broadcast_to(v, shape) if isinstance(v, ndarray) else v for v in args]


def _deliver(result, out, what):
    if out is None:
        return result
    if not isinstance(out, ndarray):
        raise TypeError("%s: out must be a kiln.ndarray, got %s" % (what, type(out).__name__))
    if tuple(out.shape) != tuple(result.shape):
        raise TypeError("%s: invalid shape for output array." % what)
    copyto(out, result, casting="unsafe")
    return out


_MODES = {
    "raise": "if (j < 0 || j >= %(n)d) { atomicOr(&bad[0], 1ULL); j = 0; }",
    "wrap": "j %%= %(n)d;\nif (j < 0) j += %(n)d;",
    "clip": "j = j < 0 ? 0 : (j >= %(n)d ? %(n)d - 1 : j);",
}


def choose(a, choices, out=None, mode="raise"):
    """choices[a[...]][...] per element, as numpy.choose: a (integers) and the
    choices broadcast together; out-of-range indices raise ValueError
    (mode='raise'), wrap around (mode='wrap') or are clipped to the first
    or last choice (mode='clip'). The result has the choices' common dtype."""
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' (got %r)" % (mode,))
    a = _operand(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Cannot cast array data from %r to dtype('int64') according to the rule 'safe'" % a.dtype)
    values = _choices_list(choices)
    if not values:
        raise ValueError("0-length sequence.")
    dtype = _common_dtype(values)
    shape = _manipulation.broadcast_shapes(a.shape, *[v.shape for v in values if isinstance(v, ndarray)])
    params, args = _params_and_args(values, dtype, "c")
    n = len(values)
    result = _creation.empty(shape, dtype)
    cases = "".join("  case %d: y = c%d; break;\n" % (k, k) for k in range(n))
    operation = ("long long j = idx;\n" + _MODES[mode] % {"n": n} + "\nswitch (j) {\n" + cases + "}")
    params = [("idx", "long long", _ctype(a.dtype), "in")] + params + [("y", _ctype(dtype), "", "out")]
    args = _broadcast([a] + args + [result], shape)
    if mode == "raise":
        bad = _creation.zeros((1,), numpy.uint64)
        params.append(("bad", "unsigned long long", "", "raw"))
        args.append(bad)
    key = ("choose", mode, a.dtype.name, dtype.name) + tuple(
        v.dtype.name if isinstance(v, ndarray) else "s" for v in values)
    _core._elementwise_launch(_spec(key, params, operation), args, shape)
    if mode == "raise" and result.size and bad.get()[0]:
        raise ValueError("invalid entry in choice array")
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
    try:
        dtype = _common_dtype(values)
    except TypeError as e:
        raise TypeError("Choicelist and default value do not have a common dtype: %s" % e) from None
    for v in values[:-1]:
        # NumPy copies each choice into the result under same_kind casting, a
        # Python scalar as an array of its default dtype (so an int choice
        # cannot go into an unsigned result); the default is cast unsafely.
        v_dtype = v.dtype if isinstance(v, ndarray) else numpy.asarray(v).dtype
        if not numpy.can_cast(v_dtype, dtype, casting="same_kind"):
            raise TypeError("Cannot cast array data from %r to %r according to the rule 'same_kind'"
                            % (v_dtype, dtype))
    arrays = [v for v in conds + values if isinstance(v, ndarray)]
    shape = _manipulation.broadcast_shapes(*[v.shape for v in arrays])
    params, args = _params_and_args(values, dtype, "c")
    for k, c in enumerate(conds):
        params.append(("w%d" % k, "bool", "", "in"))
        args.append(c)
    n = len(conds)
    result = _creation.empty(shape, dtype)
    operation = "".join("%sif (w%d) y = c%d;\n" % ("else " if k else "", k, k) for k in range(n))
    operation += "else y = c%d;" % n
    params.append(("y", _ctype(dtype), "", "out"))
    args.append(result)
    key = ("select", dtype.name) + tuple(v.dtype.name if isinstance(v, ndarray) else "s" for v in values) + tuple(
        "a" if isinstance(c, ndarray) else "s" for c in conds)
    _core._elementwise_launch(_spec(key, params, operation), _broadcast(args, shape), shape)
    return result


def _choose_method(self, choices, out=None, mode="raise"):
    return choose(self, choices, out, mode)


_choose_method.__name__ = "choose"
_choose_method.__doc__ = choose.__doc__
ndarray.choose = _choose_method
