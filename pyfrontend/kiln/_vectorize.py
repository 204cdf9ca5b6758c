"""kiln.vectorize: a scalar Python function run for every element, as
numpy.vectorize, compiled for the GPU (docs/vectorize.md).

    f = kiln.vectorize(lambda v: v * v if v > 0 else v)
    y = f(x)                       # one kernel launch over x's elements

The function is compiled by the transpiler (kiln.jit's language) as a
device function for the argument dtypes (_core._jit_device_function) and
called per element by an ElementwiseKernel, so broadcasting, every layout and
the kernel cache are the elementwise engine's. A call computes its argument
types' key and looks it up in a dict (Note [Vectorize specializations]); only
a new combination of types transpiles and compiles.
"""
import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._creation import asarray
from kiln._elementwise_kernel import ElementwiseKernel, _CTYPES

_PYTHON_SCALARS = (bool, int, float, complex)


def _dtype_list(otypes):
    if isinstance(otypes, str):
        return [numpy.dtype(c) for c in otypes]
    return [numpy.dtype(t) for t in otypes]


def _c_name(name):
    text = "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else "_" for c in name)
    return "vectorize_" + text.strip("_")


def _zero_d(value, dtype):
    return asarray(numpy.asarray(value, dtype=dtype))


def _python_scalar_dtype(value):
    """The dtype numpy.vectorize gives a Python scalar input (numpy.asarray's)."""
    dt = numpy.asarray(value).dtype
    if dt.name not in _CTYPES:
        raise TypeError("kiln.vectorize: the input %r does not fit a kiln dtype (NumPy makes it %s)" % (value, dt))
    return dt


