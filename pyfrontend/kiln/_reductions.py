"""Reductions and statistics (sum ... trace), as functions and ndarray methods.

    kiln.sum(a, axis=(0, 2), keepdims=True)        # ufunc.reduce of kiln.add
    kiln.var(a, axis=1, ddof=1, where=mask)         # two engine passes: mean, squared deviations
    kiln.nanargmax(a, axis=0)                       # kiln::ValueIndex accumulator, first maximum
    a.mean(axis=-1)                                 # the same functions as ndarray methods

NumPy 2's signatures, result dtypes, NaN rules and errors. Full reductions
return 0-d kiln arrays. Every reduction runs on the reduction engine
(arraycore/reduction.h): sum, prod, min, max, any, all and the nan-variants
of the first four through ufunc.reduce's C++ call (_core._reduce_apply:
arraycore/reduce_apply.h), the others through the specs built here. Float
results differ from NumPy's only in rounding: Note [Pairwise passes] in
arraycore/reduce_apply.cpp bounds sums, and a mean is such a sum divided by
the count.
"""
import math
import operator
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._core import ndarray
from kiln._ndarray_methods import _axis
from kiln._core import _reduce_apply
from kiln._ufunc_methods import (_INCLUDE, _NO_VALUE, _check_out, _ctype, _literal, _operand, _reduce_axes,
                                 _single_out, _where_operand)

_uf = _core._ufuncs

# Device helpers of the specs below: _kiln_div (a sum over a count; 0 for an
# integer division by 0; complex as NumPy divides by complex(count, 0)), _kiln_abs2 (|d|^2), _kiln_gt (NumPy's order:
# complex numbers lexicographically, real part first).
_PREAMBLE = _INCLUDE + """
template <class T> KILN_DEVICE T _kiln_div(T v, T n) { return (T)0.5 == (T)0 && n == (T)0 ? (T)0 : v / n; }
template <class T> KILN_DEVICE kiln::complex<T> _kiln_div(kiln::complex<T> v, T n) {
  return v / kiln::complex<T>(n, (T)0);   // NumPy's complex division (an infinite part makes a NaN)
}
template <class T> KILN_DEVICE T _kiln_abs2(T d) { return d * d; }
template <class T> KILN_DEVICE T _kiln_abs2(kiln::complex<T> d) { return d.real() * d.real() + d.imag() * d.imag(); }
template <class T> KILN_DEVICE bool _kiln_gt(const T& a, const T& b) { return a > b; }
template <class T> KILN_DEVICE bool _kiln_gt(const kiln::complex<T>& a, const kiln::complex<T>& b) {
  return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
}
"""

_specs = {}   # key tuple -> _core._ReductionSpec


