"""kiln.fuse: a chain of elementwise ufunc calls compiled into one kernel,
with an optional final reduction (docs/fusion.md).

    @kiln.fuse()
    def softplus(x):
        return kiln.maximum(0, x) + kiln.log1p(kiln.exp(-kiln.abs(x)))

    y = softplus(kiln.asarray(numpy.random.randn(1000).astype(numpy.float32)))   # one kernel
    total = kiln.fuse(lambda x, y: ((x - y) ** 2).sum())(a, b)                  # + a reduction

A call looks up a plan by the arguments' kinds (Note [Fusion plans]); the
first call of a kind traces the function with proxy values (_Var), which
record every ufunc call and operator as a statement calling the loop's
kiln::ufn function on locals of the loop's types (Note [Tracing ufunc calls],
Note [Same values as the eager chain]); the statements become one spec of the
elementwise engine (arraycore/elementwise.h).
"""
import functools
import operator
import re
import threading

import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._creation import ones
from kiln._elementwise_kernel import _CTYPES
from kiln._manipulation import broadcast_shapes

_WEAK_TYPES = (bool, int, float, complex)
_REDUCTIONS = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}
# Elements one thread of a reduction pass combines (Note [Fused reductions]).
_CHUNK = 256


def fuse(*args, **kwargs):
    """Decorator that fuses a function into one elementwise kernel (plus a
    final reduction), as CuPy's ``cupy.fuse``: ``kiln.fuse(f)``,
    ``@kiln.fuse()`` or ``@kiln.fuse(kernel_name='name')``.

    The function may call kiln ufuncs (``kiln.add(x, y)``, ``kiln.exp(x)``,
    ``dtype=``/``casting=`` included), use operators on its arguments and
    Python or NumPy scalars, return one value or a tuple, and end with
    ``.sum()``, ``.prod()``, ``.max()`` or ``.min()`` (``axis=``,
    ``keepdims=``, and ``dtype=`` for sum/prod). Results have the dtypes and
    values of the same calls made one by one. Calls without any kiln array
    run the function as it is. Differs from CuPy: lambdas work; see
    docs/fusion.md for what cannot be fused.
    """
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return Fusion(args[0])
    if args:
        raise TypeError("kiln.fuse takes a function, or keyword arguments only (kernel_name=)")
    unknown = set(kwargs) - {"kernel_name"}
    if unknown:
        raise TypeError("kiln.fuse() got an unexpected keyword argument %r" % sorted(unknown)[0])
    kernel_name = kwargs.get("kernel_name")
    _check_kernel_name(kernel_name)
    return lambda fn: Fusion(fn, kernel_name)


def _check_kernel_name(kernel_name):
    if kernel_name is not None and (not isinstance(kernel_name, str) or not kernel_name.isidentifier()
                                    or not kernel_name.isascii()):
        raise ValueError("Invalid kernel name: %r (it must be a C++ identifier)" % (kernel_name,))


class Fusion:
    """A fused function (what ``kiln.fuse`` returns); calling it runs the
    fused kernel. Plans and kernels are cached per argument kinds."""

    def __init__(self, fn, kernel_name=None):
        _check_kernel_name(kernel_name)
        if kernel_name is None:
            kernel_name = "fused_" + (re.sub(r"\W", "", getattr(fn, "__name__", "")) or "function")
        self._fn = fn
        self.kernel_name = kernel_name
        self._plans = {}
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return "<kiln.fuse %s>" % self.kernel_name

    # Note [Fusion plans]
    # What a call does depends only on each argument's kind: a kiln array's
    # dtype, ndim and whether it is Fortran- (and not C-) contiguous (output
    # order, as eager ufuncs choose it), or a scalar's type. That tuple keys
    # self._plans; a warm call builds it, runs the plan's host scalar code,
    # broadcasts, allocates and launches. Python operators between Python
    # scalars run on the host at each call (their result type can depend on
    # values: 2 ** -1 is a float), so the types they gave at tracing are
    # checked and a mismatch traces again under a longer key.
    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("%s: fused functions take positional arguments only" % self.kernel_name)
        key = []
        for a in args:
            if type(a) is ndarray:
                nd = a.ndim
                key.append((a.dtype, nd, nd > 1 and not a._c_contiguous and a._f_contiguous))
            else:
                key.append(type(a))
        key = tuple(key)
        plan = self._plans.get(key)
        if plan is None:
            if not any(type(a) is ndarray for a in args):
                return self._fn(*args)
            plan = self._plans[key] = _trace(self, args)
        host = plan.host_values(args)
        if host is not None and plan.host_types != tuple(map(type, host)):
            key = (key, tuple(map(type, host)))
            plan = self._plans.get(key)
            if plan is None:
                plan = self._plans[key] = _trace(self, args)
        return plan.run(args, host)