class vectorize:
    """Compile a scalar Python function into an elementwise kernel, as
    ``numpy.vectorize(pyfunc, otypes=None, doc=None, excluded=None,
    cache=False, signature=None)``.

    ``pyfunc`` is written in kiln.jit's language (docs/jit.md): numbers,
    ``if``/``while``/``for range``, the ``math`` module, kiln ufuncs on
    scalars and calls to other Python functions. It is compiled once per
    combination of argument dtypes. Inputs are kiln arrays, Python scalars
    and NumPy scalars, broadcast together; a function returning a tuple gives
    a tuple of arrays. ``otypes`` (a string of type characters or a list of
    dtypes) fixes the output dtypes; ``excluded`` names positions or keyword
    names of arguments passed to ``pyfunc`` unchanged: numbers, which stay
    Python (weak) scalars as in NumPy.

    Differs from NumPy: the output dtypes follow from the argument types by
    NumPy 2's promotion rules (NEP 50) applied to the function's code, where
    NumPy calls the function on the first element and takes the dtypes of
    what it returned; empty inputs need no ``otypes``; ``cache`` changes
    nothing (kiln always caches); ``signature`` (generalized ufuncs) raises
    NotImplementedError.
    """

    def __init__(self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        self.pyfunc = None
        self._doc = doc
        self.__name__ = "vectorize"
        self._params = []
        self.cache = cache
        self.signature = signature
        if signature is not None:
            raise NotImplementedError("kiln.vectorize: signature= (generalized ufuncs) is not supported yet; "
                                      "vectorize the scalar function and reduce or index the result")
        self.otypes = None if otypes is None else _dtype_list(otypes)
        if self.otypes is not None:
            for dt in self.otypes:
                if dt.name not in _CTYPES:
                    raise TypeError("kiln.vectorize: otypes has %s, which kiln does not support" % dt)
        self.excluded = set() if excluded is None else set(excluded)
        for e in self.excluded:
            if not isinstance(e, (int, str)):
                raise TypeError("kiln.vectorize: excluded holds argument positions (int) and names (str), got %r"
                                % (e,))
        self._specializations = {}  # Note [Vectorize specializations]
        if pyfunc is not None:
            self._set_function(pyfunc)

    def _set_function(self, pyfunc):
        pyfunc = getattr(pyfunc, "_kiln_jit_function", pyfunc)   # a @kiln.jit.rawkernel(device=True) function
        if not callable(pyfunc) or not hasattr(pyfunc, "__code__"):
            raise TypeError("kiln.vectorize: pyfunc must be a Python function or lambda, got %s"
                            % type(pyfunc).__name__)
        self.pyfunc = pyfunc
        self.__doc__ = pyfunc.__doc__ if self._doc is None else self._doc
        self.__name__ = getattr(pyfunc, "__name__", "vectorized")
        self.__wrapped__ = pyfunc
        code = pyfunc.__code__
        self._params = list(code.co_varnames[:code.co_argcount])

    def __repr__(self):
        return "<kiln.vectorize %s>" % self.__name__

    def _positional(self, args, kwargs):
        """The arguments in parameter order and, per position, whether it is
        excluded: as in NumPy, an int in `excluded` names a position of the
        positional arguments, a str a keyword argument's name."""
        excluded = [k in self.excluded for k in range(len(args))]
        if not kwargs:
            return args, excluded
        full = list(args) + [_MISSING] * (len(self._params) - len(args))
        excluded += [False] * (len(full) - len(excluded))
        for name, value in kwargs.items():
            if name not in self._params:
                raise TypeError("%s() got an unexpected keyword argument %r" % (self.__name__, name))
            k = self._params.index(name)
            if k < len(args):
                raise TypeError("%s() got multiple values for argument %r" % (self.__name__, name))
            full[k] = value
            excluded[k] = name in self.excluded
        missing = [self._params[k] for k, v in enumerate(full) if v is _MISSING]
        if missing:
            raise TypeError("%s() missing arguments: %s" % (self.__name__, ", ".join(missing)))
        return full, excluded

    # Note [Vectorize specializations]
    # A specialization is keyed by each argument's tag: a kiln array or a
    # NumPy scalar by its dtype, a Python scalar input by the dtype
    # numpy.asarray gives it (strong, as numpy.vectorize converts inputs to
    # arrays), an excluded Python scalar by its type (weak: pyfunc sees the
    # Python number itself, as in NumPy). The value is the ElementwiseKernel
    # whose operation calls the transpiled device function (its own plans,
    # in C++, take the call from there) and the globals and closure values the
    # function read: when one of them has changed (Note [Captured globals]),
    # the function is compiled again, so it never runs with stale values.
    def __call__(self, *args, **kwargs):
        if self.pyfunc is None:   # @kiln.vectorize(otypes=...) def f(...): the function comes now
            if len(args) != 1 or kwargs:
                raise TypeError("kiln.vectorize(...) without pyfunc decorates one function")
            self._set_function(args[0])
            return self
        args, excluded = self._positional(args, kwargs)
        key = []
        first_input, has_array = None, False
        for k, a in enumerate(args):
            if first_input is None and not excluded[k]:
                first_input = k
            if isinstance(a, ndarray):
                if excluded[k]:
                    raise TypeError("kiln.vectorize: excluded argument %d is an array; excluded arguments are "
                                    "passed through as numbers (pass arrays as inputs)" % k)
                key.append(a.dtype)
                has_array = True
            elif isinstance(a, numpy.generic):
                key.append(a.dtype)
            elif type(a) in _PYTHON_SCALARS:
                key.append(type(a) if excluded[k] else _python_scalar_dtype(a))
            else:
                raise TypeError("kiln.vectorize: argument %d is %s; inputs are kiln arrays, Python or NumPy "
                                "scalars (move host arrays with kiln.asarray)" % (k, type(a).__name__))
        key = tuple(key)
        if not has_array:   # scalars alone: a 0-d result, as numpy.vectorize gives
            if first_input is None:
                raise TypeError("kiln.vectorize: every argument of `%s` is excluded; at least one must be an "
                                "input" % self.__name__)
            args = list(args)
            args[first_input] = _zero_d(args[first_input], key[first_input])
        entry = self._specializations.get(key)
        if entry is None or not entry[1].unchanged():
            entry = self._specializations[key] = self._compile(key)
        return entry[0](*args)

    def _compile(self, key):
        arg_types, in_params = [], []
        for k, tag in enumerate(key):
            if isinstance(tag, type):   # an excluded Python scalar: weak
                dt = numpy.dtype({bool: numpy.bool_, int: numpy.int64, float: numpy.float64,
                                  complex: numpy.complex128}[tag])
                arg_types.append((dt.name, True))
            else:
                dt = tag
                if dt.name not in _CTYPES:
                    raise TypeError("kiln.vectorize: argument %d has dtype %s, which kiln does not support" % (k, dt))
                arg_types.append((dt.name, False))
            in_params.append("%s a%d" % (dt.name, k))
        source, fname, results, is_tuple, captures = _core._jit_device_function(self.pyfunc, arg_types)
        if not results:
            raise TypeError("kiln.vectorize: `%s` returns no value; a vectorized function returns a number "
                            "or a tuple of numbers" % self.__name__)
        outs = [numpy.dtype(r) for r in results]
        if self.otypes is not None:
            if len(self.otypes) != len(outs):
                raise ValueError("kiln.vectorize: otypes gives %d output(s) but `%s` returns %d"
                                 % (len(self.otypes), self.__name__, len(outs)))
            for j, (r, o) in enumerate(zip(outs, self.otypes)):
                if r.kind == "c" and o.kind != "c":
                    raise TypeError("kiln.vectorize: output %d of `%s` is %s, which otypes makes %s; a complex value "
                                    "has no real conversion (NumPy raises too): return its .real"
                                    % (j, self.__name__, r, o))
            outs = self.otypes
        op = _core._jit_vectorize_operation(fname, len(key), [dt.name for dt in outs], is_tuple)
        out_params = ", ".join("%s r%d" % (dt.name, j) for j, dt in enumerate(outs))
        # Note [Exact floating point] (arraycore/elementwise.h): each operation of
        # the function rounds on its own, as NumPy's scalar arithmetic does.
        kernel = _VectorizeKernel(", ".join(in_params), out_params, op, _c_name(self.__name__),
                                  preamble=source, return_tuple=is_tuple, options=_core._EXACT_FP_OPTIONS)
        return kernel, captures


class _VectorizeKernel(ElementwiseKernel):
    """The kernel of one specialization: its operation only assigns the
    outputs, so the engine may store several at once."""
    _outputs_write_only = True


_MISSING = object()
