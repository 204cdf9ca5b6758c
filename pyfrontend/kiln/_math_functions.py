"""NumPy's functions built on the ufuncs: where, clip, nan_to_num, real, imag,
isreal, iscomplex, angle, i0, sinc, isclose, allclose, array_equal (around,
round and fix are in kiln/_rounding.py). Each is one kernel from the elementwise engine.

    kiln.where(c, x, 0.0)             # result_type(x, 0.0), Python scalars weak
    kiln.clip(a, 0, None, out=a)      # NumPy's dtype and NaN / signed-zero rules
    kiln.isclose(a, b, equal_nan=True)
    kiln.allclose(a, b)               # a Python bool, as NumPy's

Note [One kernel per function]
NumPy computes these as chains of ufunc calls with temporaries in between;
kiln writes the same chain as one kernel: _Kernel.call resolves each step's
type loop exactly as the ufunc would (_core._resolve_loop, NEP 50 weak Python
scalars included) and emits the matching kiln::ufn function on values cast
to that loop's types, so each step rounds where NumPy's does and the result
has NumPy's bits, with one launch and no temporaries.

Differences from NumPy: results are kiln arrays, 0-d where NumPy returns a
scalar (as CuPy); inputs are kiln arrays or scalars (host arrays and lists
raise TypeError, as the ufuncs do); partially overlapping ``out=`` and inputs
are not copied first.
"""
import collections
import math
import warnings

import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._creation import asarray as _asarray, full as _full
from kiln._elementwise_kernel import _CTYPES
from kiln._manipulation import broadcast_shapes

_Val = collections.namedtuple("_Val", "name dtype")   # a C++ local of `dtype`
_Weak = collections.namedtuple("_Weak", "value")      # a Python scalar, typed by each use
_SPECS = {}
_PREAMBLE = "#include <kiln/ufunc_math.h>\n"
_PYTHON_SCALARS = (bool, int, float, complex)


def _check_operand(x, what="argument"):
    if isinstance(x, (ndarray, numpy.generic)) or type(x) in _PYTHON_SCALARS:
        return x
    raise TypeError("Unsupported type %s for %s: kiln functions take kiln arrays and scalars; "
                    "move host data to the device with kiln.asarray() first" % (type(x), what))


def _dtype_of(x):
    """dtype (kiln arrays, NumPy scalars) or the Python scalar itself (weak)."""
    return x if type(x) in _PYTHON_SCALARS else x.dtype


def _real_dtype(dtype):
    return numpy.dtype(dtype).type(0).real.dtype


def _cast(text, dtype):
    return "kiln::numpy_cast<%s>(%s)" % (_CTYPES[numpy.dtype(dtype)], text)


