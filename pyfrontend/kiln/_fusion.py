"""kiln.fuse: a chain of elementwise ufunc calls compiled into one kernel,
with reductions and stores into the arguments (docs/fusion.md).

    @kiln.fuse()
    def softplus(x):
        return kiln.maximum(0, x) + kiln.log1p(kiln.exp(-kiln.abs(x)))

    y = softplus(kiln.asarray(numpy.random.randn(1000).astype(numpy.float32)))   # one kernel
    total = kiln.fuse(lambda x, y: ((x - y) ** 2).sum())(a, b)                  # + a reduction

A call looks up a plan by the arguments' kinds (Note [Fusion plans] in
arraycore/fusion.h); the first call of a kind traces the function with proxy
values (_Var), which record every ufunc call, operator, astype, reduction,
store and kiln function as a node of a C++ trace (_core._FusionTrace, Note [Tracing ufunc
calls]); the trace resolves each node's type loop and writes the kernel, and
the plan it makes (_core._FusionPlan) runs every call of that kind.
"""
import functools
import operator
import re
import threading

import numpy

import kiln
from kiln import _core
from kiln._core import ndarray

_WEAK_TYPES = (bool, int, float, complex)


def fuse(*args, **kwargs):
    """Decorator that fuses a function into one elementwise kernel (plus a
    final reduction), as CuPy's ``cupy.fuse``: ``kiln.fuse(f)``,
    ``@kiln.fuse()`` or ``@kiln.fuse(kernel_name='name')``.

    The function may call kiln ufuncs (``kiln.add(x, y)``, ``kiln.exp(x)``,
    ``dtype=``/``casting=``/``out=`` included), ``where``, ``clip``,
    ``around``, ``copyto``, ``real``, ``imag``, ``angle``, ``i0``, ``sinc``
    and the reductions (``axis=``, ``keepdims=``, ``dtype=``), use
    operators on its arguments and Python or NumPy scalars,
    write into its arguments (``x += y``, ``x[...] = v``), index them, and
    return one value or a tuple. Results have the dtypes and values of the
    same calls made one by one. Calls without any kiln array
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
        self._plans = {}   # argument kinds -> (plan, host operations, the types they gave)
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return "<kiln.fuse %s>" % self.kernel_name

    def clear_cache(self):
        """Forgets the plans (the next call traces again), as CuPy's."""
        self._plans.clear()

    def __call__(self, *args, **kwargs):
        # Note [Fusion plans] (arraycore/fusion.h): plans by argument kinds,
        # again under a longer key when the host operations give other types.
        if kwargs:
            raise TypeError("%s: fused functions take positional arguments only" % self.kernel_name)
        key = tuple((a.dtype, a.ndim, a.ndim > 1 and not a._c_contiguous and a._f_contiguous)
                    if type(a) is ndarray else type(a) for a in args)
        entry = self._plans.get(key)
        if entry is None:
            if not any(type(a) is ndarray for a in args):
                return self._fn(*args)
            entry = self._plans[key] = _trace(self, args)
        r = self._run(entry, key, args)
        if r is NotImplemented:   # an argument it writes shares memory with another one
            return self._call_sharing(key, args)
        return r

    def _run(self, entry, key, args, same=None):
        plan, host_ops, host_types, views = entry
        if not host_ops:
            return plan(_with_views(args, views) if views else args, None)
        host = _host_values(host_ops, args)
        if host_types != tuple(map(type, host)):
            key = (key, tuple(map(type, host)))
            entry = self._plans.get(key)
            if entry is None:
                entry = self._plans[key] = _trace(self, args, same)
            plan, host, views = entry[0], _host_values(entry[1], args), entry[3]
        return plan(_with_views(args, views) if views else args, host)

    def _call_sharing(self, key, args):
        """Note [Arguments sharing memory] (arraycore/fusion.cpp): one traced
        value per array passed several times; unfused when memory is still
        shared."""
        same = tuple(next(j for j in range(k + 1) if args[j] is a) if type(a) is ndarray else k
                     for k, a in enumerate(args))
        if same == tuple(range(len(args))):
            return self._fn(*args)
        args_once = tuple(None if j != k else a for k, (a, j) in enumerate(zip(args, same)))
        key = (key, "same", same)
        entry = self._plans.get(key)
        if entry is None:
            entry = self._plans[key] = _trace(self, args_once, same)
        r = self._run(entry, key, args_once, same)
        return self._fn(*args) if r is NotImplemented else r