class _FusionError(TypeError):
    pass


def _cannot(what):
    tracer = getattr(_tracing, "tracer", None)
    if tracer is None:
        raise _FusionError("kiln.fuse: a traced value is used outside its fused function (%s)" % what)
    raise _FusionError("kiln.fuse: cannot fuse %r: %s" % (tracer.fusion.kernel_name, what))


# Note [Tracing ufunc calls]
# kiln ufuncs are C++ objects that take only arrays and scalars. While a
# function is traced, every ufunc call (on every thread) goes to
# _tracing_call through the C++ call hook (Note [ufunc call hook] in
# ufunc_binding.cpp), which records the call when the calling thread is
# tracing and an input is a proxy or every input is a scalar, and otherwise
# calls the real ufunc. The hook is removed when the last trace ends; outside
# tracing, ufunc calls never see this module.
_tracing = threading.local()
_tracing.tracer = None
_swap_lock = threading.Lock()
_swap_depth = 0
_ufunc_call = _core.ufunc.__call__


def _tracing_call(uf, *args, **kwargs):
    tracer = getattr(_tracing, "tracer", None)
    if tracer is not None and (any(isinstance(a, _Var) for a in args)
                               or not any(isinstance(a, ndarray) for a in args)):
        if len(args) != uf.nin:
            _cannot("%s() is given %d positional arguments: ufunc outputs (out=) can't be fused"
                    % (uf.__name__, len(args)))
        for k in kwargs:
            if k not in ("dtype", "casting"):
                _cannot("%s(..., %s=) can't be fused (only dtype= and casting= can)" % (uf.__name__, k))
        return tracer.ufunc(uf.__name__, args, kwargs.get("dtype"), kwargs.get("casting", "same_kind"))
    return _ufunc_call(uf, *args, **kwargs)


def _swap_ufunc_call(on):
    global _swap_depth
    with _swap_lock:
        _swap_depth += 1 if on else -1
        _core._set_ufunc_call_hook(_tracing_call if _swap_depth else None)


@functools.lru_cache(maxsize=None)
def _ufunc_row(name):
    return _core._ufunc_info(name)