class _Kernel:
    """One elementwise kernel written as calls of kiln::ufn functions
    (Note [One kernel per function])."""

    def __init__(self, name):
        self.name = name
        self.params, self.args, self.body = [], [], []
        self.arrays = []

    def input(self, x, dtype=None):
        """x as a value of `dtype` (default its own); Python scalars stay weak
        unless `dtype` is given."""
        _check_operand(x)
        if type(x) in _PYTHON_SCALARS and dtype is None:
            return _Weak(x)
        dtype = numpy.dtype(dtype if dtype is not None else x.dtype)
        name = "in%d" % len(self.params)
        if isinstance(x, ndarray):
            self.params.append((name, _CTYPES[dtype], _CTYPES[x.dtype], "in"))
            self.arrays.append(len(self.args))
        else:
            self.params.append((name, _CTYPES[dtype], "", "in"))
            x = numpy.asarray(x).astype(dtype)[()] if not isinstance(x, numpy.generic) \
                else x.astype(dtype)
        self.args.append(x)
        return _Val(name, dtype)

    def scalar(self, value, dtype):
        """A scalar param of `dtype` holding `value` (a NumPy conversion: a
        Python int out of range raises OverflowError)."""
        dtype = numpy.dtype(dtype)
        name = "in%d" % len(self.params)
        self.params.append((name, _CTYPES[dtype], "", "in"))
        self.args.append(dtype.type(value))
        return _Val(name, dtype)

    def expr(self, dtype, text):
        """A local of `dtype` initialised by C++ `text`."""
        dtype = numpy.dtype(dtype)
        name = "v%d" % len(self.body)
        self.body.append("const %s %s = %s;" % (_CTYPES[dtype], name, text))
        return _Val(name, dtype)

    def as_type(self, v, dtype):
        if isinstance(v, _Weak):
            return self.scalar(v.value, dtype)
        return v if v.dtype == numpy.dtype(dtype) else self.expr(dtype, _cast(v.name, dtype))

    def call(self, ufunc, *vals, out_dtype=None):
        """kiln::ufn::<ufunc> on `vals`, through the type loop the ufunc
        picks for them (its first output); with `out_dtype`, stored as the
        ufunc would store into an out= of that dtype (NumPy's casting error
        when same_kind does not allow it)."""
        ins, outs, _ = _core._resolve_loop(
            ufunc, [v.value if isinstance(v, _Weak) else v.dtype for v in vals],
            out_dtypes=None if out_dtype is None else [out_dtype])
        args = [self.as_type(v, dt).name for v, dt in zip(vals, ins)]
        r = self.expr(outs[0], "kiln::ufn::%s(%s)" % (ufunc, ", ".join(args)))
        return r if out_dtype is None else self.as_type(r, out_dtype)

    def _spec(self, params, operation):
        key = (self.name, tuple(params), operation)
        spec = _SPECS.get(key)
        if spec is None:
            spec = _SPECS[key] = _core._EwSpec(self.name, list(params), operation,
                                               preamble=_PREAMBLE, options=_core._EXACT_FP_OPTIONS)
        return spec

    def _shape(self, out=None):
        shape = broadcast_shapes(*[self.args[k].shape for k in self.arrays])
        if out is not None and out.shape != shape:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match the "
                             "broadcast shape %s" % (out.shape, shape))
        args = list(self.args)
        for k in self.arrays:
            if args[k].shape != shape:
                args[k] = _core._broadcast_to(args[k], shape)
        return shape, args

    def run(self, result, out=None, what=None):
        """Write `result` to `out` (checked as a ufunc named `what` checks
        it: same_kind casting, the broadcast shape) or to a new array."""
        shape, args = self._shape(out)
        if out is None:
            out = _core.empty(shape, result.dtype)
        elif not isinstance(out, ndarray):
            raise TypeError("out must be a kiln.ndarray, got %s" % type(out).__name__)
        elif not _core.can_cast(result.dtype, out.dtype, "same_kind"):
            raise _core._UFuncOutputCastingError(
                "Cannot cast ufunc '%s' output from %r to %r with casting rule 'same_kind'"
                % (what or self.name, result.dtype, out.dtype))
        params = self.params + [("out", _CTYPES[result.dtype], _CTYPES[out.dtype], "out")]
        spec = self._spec(params, "\n".join(self.body + ["out = %s;" % result.name]))
        if 0 not in shape:
            _core._elementwise_launch(spec, args + [out], shape)
        return out

    def run_all(self, condition):
        """Whether `condition` holds for every element (True when empty)."""
        shape, args = self._shape()
        flag = _full((1,), 1, numpy.dtype(numpy.int32))
        params = self.params + [("flag", "int", "", "raw")]
        spec = self._spec(params, "\n".join(self.body + ["if (!%s) flag[0] = 0;" % condition.name]))
        if 0 not in shape:
            _core._elementwise_launch(spec, args + [flag], shape)
        return bool(flag.get()[0])


