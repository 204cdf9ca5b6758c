"""kiln.ElementwiseKernel: a loop body in CUDA C++ applied to every element,
with CuPy's API (docs/elementwise.md).

    squared_diff = kiln.ElementwiseKernel(
        'T x, T y', 'T z', 'z = (x - y) * (x - y)', 'squared_diff')
    z = squared_diff(kiln.arange(6.0).reshape(2, 3), 2.0)   # broadcast, scalar, z allocated
    squared_diff(x, y, z)                                    # outputs passed after the inputs

The parameter lists are parsed once, at construction. A call is C++
(_core._ElementwiseKernelBase, Note [ElementwiseKernel warm calls] in
pyfrontend/elementwise_binding.cpp): it looks its argument kinds up in the
kernel's plans (types resolved, the engine spec, how each scalar is
converted); only a new combination of kinds comes here, to _plan_for. The
generated kernels come from the elementwise engine (arraycore/elementwise.h,
Note [Elementwise kernels]).
"""
import collections

import numpy

from kiln import _core
from kiln._core import ndarray

# C++ spelling of each dtype in generated code (the engine's ctypes).
_CTYPES = {numpy.dtype(t): c for t, c in [
    (numpy.bool_, "bool"), (numpy.int8, "signed char"), (numpy.int16, "short"),
    (numpy.int32, "int"), (numpy.int64, "long long"), (numpy.uint8, "unsigned char"),
    (numpy.uint16, "unsigned short"), (numpy.uint32, "unsigned int"),
    (numpy.uint64, "unsigned long long"), (numpy.float16, "kiln::half"),
    (numpy.float32, "float"), (numpy.float64, "double"),
    (numpy.complex64, "kiln::complex<float>"), (numpy.complex128, "kiln::complex<double>")]}

# The dtype a Python scalar takes when it alone decides a placeholder
# (NumPy's defaults: numpy.asarray(1).dtype is int64).
_PYTHON_SCALAR_DTYPES = {bool: numpy.dtype(numpy.bool_), int: numpy.dtype(numpy.int64),
                         float: numpy.dtype(numpy.float64), complex: numpy.dtype(numpy.complex128)}

Param = collections.namedtuple("Param", "name dtype ctype raw is_const")
Param.__doc__ = """One parameter: ``dtype`` is None for a type placeholder, whose
one-character name is then ``ctype``; otherwise ``ctype`` is its C++ type."""

# Argument kinds in a plan (what the call does with each argument).
_ARRAY, _RAW, _SCALAR = 0, 1, 2


def _parse_params(text, is_const, kernel):
    if not text.strip():
        return ()
    params = []
    for item in text.split(","):
        words = item.split()
        raw = bool(words) and words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2:
            raise ValueError("%s: syntax error in parameter %r: expected '[raw] type name'"
                             % (kernel, item.strip()))
        type_name, name = words
        if not name.isidentifier() or not name.isascii():
            raise ValueError("%s: parameter name %r is not a C++ identifier" % (kernel, name))
        if name == "i" or name.startswith("_"):
            raise ValueError("%s: parameter name %r is reserved ('i' and names starting with '_' "
                             "are the generated code's)" % (kernel, name))
        if len(type_name) == 1:
            if not type_name.isidentifier() or not type_name.isascii():
                raise ValueError("%s: type placeholder %r of parameter %r is not a letter"
                                 % (kernel, type_name, name))
            params.append(Param(name, None, type_name, raw, is_const))
            continue
        try:
            dtype = numpy.dtype(type_name)
        except TypeError:
            raise TypeError("%s: unknown type %r in parameter %r (NumPy dtype names such as "
                            "'float32', or one letter for a type placeholder)"
                            % (kernel, type_name, item.strip())) from None
        if dtype not in _CTYPES:
            raise TypeError("%s: parameter %r has dtype %s, which kiln does not support"
                            % (kernel, name, dtype))
        params.append(Param(name, dtype, _CTYPES[dtype], raw, is_const))
    return tuple(params)


def _is_scalar(a):
    return type(a) in _PYTHON_SCALAR_DTYPES or isinstance(a, numpy.generic)