class _Var:
    """A traced value. Arrays and ufunc results live in the kernel: `expr` is
    a C++ local, param or literal of `dtype`. Scalar arguments and Python
    operators on scalars live on the host (Note [Host scalars]): `ref` says
    where (("arg", k) or ("host", j)), `value` is the value seen while
    tracing, and `weak` the Python type of a Python scalar (dtype None); a
    NumPy scalar has its dtype and, once the kernel reads it, an `expr`."""

    __array_ufunc__ = None   # NumPy defers to the reflected operators

    def __init__(self, dtype=None, expr=None, ndim=0, leaves=frozenset(), fonly=False,
                 ref=None, weak=None, value=None):
        self.dtype, self.expr, self.ndim, self.leaves, self.fonly = dtype, expr, ndim, leaves, fonly
        self.ref, self.weak, self.value = ref, weak, value

    @property
    def shape(self):
        _cannot("the shape of a traced value is not known while tracing (only dtype and ndim are)")

    def __bool__(self):
        _cannot("the truth value of a traced value is used (if, while, and, or, not, or a chained "
                "comparison); use arithmetic or kiln.maximum/minimum instead")

    def _convert(self, *a):
        _cannot("a traced value is converted to a Python number (int(), float(), an index)")

    __int__ = __float__ = __complex__ = __index__ = _convert

    def __len__(self):
        _cannot("len() of a traced value")

    def __iter__(self):
        _cannot("iteration over a traced value")

    def __getitem__(self, key):
        _cannot("indexing a traced value")

    def __setitem__(self, key, value):
        _cannot("assignment into a traced value")

    def __array__(self, *a, **k):
        _cannot("a traced value is converted to a NumPy array")

    def astype(self, dtype, copy=True):
        if self.dtype is None:
            _cannot("astype of a Python scalar")
        if self.ref is not None:
            return _tracing.tracer.host(lambda v: v.astype(dtype), (self,))
        return _tracing.tracer.cast(self, numpy.dtype(dtype))

    def _reduce(self, method, axis, dtype, out, keepdims):
        if out is not None:
            _cannot("%s(out=) (a fused reduction allocates its result)" % method)
        if self.ref is not None:
            _cannot("%s() of a scalar" % method)
        return _Reduced(self, method, axis, dtype, keepdims)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("sum", axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("prod", axis, dtype, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return self._reduce("max", axis, None, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return self._reduce("min", axis, None, out, keepdims)


def _binary(ufunc_name, host_op):
    def op(self, other):
        return _tracing.tracer.binary(ufunc_name, host_op, self, other, False)

    def rop(self, other):
        return _tracing.tracer.binary(ufunc_name, host_op, self, other, True)

    def iop(self, other):
        return _tracing.tracer.inplace(ufunc_name, host_op, self, other)
    return op, rop, iop


for _name, _uf, _host in [
        ("add", "add", operator.add), ("sub", "subtract", operator.sub),
        ("mul", "multiply", operator.mul), ("truediv", "divide", operator.truediv),
        ("floordiv", "floor_divide", operator.floordiv), ("mod", "remainder", operator.mod),
        ("pow", "power", operator.pow), ("lshift", "left_shift", operator.lshift),
        ("rshift", "right_shift", operator.rshift), ("and", "bitwise_and", operator.and_),
        ("or", "bitwise_or", operator.or_), ("xor", "bitwise_xor", operator.xor)]:
    _op, _rop, _iop = _binary(_uf, _host)
    setattr(_Var, "__%s__" % _name, _op)
    setattr(_Var, "__r%s__" % _name, _rop)
    setattr(_Var, "__i%s__" % _name, _iop)
for _name, _uf, _host in [("lt", "less", operator.lt), ("le", "less_equal", operator.le),
                          ("gt", "greater", operator.gt), ("ge", "greater_equal", operator.ge),
                          ("eq", "equal", operator.eq), ("ne", "not_equal", operator.ne)]:
    setattr(_Var, "__%s__" % _name, _binary(_uf, _host)[0])
for _name, _uf, _host in [("neg", "negative", operator.neg), ("pos", "positive", operator.pos),
                          ("abs", "absolute", operator.abs), ("invert", "invert", operator.invert)]:
    setattr(_Var, "__%s__" % _name, functools.partialmethod(
        lambda self, uf, host: _tracing.tracer.unary(uf, host, self), _uf, _host))
_Var.__divmod__ = lambda self, other: _tracing.tracer.divmod(self, other)
_Var.__rdivmod__ = lambda self, other: _tracing.tracer.divmod(other, self)
_Var.__hash__ = object.__hash__


class _Reduced:
    """A final reduction of a traced value: it can only be returned."""

    def __init__(self, var, method, axis, dtype, keepdims):
        ndim = var.ndim
        if axis is None:
            axes = tuple(range(ndim))
        else:
            axes = []
            for a in (axis if isinstance(axis, tuple) else (axis,)):
                a = operator.index(a)
                if not -ndim <= a < ndim:
                    raise numpy.exceptions.AxisError(a, ndim)
                axes.append(a % ndim)
            if len(set(axes)) != len(axes):
                raise ValueError("duplicate value in 'axis'")
            axes = tuple(sorted(axes))
        src = var.dtype
        if dtype is not None:
            result = numpy.dtype(dtype)
        elif method in ("sum", "prod") and src.kind in "biu" and src.itemsize < 8:
            result = numpy.dtype(numpy.uint64 if src.kind == "u" else numpy.int64)
        else:
            result = src
        if result not in _CTYPES:
            raise TypeError("kiln.fuse: %s(dtype=%s): kiln does not support that dtype" % (method, result))
        # Note [Fused reductions]: float16 sums accumulate in float32, as NumPy's do.
        acc = numpy.dtype(numpy.float32) if method == "sum" and result == numpy.float16 else result
        self.var, self.method, self.axes, self.keepdims = var, method, axes, keepdims
        self.result, self.acc = result, acc

    def _used(self, *a, **k):
        _cannot("the result of %s() is used inside the function; only a final reduction, returned "
                "as it is, can be fused" % self.method)

    def __bool__(self):
        self._used()


for _name in ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and",
              "or", "xor"]:
    for _form in ("__%s__", "__r%s__", "__i%s__"):
        setattr(_Reduced, _form % _name, _Reduced._used)
for _name in ["lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert", "float", "int",
              "index", "getitem", "array"]:
    setattr(_Reduced, "__%s__" % _name, _Reduced._used)
_Reduced.__array_ufunc__ = None
_Reduced.__hash__ = object.__hash__


def _int_literal(ctype, v):
    if v == -2 ** 63:
        return "(%s)(-9223372036854775807LL - 1)" % ctype
    return "(%s)%d%s" % (ctype, v, "ULL" if v >= 2 ** 63 else "LL")


def _cast(expr, frm, to):
    return expr if frm == to else "kiln::numpy_cast<%s>(%s)" % (_CTYPES[to], expr)


class _Tracer:
    """Records one trace: kernel params (arrays "a<k>", NumPy scalar
    arguments "s<k>", converted Python scalars "w<j>", float and complex
    constants "c<j>"), statements defining locals "t<n>", and host operations
    on Python scalars."""

    def __init__(self, fusion, args):
        self.fusion = fusion
        self.params = []        # (name, ctype, source): source ("a"|"s", k) or ("w"|"c", j)
        self.weak_params = {}   # (ref, weak dtype, loop dtype) -> j
        self.consts = []        # NumPy scalars passed as "c<j>"
        self.stmts = []         # (defined names, used names, C++ text)
        self.host_ops = []      # (function, operand refs)
        self.host_types = []
        self.ntemps = 0
        self.proxies = []
        for k, a in enumerate(args):
            if type(a) is ndarray:
                nd = a.ndim
                name = "a%d" % k
                self.params.append((name, _CTYPES[a.dtype], ("a", k)))
                self.proxies.append(_Var(a.dtype, name, nd, frozenset([k]),
                                         nd > 1 and not a._c_contiguous and a._f_contiguous))
            elif type(a) in _WEAK_TYPES:
                self.proxies.append(_Var(ref=("arg", k), weak=type(a), value=a))
            elif isinstance(a, numpy.generic) and a.dtype in _CTYPES:
                self.proxies.append(_Var(a.dtype, ref=("arg", k), value=a))
            elif isinstance(a, numpy.ndarray):
                raise TypeError("%s: argument %d is a NumPy array, which lives on the host; move it "
                                "to the device with kiln.asarray first" % (fusion.kernel_name, k))
            else:
                raise TypeError("%s: argument %d has unsupported type %s (expected kiln.ndarray or a "
                                "scalar)" % (fusion.kernel_name, k, type(a).__name__))

    def temp(self):
        self.ntemps += 1
        return "t%d" % (self.ntemps - 1)

    def _operand(self, x):
        """(what _resolve_loop takes for x, x as a _Var or a constant)."""
        if isinstance(x, _Var):
            return (x.dtype if x.dtype is not None else x.weak), x
        if type(x) in _WEAK_TYPES:
            return type(x), x
        if isinstance(x, numpy.generic) and x.dtype in _CTYPES:
            return x.dtype, x
        if isinstance(x, ndarray):
            _cannot("a kiln array that is not an argument (a global or closure variable) is used; "
                    "pass it as an argument of the fused function")
        if isinstance(x, _Reduced):
            x._used()
        if isinstance(x, numpy.ndarray):
            _cannot("a NumPy array is used; kiln kernels read device arrays (kiln.asarray)")
        _cannot("an operand of type %s is used" % type(x).__name__)

    def code(self, x, weak_dtype, to):
        """C++ expression for operand x as the loop's input dtype `to`, and
        the names it reads."""
        if isinstance(x, _Var) and x.dtype is not None:
            self.kernel_expr(x)
            return _cast(x.expr, x.dtype, to), {x.expr}
        if isinstance(x, _Var):
            key = (x.ref, weak_dtype, to)
            if key not in self.weak_params:
                self.weak_params[key] = len(self.weak_params)
                self.params.append(("w%d" % self.weak_params[key], _CTYPES[to],
                                    ("w", self.weak_params[key])))
            name = "w%d" % self.weak_params[key]
            return name, {name}
        # Note [Same values as the eager chain]: a constant takes the dtype
        # NEP 50 gives it (OverflowError when a Python int does not fit), then
        # the loop's input dtype, as the eager ufunc converts it.
        v = weak_dtype.type(x) if type(x) in _WEAK_TYPES else x
        v = v.astype(to)
        if to.kind == "b":
            return ("true" if v else "false"), set()
        if to.kind in "iu":
            return _int_literal(_CTYPES[to], int(v)), set()
        name = "c%d" % len(self.consts)
        self.consts.append(v)
        self.params.append((name, _CTYPES[to], ("c", len(self.consts) - 1)))
        return name, {name}

    def kernel_expr(self, x):
        """x.expr, made a kernel param ("s<k>" or "h<j>") for a NumPy scalar
        the first time the kernel reads it."""
        if x.expr is None:
            kind, k = x.ref
            x.expr = "%s%d" % ("s" if kind == "arg" else "h", k)
            self.params.append((x.expr, _CTYPES[x.dtype], (x.expr[0], k)))
        return x.expr

    def strong_result(self, inputs, dtype, expr):
        vs = [x for x in inputs if isinstance(x, _Var)]
        leaves = frozenset().union(*[x.leaves for x in vs])
        ndim = max([x.ndim for x in vs], default=0)
        orders = [x.fonly for x in vs if x.dtype is not None and x.ndim > 1]
        return _Var(dtype, expr, ndim, leaves, bool(orders) and all(orders))

    def ufunc(self, name, inputs, dtype=None, casting="same_kind", out_dtypes=None):
        ops, xs = zip(*[self._operand(x) for x in inputs]) if inputs else ((), ())
        loop_in, loop_out, weak = _core._resolve_loop(name, list(ops), dtype, casting, out_dtypes)
        row = _ufunc_row(name)
        constant = self._constant_comparison(row, xs, loop_in, weak)
        if constant is not None:
            return self.strong_result(xs, numpy.dtype(numpy.bool_), constant)
        args, uses = [], set()
        for x, w, to in zip(xs, weak, loop_in):
            c, u = self.code(x, w, to)
            args.append(c)
            uses |= u
        names = [self.temp() for _ in loop_out]
        fn = row["device_fn"]
        if len(names) == 1:
            text = "const %s %s = %s(%s);" % (_CTYPES[loop_out[0]], names[0], fn, ", ".join(args))
        else:
            text = "".join("%s %s; " % (_CTYPES[d], n) for d, n in zip(loop_out, names))
            text += "%s(%s);" % (fn, ", ".join(args + names))
        self.stmts.append((set(names), uses, text))
        results = tuple(self.strong_result(xs, d, n) for d, n in zip(loop_out, names))
        return results[0] if len(results) == 1 else results

    @staticmethod
    def _constant_comparison(row, xs, loop_in, weak):
        """'true'/'false' when a comparison meets a Python int constant its
        integer dtype cannot hold: NumPy's result is then one value."""
        if row["resolver"] != "comparison":
            return None
        for x, w in zip(xs, weak):
            if type(x) is int and w.kind in "iu":
                info = numpy.iinfo(w)
                if not info.min <= x <= info.max:
                    probe = [numpy.zeros((), d) if y is not x else x for y, d in zip(xs, loop_in)]
                    return "true" if getattr(numpy, row["name"])(*probe) else "false"
        return None

    def host(self, fn, operands):
        refs, values = [], []
        for x in operands:
            if isinstance(x, _Var):
                refs.append(x.ref)
                values.append(x.value)
            else:
                refs.append(("const", x))
                values.append(x)
        value = fn(*values)
        ref = ("host", len(self.host_ops))
        self.host_ops.append((fn, tuple(refs)))
        self.host_types.append(type(value))
        if type(value) in _WEAK_TYPES:
            return _Var(ref=ref, weak=type(value), value=value)
        if isinstance(value, numpy.generic) and value.dtype in _CTYPES:
            return _Var(value.dtype, ref=ref, value=value)
        _cannot("a Python operation on scalars gave a %s" % type(value).__name__)

    # Note [Host scalars]
    # Python operators between scalars (arguments or constants, Python or
    # NumPy) run on the host at each call, as they do unfused: s * 2 stays a
    # weak Python int, numpy.float32(1) / 3 a float32. ufunc calls always run
    # in the kernel (unfused they return 0-d arrays, whose dtype is strong).
    @staticmethod
    def _on_host(x):
        return (type(x) in _WEAK_TYPES or isinstance(x, numpy.generic)
                or (isinstance(x, _Var) and x.ref is not None))

    def binary(self, name, host_op, a, b, reflected):
        if reflected:
            a, b = b, a
        if self._on_host(a) and self._on_host(b):
            return self.host(host_op, (a, b))
        return self.ufunc(name, (a, b))

    def divmod(self, a, b):
        if self._on_host(a) and self._on_host(b):
            return (self.host(operator.floordiv, (a, b)), self.host(operator.mod, (a, b)))
        return self.ufunc("divmod", (a, b))

    def unary(self, name, host_op, a):
        if a.ref is not None:
            return self.host(host_op, (a,))
        return self.ufunc(name, (a,))

    def inplace(self, name, host_op, a, b):
        """`a op= b`: a Python scalar is rebound; a strong value is updated
        in place (so names bound to it see the change, as with arrays),
        its dtype kept under casting='same_kind' as the eager operator does."""
        if a.ref is not None:
            return self.binary(name, host_op, a, b, False)
        if a.leaves and a.expr in {p[0] for p in self.params}:
            _cannot("an in-place operator writes argument %d" % min(a.leaves))
        if isinstance(b, _Var) and b.ndim > a.ndim:
            _cannot("an in-place operator broadcasts its target to more dimensions")
        r = self.ufunc(name, (a, b), out_dtypes=[a.dtype])
        r = self.cast(r, a.dtype) if r.dtype != a.dtype else r
        a.expr, a.leaves = r.expr, a.leaves | r.leaves
        return a

    def cast(self, x, dtype):
        if dtype not in _CTYPES:
            raise TypeError("kiln.fuse: astype(%s): kiln does not support that dtype" % dtype)
        name = self.temp()
        self.stmts.append(({name}, {x.expr}, "const %s %s = %s;" % (
            _CTYPES[dtype], name, "kiln::numpy_cast<%s>(%s)" % (_CTYPES[dtype], x.expr))))
        return _Var(dtype, name, x.ndim, x.leaves, x.fonly)


def _trace(fusion, args):
    tracer = _Tracer(fusion, args)
    previous = getattr(_tracing, "tracer", None)
    _tracing.tracer = tracer
    _swap_ufunc_call(True)
    try:
        result = fusion._fn(*tracer.proxies)
        return _Plan(tracer, result)
    finally:
        _tracing.tracer = previous
        _swap_ufunc_call(False)


class _Plan:
    """What a call of one argument kind does (Note [Fusion plans])."""

    def __init__(self, tracer, result):
        self.tracer = tracer
        self.name = tracer.fusion.kernel_name
        self.is_tuple = isinstance(result, tuple)
        results = result if self.is_tuple else (result,)
        self.kouts = []      # kernel outputs: (var, dtype)
        self.reductions = {}  # kernel output index -> _Reduced
        self.results = []    # per returned value: ("arg", k) | ("host", j) | ("const", v) | ("out", j)
        index = {}
        for r in results:
            if isinstance(r, _Reduced):
                self.results.append(("out", len(self.kouts)))
                self.reductions[len(self.kouts)] = r
                self.kouts.append((r.var, r.acc))
            elif isinstance(r, _Var) and r.ref is not None:
                self.results.append(r.ref)
            elif isinstance(r, _Var):
                source = next((p[2] for p in tracer.params if p[0] == r.expr and p[2][0] == "a"), None)
                if source is not None:
                    self.results.append(("arg", source[1]))
                    continue
                if id(r) not in index:
                    index[id(r)] = len(self.kouts)
                    self.kouts.append((r, r.dtype))
                self.results.append(("out", index[id(r)]))
            elif r is None or type(r) in _WEAK_TYPES or isinstance(r, numpy.generic):
                self.results.append(("const", r))
            else:
                raise _FusionError("kiln.fuse: cannot fuse %r: it returns a %s (fused functions return "
                                   "values or a tuple of them)" % (self.name, type(r).__name__))
        self.host_types = tuple(tracer.host_types)
        self.host_ops = tracer.host_ops
        self.converters = [None] * len(tracer.weak_params)
        for (ref, weak, to), j in tracer.weak_params.items():
            self.converters[j] = (ref, weak.type, None if weak == to else to)
        self.leaves = [tuple(sorted(v.leaves)) for v, _ in self.kouts]
        self.array_args = sorted({("a", k) for _, _, (kind, k) in tracer.params if kind == "a"})
        self.specs = {}

    def host_values(self, args):
        if not self.host_ops:
            return None
        values = []
        for fn, refs in self.host_ops:
            values.append(fn(*[args[r[1]] if r[0] == "arg" else values[r[1]] if r[0] == "host"
                               else r[1] for r in refs]))
        return values

    def spec(self, outs):
        """(engine spec, param sources) for the kernel writing kernel outputs
        `outs` (the statements they need, the params those read)."""
        spec = self.specs.get(outs)
        if spec is not None:
            return spec
        t = self.tracer
        needed = set()
        assigns = []
        for j in outs:
            var, dtype = self.kouts[j]
            needed.add(var.expr)
            assigns.append("o%d = %s;" % (j, _cast(var.expr, var.dtype, dtype)))
        body = []
        for defined, uses, text in reversed(t.stmts):
            if defined & needed:
                body.append(text)
                needed |= uses
        params = [(n, c, "", "in") for n, c, _ in t.params if n in needed]
        sources = [s for n, _, s in t.params if n in needed]
        params += [("o%d" % j, _CTYPES[self.kouts[j][1]], "", "out") for j in outs]
        sources += [("o", j) for j in outs]
        op = "\n".join(list(reversed(body)) + assigns)
        spec = (_core._EwSpec(self.name, params, op, preamble="#include <kiln/ufunc_math.h>\n",
                              options=_core._EXACT_FP_OPTIONS, outputs_write_only=True), sources)
        self.specs[outs] = spec
        return spec

    def _shapes(self, args):
        shapes = {args[k].shape for _, k in self.array_args}
        if len(shapes) == 1:
            full = shapes.pop()
            return [full if leaves else () for leaves in self.leaves]
        return [broadcast_shapes(*[args[k].shape for k in leaves]) for leaves in self.leaves]

    def run(self, args, host):
        weak = []
        for ref, to_weak, to in self.converters:
            v = args[ref[1]] if ref[0] == "arg" else host[ref[1]]
            v = to_weak(v)
            weak.append(v if to is None else v.astype(to))
        shapes = self._shapes(args)
        groups = {}
        for j, shape in enumerate(shapes):
            groups.setdefault(shape, []).append(j)
        outs = [None] * len(self.kouts)
        for shape, js in groups.items():
            spec, sources = self.spec(tuple(js))
            call = []
            for kind, k in sources:
                if kind == "a":
                    a = args[k]
                    call.append(a if a.shape == shape else _core._broadcast_to(a, shape))
                elif kind == "s":
                    call.append(args[k])
                elif kind == "h":
                    call.append(host[k])
                elif kind == "w":
                    call.append(weak[k])
                elif kind == "c":
                    call.append(self.tracer.consts[k])
                else:
                    outs[k], view = self._allocate(k, shape)
                    call.append(view)
            if 0 not in shape:
                _core._elementwise_launch(spec, call, shape)
        for j, r in self.reductions.items():
            outs[j] = _reduce(outs[j], shapes[j], r)
        results = [outs[k] if kind == "out" else args[k] if kind == "arg" else host[k]
                   if kind == "host" else k for kind, k in self.results]
        return tuple(results) if self.is_tuple else results[0]

    def _allocate(self, j, shape):
        """(array kept, view the kernel writes) for kernel output j: a
        reduction's values with the reduced axes last, C order (Note [Fused
        reductions]); else as an eager ufunc allocates its output."""
        var, dtype = self.kouts[j]
        r = self.reductions.get(j)
        if r is None:
            out = _core.empty(shape, dtype, "F" if var.fonly else "C")
            return out, out
        kept = [a for a in range(len(shape)) if a not in r.axes]
        perm = kept + list(r.axes)
        buf = _core.empty(tuple(shape[a] for a in perm), dtype, "C")
        inverse = sorted(range(len(perm)), key=perm.__getitem__)
        return buf, (buf.transpose(*inverse) if perm != sorted(perm) else buf)


# Note [Fused reductions]
# The kernel writes the values to reduce (in the accumulator dtype) with the
# reduced axes last, so each output element owns one contiguous row. Each
# pass then combines, per row, the elements c, c + n, c + 2n, ... into
# element c of n = ceil(row / _CHUNK) partial results (neighbouring threads
# read neighbouring elements), until one is left per row; the last pass casts
# to the result dtype. Every combination is the ufunc's own loop function
# (kiln::ufn::add, multiply, maximum, minimum), so NaNs and integer wrapping
# are the ufunc's; float sums are in a different order than NumPy's pairwise
# summation, so they agree to rounding, not bit for bit.
_reduce_specs = {}


def _reduce_spec(method, acc, out):
    key = (method, acc, out)
    spec = _reduce_specs.get(key)
    if spec is None:
        ca, co = _CTYPES[acc], _CTYPES[out]
        fn = _ufunc_row(_REDUCTIONS[method])["device_fn"]
        op = ("const long long fz_base = (i / nchunks) * row_len;\n"
              "%s fz_acc = src[fz_base + i %% nchunks];\n"
              "for (long long fz_k = fz_base + i %% nchunks + nchunks; fz_k < fz_base + row_len; "
              "fz_k += nchunks)\n  fz_acc = %s(fz_acc, src[fz_k]);\n"
              "dst = %s;" % (ca, fn, _cast("fz_acc", acc, out)))
        spec = _reduce_specs[key] = _core._EwSpec(
            "kiln_fuse_%s_%s" % (method, acc.name),
            [("src", ca, "", "raw"), ("row_len", "long long", "", "in"),
             ("nchunks", "long long", "", "in"), ("dst", co, "", "out")],
            op, preamble="#include <kiln/ufunc_math.h>\n", options=_core._EXACT_FP_OPTIONS, outputs_write_only=True)
    return spec


def _reduce(values, shape, r):
    kept = tuple(n for a, n in enumerate(shape) if a not in r.axes)
    rows = 1
    for n in kept:
        rows *= n
    row_len = 1
    for a in r.axes:
        row_len *= shape[a]
    if r.keepdims:
        out_shape = tuple(1 if a in r.axes else n for a, n in enumerate(shape))
    else:
        out_shape = kept
    if row_len == 0:
        if r.method in ("max", "min"):
            raise ValueError("zero-size array to reduction operation %s which has no identity"
                             % _REDUCTIONS[r.method])
        return (_core.zeros if r.method == "sum" else ones)(out_shape, r.result, "C")
    if rows == 0:
        return _core.empty(out_shape, r.result, "C")
    while True:
        nchunks = -(-row_len // _CHUNK)
        to = r.result if nchunks == 1 else r.acc
        dst = _core.empty((rows * nchunks,), to, "C")
        _core._elementwise_launch(_reduce_spec(r.method, r.acc, to),
                                  [values, numpy.int64(row_len), numpy.int64(nchunks), dst],
                                  (rows * nchunks,))
        if nchunks == 1:
            return dst.reshape(out_shape)
        values, row_len = dst, nchunks