def _with_views(args, views):
    args = list(args)
    for k, key in views:
        args.append(args[k][key])
    return tuple(args)


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
        out = args[uf.nin:] or kwargs.get("out")
        out = () if out is None else out if isinstance(out, tuple) else (out,)
        if len(args) < uf.nin or len(out) not in (0, uf.nout) or not all(
                isinstance(o, _Var) and o.ref is None for o in out):
            _cannot("%s() is given %d inputs and outputs %r: outputs (out=) must be traced arrays, one per "
                    "output" % (uf.__name__, min(len(args), uf.nin), out))
        for k in kwargs:
            if k not in ("dtype", "casting", "out"):
                _cannot("%s(..., %s=) can't be fused (only dtype=, casting= and out= can)" % (uf.__name__, k))
        return tracer.ufunc(uf.__name__, args[:uf.nin], kwargs.get("dtype"), kwargs.get("casting", "same_kind"), out)
    return _ufunc_call(uf, *args, **kwargs)


def _swap_ufunc_call(on):
    global _swap_depth
    with _swap_lock:
        _swap_depth += 1 if on else -1
        _core._set_ufunc_call_hook(_tracing_call if _swap_depth else None)
        if _swap_depth == int(on):   # the first trace began or the last ended: Note [Tracing kiln functions]
            for name, traced in _FUNCTIONS.items():
                eager = _EAGER[name] = _EAGER.get(name) or getattr(kiln, name)
                setattr(kiln, name, _tracing_function(eager, traced) if on else eager)


# Note [Tracing kiln functions]
# kiln.where, clip, around/round, copyto, nansum, nanprod, real, imag,
# angle, i0 and sinc are Python functions over C++ calls that take arrays.
# While any thread traces, the kiln namespace holds versions that trace them (from tracer operations and
# ufunc calls) when the calling thread is tracing and an argument is a
# traced value, and call kiln's own otherwise; kiln gets its own functions
# back when the last trace ends, so untraced calls never pay for this.
_FUNCTIONS = {}   # name -> its traced version (the end of this module)
_EAGER = {}       # name -> kiln's function


def _tracing_function(eager, traced):
    @functools.wraps(eager)
    def call(*args, **kwargs):
        if getattr(_tracing, "tracer", None) is not None and any(
                isinstance(a, _Var) for a in (*args, *kwargs.values())):
            return traced(*args, **kwargs)
        return eager(*args, **kwargs)
    return call