def where(condition, x=None, y=None):
    """``x`` where ``condition`` is true, else ``y``, broadcast together; the
    dtype is result_type(x, y) (Python scalars weak; one out of range wraps,
    as NumPy's where does). ``where(condition)`` alone is kiln.nonzero's."""
    if x is None and y is None:
        from kiln._indexing import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    for v in (condition, x, y):
        _check_operand(v)
    dtype = _core.result_type(*[_dtype_of(v) for v in (x, y)])
    k = _Kernel("kiln_where")
    c = k.input(condition, numpy.bool_)
    xv, yv = k.input(x, dtype), k.input(y, dtype)
    return k.run(k.expr(dtype, "%s ? %s : %s" % (c.name, xv.name, yv.name)))


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
    _check_operand(a)
    if numpy.dtype(_dtype_of(a) if not type(a) in _PYTHON_SCALARS else "O").kind in "iu":
        info = numpy.iinfo(a.dtype)
        if type(a_min) is int and a_min <= info.min:
            a_min = None
        if type(a_max) is int and a_max >= info.max:
            a_max = None
    k = _Kernel("kiln_clip")
    if a_min is None and a_max is None:
        return k.run(k.call("positive", k.input(a)), out, "positive")
    if a_min is None:
        return k.run(k.call("minimum", k.input(a), k.input(a_max)), out, "minimum")
    if a_max is None:
        return k.run(k.call("maximum", k.input(a), k.input(a_min)), out, "maximum")
    dtype = _core.result_type(*[_dtype_of(_check_operand(v)) for v in (a, a_min, a_max)])
    # A Python int bound out of the dtype's range raises OverflowError here.
    xv, lo, hi = (k.scalar(v, dtype) if type(v) in _PYTHON_SCALARS else k.input(v, dtype)
                  for v in (a, a_min, a_max))
    scalar_bounds = all(not isinstance(v, ndarray) or v.size == 1 for v in (a_min, a_max))
    if dtype.kind == "f" and dtype.itemsize > 2 and scalar_bounds:
        # NumPy's loop for scalar bounds: a NaN bound wins (a_min's first),
        # then x's NaN; ties keep x.
        t = k.expr(dtype, "(%s < %s) ? %s : %s" % (xv.name, lo.name, lo.name, xv.name))
        r = k.expr(dtype, "(%s != %s) ? %s : ((%s != %s) ? %s : ((%s > %s) ? %s : %s))"
                   % (lo.name, lo.name, lo.name, hi.name, hi.name, hi.name,
                      t.name, hi.name, hi.name, t.name))
    elif dtype.kind == "c":
        # NumPy's complex clip: min(max(x, a_min), a_max), each keeping its
        # first operand when that has a NaN part or compares beyond the
        # bound, else taking the bound (ties too). Its order is plain
        # lexicographic (real parts, then imaginary where the real parts are
        # equal), not the comparison ufuncs' (where a NaN imaginary part
        # makes a real-part decision false): x = 1 against a_min = 0 + NaN j
        # keeps x.
        def pick(a, b, op):
            return k.expr(dtype, "(kiln::ufn::isnan({a}) || ({a}.real() == {b}.real() ? {a}.imag() {op} {b}.imag()"
                                 " : {a}.real() {op} {b}.real())) ? {a} : {b}".format(a=a.name, b=b.name, op=op))
        r = pick(pick(xv, lo, ">"), hi, "<")
    else:
        r = k.call("minimum", k.call("maximum", xv, lo), hi)
    return k.run(r, out, "clip")


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
    k = _Kernel("kiln_nan_to_num")
    xv = k.input(x)
    fills = [k.scalar(_fill_value(v, real, d), real)
             for v, d in ((nan, None), (posinf, info.max), (neginf, info.min))]

    def replaced(part):
        return k.expr(real, "kiln::ufn::isnan(%s) ? %s : (kiln::ufn::isinf(%s) ? "
                            "(kiln::ufn::signbit(%s) ? %s : %s) : %s)"
                      % (part, fills[0].name, part, part, fills[2].name, fills[1].name, part))

    if x.dtype.kind == "c":
        re, im = replaced(xv.name + ".real()"), replaced(xv.name + ".imag()")
        r = k.expr(x.dtype, "%s(%s, %s)" % (_CTYPES[x.dtype], re.name, im.name))
    else:
        r = replaced(xv.name)
    return k.run(r, None if copy else x)


def real(val):
    """The real part (a view of a complex array; the array itself otherwise)."""
    return (val if isinstance(val, ndarray) else _asarray(_check_operand(val))).real


def imag(val):
    """The imaginary part (a view of a complex array; read-only zeros otherwise)."""
    return (val if isinstance(val, ndarray) else _asarray(_check_operand(val))).imag


def isreal(x):
    """Where the imaginary part is zero (True everywhere for real dtypes)."""
    x = x if isinstance(x, ndarray) else _asarray(_check_operand(x))
    if x.dtype.kind != "c":
        return _full(x.shape, True, numpy.dtype(numpy.bool_))
    k = _Kernel("kiln_isreal")
    return k.run(k.expr(numpy.bool_, "%s.imag() == 0" % k.input(x).name))


def iscomplex(x):
    """Where the imaginary part is nonzero (False everywhere for real dtypes)."""
    x = x if isinstance(x, ndarray) else _asarray(_check_operand(x))
    if x.dtype.kind != "c":
        return _full(x.shape, False, numpy.dtype(numpy.bool_))
    k = _Kernel("kiln_iscomplex")
    return k.run(k.expr(numpy.bool_, "%s.imag() != 0" % k.input(x).name))


def angle(z, deg=False):
    """arctan2(imag, real) of each element (arctan2(0, z) for real dtypes,
    so int8 gives float16 as in NumPy); in degrees when ``deg``."""
    _check_operand(z)
    if type(z) in _PYTHON_SCALARS:
        z = numpy.asarray(z)[()]     # NumPy's angle makes every input an array
    k = _Kernel("kiln_angle")
    zv = k.input(z)
    if isinstance(zv, _Val) and zv.dtype.kind == "c":
        part = _real_dtype(zv.dtype)
        a = k.call("arctan2", k.expr(part, zv.name + ".imag()"), k.expr(part, zv.name + ".real()"))
    else:
        a = k.call("arctan2", _Weak(0), zv)
    if deg:
        a = k.call("multiply", a, _Weak(180 / math.pi))
    return k.run(a)