def _real(dtype):
    dtype = numpy.dtype(dtype)
    return numpy.dtype("f%d" % (dtype.itemsize // 2)) if dtype.kind == "c" else dtype


def _pair(dtype):
    """kiln::ValueIndex<dtype's C type> and its size (reduce_ctype, reduce_itemsize)."""
    return "kiln::ValueIndex<%s>" % _ctype(dtype), 24 if numpy.dtype(dtype) == numpy.complex128 else 16


def _spec(key, params, map_expr, reduce_expr, post, identity, acc, out_dtype, pair_of=None, fold_expr=""):
    """The cached _core._ReductionSpec of key. Every combine here commutes
    (sums, counts, the index-tie-broken arg reductions), so the engine may
    read the operands out of order for coalescing (Note [Reduction kernels])."""
    spec = _specs.get(key)
    if spec is None:
        extra = {"ordered": False, "fold_expr": fold_expr}
        if pair_of is not None:
            extra["reduce_ctype"], extra["reduce_itemsize"] = _pair(pair_of)
        spec = _core._ReductionSpec("_".join(str(k) for k in key).replace(".", "p").replace("-", "m"), params,
                                    map_expr, reduce_expr, post, identity, acc, _ctype(out_dtype),
                                    preamble=_PREAMBLE, options=_core._EXACT_FP_OPTIONS, **extra)
        _specs[key] = spec
    return spec


def _launch(spec, inputs, axes, out_dtype):
    a = inputs[0]
    out = _creation.empty(tuple(n for d, n in enumerate(a.shape) if d not in axes), out_dtype)
    _core._reduce(spec, inputs, list(axes), out)
    return out


def _shape(a, axes, keepdims):
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(a.shape))
    return tuple(n for d, n in enumerate(a.shape) if d not in axes)


def _finish(result, shape, out):
    result = result.reshape(shape)
    if out is None:
        return result
    copyto(out, result, casting="unsafe")
    return out


def _masked(map_expr, where, zero):
    return map_expr if where is True else "_where ? %s : %s" % (map_expr, zero)


def _inputs(a, where):
    return [a] if where is True else [a, _where_operand(where, a.shape)]


def _params(c, where, *more):
    return [("x", c)] + list(more) + ([] if where is True else [("_where", "bool")])


def _strict_axes(axis, ndim):
    """_reduce_axes, except that a 0-d operand has no axis 0 (NumPy's mean
    and var raise AxisError where ufunc.reduce accepts it)."""
    if ndim == 0 and axis is not None and not isinstance(axis, tuple):
        _axis(axis, 0)
    return _reduce_axes(axis, ndim)


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
    a = _operand(a)
    axes = _reduce_axes(axis, a.ndim)
    spec = _spec(("count_nonzero",), [("x", "bool")], "(long long)x", "a + b", "out = a;", "0LL",
                 numpy.int64, numpy.int64)
    return _launch(spec, [a], axes, numpy.int64).reshape(_shape(a, axes, keepdims))


# ---- mean var std and their nan-variants ----

# Note [Mean and variance]
# mean sums each output's elements with their count in one pass: the
# accumulator is a kiln::ValueIndex {sum, count}, so where= masks and skipped
# NaNs (nanmean) need no second count pass, and the division is the
# post-map. var is two passes, never E[x^2] - E[x]^2: the mean (kept
# dimensions, broadcast back over the operand), then the sum of |x - mean|^2
# with its count, divided by max(count - ddof, 0) in the post-map (std takes
# the square root there too). Both accumulate in the dtype NumPy computes
# the sum in (float64 for integers and bool, float32 for float16: Note
# [Float16 reductions]) and round once to the result dtype, so float16
# results are never less accurate than NumPy's, which rounds each step.

def _acc_dtype(a, dtype):
    """(accumulator dtype, result dtype) of mean/var for a's dtype and dtype=."""
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        return (numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype), dtype
    if a.dtype.kind in "biu":
        return numpy.dtype(numpy.float64), numpy.dtype(numpy.float64)
    if a.dtype == numpy.float16:
        return numpy.dtype(numpy.float32), a.dtype
    return a.dtype, a.dtype


def _mean(a, axes, acc, result, where, skip_nan):
    """The engine's mean of a over axes (Note [Mean and variance])."""
    skip_nan = skip_nan and a.dtype.kind in "fc"
    c = _ctype(acc)
    pair, _ = _pair(acc)
    zero = "%s{(%s)0, 0LL}" % (pair, c)
    value = "%s{x, 1LL}" % pair
    if skip_nan:
        value = "(kiln::ufn::isnan(x) ? %s : %s)" % (zero, value)
    spec = _spec(("mean", acc.name, result.name, where is not True, skip_nan), _params(c, where),
                 _masked(value, where, zero), "%s{a.value + b.value, a.index + b.index}" % pair,
                 "out = kiln::numpy_cast<%s>(_kiln_div(a.value, (%s)a.index));" % (_ctype(result), _ctype(_real(acc))),
                 zero, acc, result, pair_of=acc)
    return _launch(spec, _inputs(a, where), axes, result)


def _count(a, axes, where):
    """Elements per output (a Python int), or None when where= makes it vary."""
    if where is not True:
        return None
    return math.prod(a.shape[d] for d in axes)


def _fewest(a, axes, where):
    """The smallest count of elements per output: a Python int, from the
    shapes, or with where= a masked count on the device (one sync)."""
    n = _count(a, axes, where)
    if n is not None or math.prod(a.shape[d] for d in range(a.ndim) if d not in axes) == 0:
        return 0 if n is None else n
    return int(min(count_nonzero(_where_operand(where, a.shape), axis=axes)))


def _reduction_args(a, axis, out, keepdims, skip_nan):
    a = _operand(a)
    # NumPy's nan-functions reduce float operands with ufunc.reduce's axis rules.
    axes = (_reduce_axes if skip_nan and a.dtype.kind in "fc" else _strict_axes)(axis, a.ndim)
    out = _single_out(out, "reduce")
    shape = _shape(a, axes, keepdims)
    if out is not None:
        _check_out(_uf["add"], out, shape, keepdims, a.ndim)
    return a, axes, out, shape


def _mean_function(a, axis, dtype, out, keepdims, where, skip_nan):
    a, axes, out, shape = _reduction_args(a, axis, out, keepdims, skip_nan)
    acc, result = _acc_dtype(a, dtype)
    if _fewest(a, axes, where) == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
    r = _mean(a, axes, acc, result, where, skip_nan)
    if skip_nan and a.dtype.kind in "fc":
        _warn_if_nan(r, "Mean of empty slice")
    return _finish(r, shape, out)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over axis, as numpy.mean (float64 for integers; float16
    accumulates in float32). One engine pass (Note [Mean and variance])."""
    return _mean_function(a, axis, dtype, out, keepdims, where, False)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """mean of the non-NaN elements, as numpy.nanmean (NaN and a
    RuntimeWarning for an all-NaN slice)."""
    return _mean_function(a, axis, dtype, out, keepdims, where, True)


def _ddof(ddof, correction):
    if correction is not _NO_VALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


def _variance(a, axis, dtype, out, ddof, keepdims, where, mean_value, root, skip_nan):
    a, axes, out, shape = _reduction_args(a, axis, out, keepdims, skip_nan)
    acc, result = _acc_dtype(a, dtype)
    skip_nan = skip_nan and a.dtype.kind in "fc"
    if dtype is None or numpy.dtype(dtype).kind != "c":
        result = _real(result)   # NumPy's var is real unless dtype= asks for a complex one
    if not skip_nan and _fewest(a, axes, where) - ddof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
    if mean_value is _NO_VALUE:
        keep = tuple(1 if d in axes else s for d, s in enumerate(a.shape))
        m = _mean(a, axes, acc, acc, where, skip_nan).reshape(keep)
    else:
        m = _operand(mean_value)
    c, r = _ctype(acc), _ctype(_real(acc))
    pair, _ = _pair(_real(acc))
    zero = "%s{(%s)0, 0LL}" % (pair, r)
    value = "%s{_kiln_abs2(x - m), 1LL}" % pair
    if skip_nan:
        value = "(kiln::ufn::isnan(x) ? %s : %s)" % (zero, value)
    quotient = "a.value / (_n > (%s)0 ? _n : (%s)0)" % (r, r)
    if root:
        quotient = "kiln::ufn::sqrt(%s)" % quotient
    ddof = float(ddof)
    spec = _spec(("std" if root else "var", acc.name, result.name, where is not True, skip_nan, ddof),
                 _params(c, where, ("m", c)), _masked(value, where, zero),
                 "%s{a.value + b.value, a.index + b.index}" % pair,
                 "%s _n = (%s)a.index - (%s)%s;\nout = kiln::numpy_cast<%s>(%s);"
                 % (r, r, r, _literal(ddof, numpy.float64), _ctype(result), quotient),
                 zero, _real(acc), result, pair_of=_real(acc))
    inputs = _inputs(a, where)
    inputs.insert(1, _core._broadcast_to(m, a.shape))
    v = _launch(spec, inputs, axes, result)
    if skip_nan:
        _warn_if_nan(v, "Degrees of freedom <= 0 for slice.")
    return _finish(v, shape, out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
        correction=_NO_VALUE):
    """Variance over axis, as numpy.var: the mean of |x - x.mean()|^2 over
    (count - ddof); real for complex input. mean= gives the mean (shaped as
    with keepdims=True); correction= is ddof's array-API name."""
    return _variance(a, axis, dtype, out, _ddof(ddof, correction), keepdims, where, mean, False, False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
        correction=_NO_VALUE):
    """Standard deviation, sqrt(var(...)), as numpy.std."""
    return _variance(a, axis, dtype, out, _ddof(ddof, correction), keepdims, where, mean, True, False)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
           correction=_NO_VALUE):
    """var of the non-NaN elements, as numpy.nanvar."""
    return _variance(a, axis, dtype, out, _ddof(ddof, correction), keepdims, where, mean, False, True)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
           correction=_NO_VALUE):
    """std of the non-NaN elements, as numpy.nanstd."""
    return _variance(a, axis, dtype, out, _ddof(ddof, correction), keepdims, where, mean, True, True)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted mean over axis, as numpy.average: weights of a's shape, or 1-d
    along one axis; returned=True adds the sum of the weights."""
    a = _operand(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        if not returned:
            return avg
        n = a.size // avg.size if avg.size else 0
        return avg, _creation.full(avg.shape, n, dtype=avg.dtype)
    w = _operand(weights)
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


# ---- argmax argmin nanargmax nanargmin ----

# Note [Arg reductions]
# The accumulator is a kiln::ValueIndex {value, index}: each element maps to
# {x, _j} (`_j` its C-order position among the reduced elements, the flat
# index for axis=None), the identity has index -1, and the combine picks the
# better of a and b: a real element over the identity; a NaN over a number,
# the smaller index between two NaNs; else the greater value (lexicographic
# for complex), the smaller index between equal values. That order is total,
# so the combine commutes and the engine may read out of order (coalesced
# rows, Note [Reduction kernels]), and ties give the first position and the
# first NaN wins, as NumPy's. nanargmax maps NaNs to -inf (nanargmin: +inf), as
# NumPy does, after one pass that finds all-NaN slices (ValueError).

def _arg_fold(dtype, largest, better):
    """The combine of Note [Arg reductions] for b later than a's elements
    (Note [Reduction folds]): b wins only if strictly better, a NaN in a
    stays, a NaN in b beats a number."""
    if dtype.kind in "biu":
        return "(a.index < 0 || b.value %s a.value) ? b : a" % (">" if largest else "<")
    if dtype in (numpy.float32, numpy.float64):   # !(b <= a) is b > a or a NaN b
        return "(a.index < 0 || (a.value == a.value && !(b.value %s a.value))) ? b : a" % ("<=" if largest else ">=")
    return ("(a.index < 0 || (!kiln::ufn::isnan(a.value) && (kiln::ufn::isnan(b.value) || %s))) ? b : a" % better)


def _arg(a, axis, out, keepdims, largest, skip_nan):
    a = _operand(a)
    name = "argmax" if largest else "argmin"
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        # NumPy checks a 0-d operand's axis as a 1-d one's (its nanarg* on
        # floats as ufunc.reduce does: 0 and -1 pass).
        if a.ndim == 0 and skip_nan and a.dtype.kind in "fc":
            axes = _reduce_axes(axis, 0)
        else:
            axis = _axis(axis, a.ndim or 1)
            axes = (axis,) if a.ndim else ()
    if math.prod(a.shape[d] for d in axes) == 0:
        raise ValueError("attempt to get %s of an empty sequence" % name)
    skip_nan = skip_nan and a.dtype.kind in "fc"
    c = _ctype(a.dtype)
    pair, _ = _pair(a.dtype)
    if skip_nan:
        all_nan = _spec(("all_nan", a.dtype.name), [("x", c)], "kiln::ufn::isnan(x)", "a && b", "out = a;", "true",
                        numpy.bool_, numpy.bool_)
        if bool(any(_launch(all_nan, [a], axes, numpy.bool_))):
            raise ValueError("All-NaN slice encountered")
    value = "x"
    if skip_nan:
        value = "(kiln::ufn::isnan(x) ? %s : x)" % _literal(-numpy.inf if largest else numpy.inf, a.dtype)
    better = "_kiln_gt(b.value, a.value)" if largest else "_kiln_gt(a.value, b.value)"
    worse = "_kiln_gt(a.value, b.value)" if largest else "_kiln_gt(b.value, a.value)"
    spec = _spec((name, a.dtype.name, skip_nan), [("x", c)], "%s{%s, _j}" % (pair, value),
                 "(b.index >= 0 && (a.index < 0 || (kiln::ufn::isnan(a.value)"
                 " ? kiln::ufn::isnan(b.value) && b.index < a.index"
                 " : kiln::ufn::isnan(b.value) || %s || (!%s && b.index < a.index)))) ? b : a" % (better, worse),
                 "out = a.index;", "%s{(%s)0, -1LL}" % (pair, c), a.dtype, numpy.int64,
                 pair_of=a.dtype, fold_expr=_arg_fold(a.dtype, largest, better))
    result = _launch(spec, [a], axes, numpy.int64)
    shape = _shape(a, axes, keepdims) if axis is not None else ((1,) * a.ndim if keepdims else ())
    result = result.reshape(shape)
    out = _single_out(out, name)
    if out is None:
        return result
    if tuple(out.shape) != shape:
        raise ValueError("output array does not match result of np.%s." % name)
    if out.dtype.kind not in "iu":
        raise TypeError("Cannot cast array data from dtype('int64') to %r according to the rule 'safe'"
                        % out.dtype)
    copyto(out, result, casting="unsafe")
    return out


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Position of the first maximum (of the first NaN, if any) over axis, or
    in the flattened array for axis=None, as numpy.argmax."""
    return _arg(a, axis, out, keepdims, True, False)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Position of the first minimum (first NaN, if any), as numpy.argmin."""
    return _arg(a, axis, out, keepdims, False, False)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """argmax ignoring NaNs, as numpy.nanargmax; ValueError for an all-NaN slice."""
    return _arg(a, axis, out, keepdims, True, True)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """argmin ignoring NaNs, as numpy.nanargmin; ValueError for an all-NaN slice."""
    return _arg(a, axis, out, keepdims, False, True)


# ndarray methods: NumPy 2's set (ndarray.ptp is gone there); each is the
# function above with self as `a`. sum, prod, max, min, any and all are C++
# methods of kiln.ndarray, the same call as the functions above (Note
# [Reduction calls], pyfrontend/reduction_binding.cpp).
for _fn in (argmax, argmin, mean, var, std, trace):
    setattr(ndarray, _fn.__name__, _fn)