def _unsupported(kernel, position, a):
    if isinstance(a, numpy.ndarray):
        return TypeError("%s: argument %d is a NumPy array, which lives on the host; move it to "
                         "the device with kiln.asarray first" % (kernel, position))
    return TypeError("%s: argument %d has unsupported type %s (expected kiln.ndarray or a scalar)"
                     % (kernel, position, type(a).__name__))


def _converter(dtype, a):
    """How a scalar like `a` becomes a NumPy scalar of `dtype` at each call
    (None: it is one already): NumPy's conversions (a Python int out of range
    raises OverflowError, a NumPy scalar is cast with astype). The warm call
    converts Python scalars itself where NumPy's result is the plain C
    conversion, and calls this otherwise."""
    if type(a) in _PYTHON_SCALAR_DTYPES:
        return dtype.type
    if a.dtype == dtype:
        return None
    return lambda v: v.astype(dtype)


class ElementwiseKernel(_core._ElementwiseKernelBase):
    """User-defined elementwise kernel, as CuPy's ``cupy.ElementwiseKernel``.

    ``in_params``/``out_params`` are comma-separated ``[raw] type name``
    lists; a one-letter type is a placeholder resolved per call from the
    output arguments first, then the input arrays, then scalars. Each call
    compiles (once per argument types; cached in memory and on disk) and
    runs ``operation`` for every element of the broadcast shape.

    ``kernel(*inputs[, *outputs], size=None, block_size=None, stream=None)``
    runs it over the broadcast shape of the non-raw array arguments (or over
    ``size`` elements when every array is raw) and returns the output(s):
    allocated when only the inputs are given, else the given ones. ``stream``
    (a kiln.cuda.Stream) runs it there instead of on the current stream.

    Differs from CuPy: ``reduce_dims`` and ``block_size`` are accepted and
    checked but have no effect (the engine always collapses dimensions and
    sizes its grids from the device); ``params`` holds no ``_ind`` entry.
    """

    # Subclasses whose operation never reads its outputs (kiln.vectorize) set
    # this: the contiguous kernel then stores 4 results at once (EwSpec).
    _outputs_write_only = False

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, loop_prep="", after_loop="",
                 options=()):
        if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
            raise ValueError("Invalid kernel name: %r (it must be a C++ identifier)" % (name,))
        self.name = self.__name__ = name
        self.in_params = _parse_params(in_params, True, name)
        self.out_params = _parse_params(out_params, False, name)
        self.params = self.in_params + self.out_params
        names = [p.name for p in self.params]
        for n in names:
            if names.count(n) > 1:
                raise ValueError("%s: parameter name %r is used twice" % (name, n))
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.operation = operation
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self.options = tuple(options)
        self.no_return = no_return
        self.return_tuple = return_tuple
        self._specs = {}   # resolved dtypes of all params -> _core._EwSpec
        returns = "none" if no_return else (
            "one" if self.nout == 1 and not return_tuple else "tuple")
        _core._ElementwiseKernelBase.__init__(self, name, self.nin, self.nargs, returns)

    def __repr__(self):
        return "<kiln.ElementwiseKernel %s>" % self.name

    def _plan_for(self, args):
        """Check the arguments and resolve the placeholders: from the outputs
        given, then the input arrays (raw ones too), then the scalars (NumPy's
        result_type of their dtypes, a Python scalar counting as NumPy's
        default dtype for its type). Returns the plan for the C++ call to keep
        under these argument kinds: (engine spec, the non-raw array arguments,
        (position, dtype, converter) per scalar, the dtypes of the outputs to
        allocate or None when they are given, the first raw output's name or
        None)."""
        n = len(args)
        if n != self.nin and n != self.nargs:
            raise TypeError("Wrong number of arguments for %r: it takes %d (inputs) or %d (with "
                            "outputs), got %d" % (self.name, self.nin, self.nargs, n))
        kinds = []
        for k, (p, a) in enumerate(zip(self.params, args)):
            if isinstance(a, ndarray):
                kinds.append(_RAW if p.raw else _ARRAY)
            elif k >= self.nin and not isinstance(a, numpy.ndarray):
                raise TypeError("%s: output argument %d must be a kiln.ndarray, got %s"
                                % (self.name, k, type(a).__name__))
            elif _is_scalar(a) and not p.raw:
                if isinstance(a, numpy.generic) and a.dtype not in _CTYPES:
                    raise TypeError("%s: argument %d has dtype %s, which kiln kernels do not "
                                    "support" % (self.name, k, a.dtype))
                kinds.append(_SCALAR)
            elif p.raw and _is_scalar(a):
                raise TypeError("%s: raw parameter %r takes a kiln.ndarray, got %s"
                                % (self.name, p.name, type(a).__name__))
            else:
                raise _unsupported(self.name, k, a)

        resolved = {}

        def settle(p, dtype, what):
            if p.dtype is not None:
                if dtype != p.dtype:
                    raise TypeError("%s: type mismatch: %s %r is %s, but the parameter is %s"
                                    % (self.name, what, p.name, dtype, p.dtype))
            elif resolved.setdefault(p.ctype, dtype) != dtype:
                raise TypeError("%s: type mismatch: %s %r is %s, but placeholder %s is already %s"
                                % (self.name, what, p.name, dtype, p.ctype, resolved[p.ctype]))

        order = list(range(self.nin, len(args))) + list(range(self.nin))
        for k in order:
            if kinds[k] != _SCALAR:
                settle(self.params[k], args[k].dtype, "output" if k >= self.nin else "input")
        from_scalars = {}
        for k in range(self.nin):
            p = self.params[k]
            if kinds[k] == _SCALAR and p.dtype is None and p.ctype not in resolved:
                a = args[k]
                from_scalars.setdefault(p.ctype, []).append(
                    a.dtype if isinstance(a, numpy.generic) else _PYTHON_SCALAR_DTYPES[type(a)])
        for placeholder, dtypes in from_scalars.items():
            resolved[placeholder] = numpy.result_type(*dtypes)

        dtypes = []
        for p in self.params:
            if p.dtype is not None:
                dtypes.append(p.dtype)
            elif p.ctype in resolved:
                dtypes.append(resolved[p.ctype])
            else:
                raise TypeError("%s: output type can't be determined: placeholder %s of output %r "
                                "appears in no input; pass the output array"
                                % (self.name, p.ctype, p.name))
        shaped = tuple(k for k in range(n) if kinds[k] == _ARRAY)
        scalars = tuple((k, dtypes[k], _converter(dtypes[k], args[k])) for k in range(self.nin)
                        if kinds[k] == _SCALAR)
        raw_out = next((p.name for p in self.out_params if p.raw), None)
        return (self._spec_for(tuple(dtypes), resolved), shaped, scalars,
                tuple(dtypes[self.nin:]) if n == self.nin else None, raw_out)

    def _spec_for(self, dtypes, resolved):
        """The engine spec for these parameter dtypes; the placeholders are
        typedefs after the user's preamble, so the operation (and loop_prep,
        after_loop) can name them."""
        spec = self._specs.get(dtypes)
        if spec is None:
            typedefs = "".join("typedef %s %s;\n" % (_CTYPES[dt], placeholder)
                               for placeholder, dt in sorted(resolved.items()))
            params = [(p.name, _CTYPES[dt], "", "raw" if p.raw else ("in" if p.is_const else "out"))
                      for p, dt in zip(self.params, dtypes)]
            # Note [Operation text]: CuPy's examples leave the final ';' out
            # ('z = x * y'); it goes on a line of its own so a trailing //
            # comment cannot swallow it.
            spec = _core._EwSpec(self.name, params, self.operation + "\n;",
                                 preamble=self.preamble + "\n" + typedefs,
                                 loop_prep=self.loop_prep, after_loop=self.after_loop,
                                 options=self.options, outputs_write_only=self._outputs_write_only,
                                 operation_file="<ElementwiseKernel %s operation>" % self.name)
            self._specs[dtypes] = spec
        return spec