def i0(x):
    """The modified Bessel function of the first kind, order 0 (kiln::ufn::i0:
    within 16 ulp of NumPy, Note [i0] in kiln/ufunc_transcendental.h).
    Integer and bool inputs give float64; float16 is computed in float32 and
    rounded once (NumPy evaluates its series in float16)."""
    _check_operand(x)
    dtype = numpy.dtype(_dtype_of(x) if type(x) not in _PYTHON_SCALARS else type(x))
    if dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    out_dtype = dtype if dtype.kind == "f" else numpy.dtype(numpy.float64)
    k = _Kernel("kiln_i0")
    compute = numpy.dtype(numpy.float32) if out_dtype.itemsize == 2 else out_dtype
    xv = k.input(x, compute)
    return k.run(k.expr(out_dtype, _cast("kiln::ufn::i0(%s)" % xv.name, out_dtype)))


def sinc(x):
    """sin(pi x) / (pi x), 1 where pi x is 0, by NumPy's steps (pi x rounded
    to the result type first): kiln::ufn::sinc for real dtypes, where(y, y,
    1e-20) then sin(y) / y for complex. The sine is kiln's (within the ulp
    bounds of kiln/ufunc_transcendental.h, not bit for bit); NaN results may
    carry another sign than NumPy's."""
    _check_operand(x)
    k = _Kernel("kiln_sinc")
    xv = k.input(x)
    t = k.call("multiply", _Weak(math.pi), xv)
    if t.dtype.kind == "f":
        return k.run(k.expr(t.dtype, "kiln::ufn::sinc(%s)" % k.as_type(xv, t.dtype).name))
    y = _nonzero(k, t)
    return k.run(k.call("divide", k.call("sin", y), y))


def _nonzero(k, t):
    """where(t, t, 1e-20): NumPy's sinc guard for complex t."""
    e = k.scalar(1e-20, t.dtype)
    return k.expr(t.dtype, "(%s != %s(0)) ? %s : %s" % (t.name, _CTYPES[t.dtype], t.name, e.name))


def _isclose_value(k, a, b, rtol, atol, equal_nan):
    """NumPy's isclose steps on kernel values: |a - b| <= atol + rtol * |b|
    with b finite, or a == b; b first made inexact (result_type(b, 1.0))."""
    for v in (a, b, rtol, atol):
        _check_operand(v)
    for tol in (rtol, atol):
        if not isinstance(tol, ndarray) and not numpy.isfinite(tol):
            warnings.warn("One of rtol or atol is not valid, atol: %s, rtol: %s" % (atol, rtol),
                          RuntimeWarning, stacklevel=3)
            break
    xv = k.input(a)
    if type(b) in _PYTHON_SCALARS:
        yv = k.input(float(b) if type(b) in (bool, int) else b)
    else:
        yv = k.input(b, _core.result_type(b.dtype, 1.0))
    diff = k.call("absolute", k.call("subtract", xv, yv))
    tol = k.call("add", k.input(atol), k.call("multiply", k.input(rtol), k.call("absolute", yv)))
    r = k.expr(numpy.bool_, "(%s && %s) || %s" % (k.call("less_equal", diff, tol).name,
                                                  k.call("isfinite", yv).name,
                                                  k.call("equal", xv, yv).name))
    if equal_nan:
        r = k.expr(numpy.bool_, "%s || (%s && %s)" % (r.name, k.call("isnan", xv).name,
                                                      k.call("isnan", yv).name))
    return r


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |a - b| <= atol + rtol * |b| (b finite) or a == b, with
    NumPy's dtypes at each step; NaNs equal each other when ``equal_nan``.
    A non-finite scalar rtol/atol warns as NumPy does (array ones are not
    checked)."""
    k = _Kernel("kiln_isclose")
    return k.run(_isclose_value(k, a, b, rtol, atol, equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere, as a Python bool (as NumPy; CuPy
    returns a 0-d array): one kernel, no temporary array."""
    k = _Kernel("kiln_allclose")
    return k.run_all(_isclose_value(k, a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether a1 and a2 have one shape and equal elements (NaNs equal
    each other when ``equal_nan``), as a Python bool. Scalars count as 0-d
    arrays of NumPy's default dtypes."""
    a1, a2 = (numpy.asarray(_check_operand(v))[()] if type(v) in _PYTHON_SCALARS else v
              for v in (a1, a2))
    if numpy.shape(a1) != numpy.shape(a2):
        return False
    k = _Kernel("kiln_array_equal")
    v1, v2 = k.input(a1), k.input(a2)
    r = k.call("equal", v1, v2)
    if equal_nan and v1.dtype.kind in "fc" and v2.dtype.kind in "fc":
        r = k.expr(numpy.bool_, "%s || (%s && %s)" % (r.name, k.call("isnan", v1).name,
                                                      k.call("isnan", v2).name))
    return k.run_all(r)