class _Var:
    """A traced value: `node` in the trace, its `dtype` (NumPy's default for
    a Python scalar, which is `weak`) and `ndim`. Scalar arguments and Python operators on scalars
    live on the host (Note [Host scalars]): `ref` says where (("arg", k) or
    ("host", j)) and `value` is the value seen while tracing."""

    __array_ufunc__ = None   # NumPy defers to the reflected operators

    def __init__(self, node, dtype=None, ndim=0, ref=None, value=None):
        self.node, self.dtype, self.ndim, self.ref, self.value = node, dtype, ndim, ref, value
        self.weak = dtype is None and ref is not None
        if self.weak:
            self.dtype = numpy.dtype(type(value))

    @property
    def shape(self):
        _cannot("the shape of a traced value is not known while tracing (only dtype and ndim are)")

    def __bool__(self):
        _cannot("the truth value of a traced value is used (if, while, and, or, not, or a chained "
                "comparison), which is no Python scalar; use arithmetic or kiln.where/maximum/minimum instead")

    def _convert(self, *a):
        _cannot("a traced value is converted to a Python number (int(), float(), an index)")

    __int__ = __float__ = __complex__ = __index__ = _convert

    def __len__(self):
        _cannot("len() of a traced value")

    def __iter__(self):
        _cannot("iteration over a traced value")

    def __getitem__(self, key):
        """x[key] of an argument, basic indexing: a view made at each call
        (from the argument's), which the kernel reads as one more argument."""
        t = _tracing.tracer
        if self.node not in t.arrays or not all(k is None or k is Ellipsis or type(k) in (int, slice)
                                                for k in (key if type(key) is tuple else (key,))):
            _cannot("indexing a traced value (only arguments, with ints, slices, None and ..., can be)")
        t.views.append((t.arrays[self.node], key))
        t.args.append(t.args[t.arrays[self.node]][key])
        node = t.trace.argument(t.args[-1])
        t.arrays[node] = len(t.args) - 1
        return _Var(node, t.args[-1].dtype, t.args[-1].ndim)

    def __setitem__(self, key, value):
        """x[...] = v and x[:] = v: a store (Note [Stores] in arraycore/fusion.cpp)."""
        if self.ref is not None or not all(k is Ellipsis or (type(k) is slice and k == slice(None))
                                           for k in (key if type(key) is tuple else (key,))):
            _cannot("assignment into a traced value (only x[...] = v and x[:] = v can be fused)")
        self.node = _tracing.tracer.trace.store(self.node, _tracing.tracer.node(value))

    @property
    def real(self):
        return _FUNCTIONS["real"](self)

    @property
    def imag(self):
        return _FUNCTIONS["imag"](self)

    def conj(self):
        return _core._ufuncs["conjugate"](self)

    conjugate = conj

    def copy(self, order="K"):
        return self.astype(self.dtype)

    def clip(self, *args, **kwargs):
        return _clip(self, *args, **kwargs)

    def round(self, decimals=0, out=None):
        return _around(self, decimals, out)

    def __array__(self, *a, **k):
        _cannot("a traced value is converted to a NumPy array")

    def astype(self, dtype, copy=True):
        if self.weak:
            _cannot("astype of a Python scalar")
        if self.ref is not None:
            return _tracing.tracer.host(lambda v: v.astype(dtype), (self,))
        return _tracing.tracer.values([_tracing.tracer.trace.astype(self.node, dtype)])

    def _reduce(self, method, axis, dtype, out, keepdims):
        """A reduction (Note [Fused reductions] and Note [Reductions used
        inside] in arraycore/fusion.cpp)."""
        if out is not None:
            _cannot("%s(out=) (a fused reduction allocates its result)" % method)
        if self.ref is not None:
            _cannot("%s() of a scalar" % method)
        return _tracing.tracer.values([_tracing.tracer.trace.reduce(self.node, method, axis, dtype, keepdims)])

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("sum", axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("prod", axis, dtype, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return self._reduce("max", axis, None, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return self._reduce("min", axis, None, out, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return self._reduce("any", axis, None, out, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return self._reduce("all", axis, None, out, keepdims)


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


class _Tracer:
    """One trace: the C++ trace of kernel values (`trace`) and the host
    operations on Python scalars, with the types they gave."""

    def __init__(self, fusion, args):
        self.fusion = fusion
        self.trace = _core._FusionTrace(fusion.kernel_name, args)
        self.host_ops = []      # (function, operand refs)
        self.host_types = []
        self.args = list(args)  # the arguments, then the views of them (x[1:]) the kernel reads
        self.views = []         # (the argument it indexes, key) for each view
        self.arrays = {k: k for k, a in enumerate(args) if type(a) is ndarray}   # node -> its entry in args
        self.proxies = [None if a is None else _Var(k, a.dtype, a.ndim) if type(a) is ndarray else
                        _Var(k, a.dtype if isinstance(a, numpy.generic) else None, ref=("arg", k), value=a)
                        for k, a in enumerate(args)]

    def node(self, x):
        """x's node; a constant becomes one."""
        return x.node if isinstance(x, _Var) else self.trace.constant(x)

    @staticmethod
    def values(nodes):
        vs = tuple(_Var(node, dtype, ndim) for node, dtype, ndim in nodes)
        return vs[0] if len(vs) == 1 else vs

    def ufunc(self, name, inputs, dtype=None, casting="same_kind", out=()):
        r = self.values(self.trace.ufunc(name, [self.node(x) for x in inputs], dtype, casting, [o.node for o in out]))
        for o, v in zip(out, r if isinstance(r, tuple) else (r,)):
            o.node = v.node   # Note [Stores]: the out= value now holds the result
        return (out[0] if len(out) == 1 else out) if out else r

    def host(self, fn, operands):
        value = fn(*[x.value if isinstance(x, _Var) else x for x in operands])
        if type(value) not in _WEAK_TYPES and not isinstance(value, numpy.generic):
            _cannot("a Python operation on scalars gave a %s" % type(value).__name__)
        ref = ("host", len(self.host_ops))
        self.host_ops.append((fn, tuple(x.ref if isinstance(x, _Var) else ("const", x) for x in operands)))
        self.host_types.append(type(value))
        dtype = value.dtype if isinstance(value, numpy.generic) else None
        return _Var(self.trace.host(value), dtype, ref=ref, value=value)

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
        in place (so names bound to it see the change, as with arrays)."""
        if a.ref is not None:
            return self.binary(name, host_op, a, b, False)
        a.node = self.trace.inplace(name, a.node, self.node(b))
        return a


def _trace(fusion, args, same=None):
    """(plan, host operations, their types, views) for calls like this one;
    with `same`, argument k is argument same[k] (None in `args` when not k)."""
    tracer = _Tracer(fusion, args)
    for k, j in enumerate(same or ()):
        tracer.proxies[k] = tracer.proxies[j]
    previous = getattr(_tracing, "tracer", None)
    _tracing.tracer = tracer
    _swap_ufunc_call(True)
    try:
        result = fusion._fn(*tracer.proxies)
    finally:
        _tracing.tracer = previous
        _swap_ufunc_call(False)
    returned = []
    for r in result if isinstance(result, tuple) else (result,):
        if isinstance(r, _Var):
            returned.append(r.node)
        elif r is None or type(r) in _WEAK_TYPES or isinstance(r, numpy.generic):
            returned.append((r,))
        else:
            raise _FusionError("kiln.fuse: cannot fuse %r: it returns a %s (fused functions return "
                               "values or a tuple of them)" % (fusion.kernel_name, type(r).__name__))
    plan = tracer.trace.plan(returned, isinstance(result, tuple))
    return plan, tracer.host_ops, tuple(tracer.host_types), tracer.views


def _host_values(host_ops, args):
    values = []
    for fn, refs in host_ops:
        values.append(fn(*[args[k] if kind == "arg" else values[k] if kind == "host" else k
                           for kind, k in refs]))
    return values


def _where(condition, x=None, y=None):
    if x is None or y is None:
        _cannot("where() with one argument (kiln.nonzero) gives a shape known only when it runs")
    t = _tracing.tracer
    return t.values([t.trace.where(t.node(condition), t.node(x), t.node(y))])


def _clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    """maximum then minimum: NumPy's clip dtype (all three operands) and NaNs (a's first)."""
    lo, hi = (min, max) if a_min is None and a_max is None else (a_min, a_max)
    r = a if lo is None else _core._ufuncs["maximum"](a, lo, out=None if hi is not None else out)
    return r if hi is None else _core._ufuncs["minimum"](r, hi, out=out)


def _around(a, decimals=0, out=None):
    if decimals != 0 or not isinstance(a, _Var) or a.weak:
        _cannot("around(decimals=%r) of a %s (only decimals=0 of an array can be fused)" % (decimals, type(a).__name__))
    return _core._ufuncs["positive" if a.dtype.kind in "iu" else "rint"](a, out=out)


def _copyto(dst, src, casting="same_kind", where=True):
    """A store (Note [Stores] in arraycore/fusion.cpp) after NumPy's cast check."""
    if not isinstance(dst, _Var) or dst.ref is not None:
        _cannot("copyto() into a %s (only traced arrays can be written)" % type(dst).__name__)
    value = src.value if isinstance(src, _Var) and src.ref is not None else src
    from_dtype = src.dtype if isinstance(src, _Var) and not src.weak else numpy.result_type(dst.dtype, value)
    if not numpy.can_cast(from_dtype, dst.dtype, casting):
        raise TypeError("Cannot cast array data from %r to %r according to the rule %r"
                        % (from_dtype, dst.dtype, casting))
    if where is not True:
        src = _where(where, src, dst)
    dst.node = _tracing.tracer.trace.store(dst.node, _tracing.tracer.node(src))


def _nan_reduction(method, identity):
    def traced(a, axis=None, dtype=None, out=None, keepdims=False):
        if not a.weak and a.dtype.kind in "fc":
            a = _where(_core._ufuncs["isnan"](a), identity, a)
        return getattr(a, method)(axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    return traced


def _math_function(name):
    """kiln.real, imag, i0, sinc: FusionTrace's (arraycore/fusion_functions.cpp)."""
    def traced(x):
        t = _tracing.tracer
        r = t.values([getattr(t.trace, name)(t.node(x))])
        return x if isinstance(x, _Var) and r.node == x.node else r   # real(x) of a real array is x, as eager
    traced.__name__ = name
    return traced


def _angle(z, deg=False):
    t = _tracing.tracer
    return t.values([t.trace.angle(t.node(z), bool(deg))])


_FUNCTIONS.update(where=_where, clip=_clip, around=_around, round=_around, copyto=_copyto,
                  nansum=_nan_reduction("sum", 0), nanprod=_nan_reduction("prod", 1),
                  real=_math_function("real"), imag=_math_function("imag"), angle=_angle,
                  i0=_math_function("i0"), sinc=_math_function("sinc"))
