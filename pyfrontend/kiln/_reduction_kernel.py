"""kiln.ReductionKernel: a map-reduce written in CUDA C++ expressions, with
CuPy's API, run by the reduction engine (arraycore/reduction.h).

    l2norm = kiln.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')
    l2norm(kiln.arange(10, dtype=kiln.float32).reshape(2, 5), axis=1)   # array([ 5.477226 , 15.9687195], ...)

    wsum = kiln.ReductionKernel('T x, raw T w', 'T y', 'x * w[_j]', 'a + b', 'y = a', '0', 'wsum')
    wsum(kiln.arange(10, dtype=kiln.float32).reshape(2, 5),     # raw w: passed whole, w[_j] weighs
         kiln.asarray([1, 0, 2, 0, 1], dtype=kiln.float32), axis=1)  # column _j: array([ 8., 28.], ...)

The parameter lists are parsed as ElementwiseKernel's (kiln/_elementwise_kernel.py).
"""
import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._core import ndarray
from kiln._elementwise_kernel import _CTYPES, _PYTHON_SCALAR_DTYPES, _is_scalar, _parse_params, _unsupported
from kiln._manipulation import broadcast_shapes
from kiln._ufunc_methods import _reduce_axes

_DTYPES_OF_CTYPES = {c: d for d, c in _CTYPES.items()}


class ReductionKernel:
    """User-defined reduction kernel, as CuPy's ``cupy.ReductionKernel``.

    Each element of the broadcast (non-raw) inputs is mapped by ``map_expr`` (an
    expression of the input names) to a ``reduce_type`` value; values are
    combined by ``reduce_expr`` (of ``a`` and ``b``, starting from
    ``identity``, which must be an identity of the combine: the engine may
    use it several times per output); ``post_map_expr`` then sets the output
    (by its name) from the result ``a``. ``map_expr`` may also use ``_j``,
    the element's position among its output's reduced elements (C order
    over the reduced axes), and ``_i``, the flat C-order index of its
    output over the kept axes (0 for a full reduction; ``post_map_expr``
    may use it too).

    A ``raw`` input (``'T x, raw T w'``) takes a kiln.ndarray passed whole:
    it is not broadcast and not part of the reduction's shape, and
    ``map_expr`` and ``post_map_expr`` index it as ``w[k]``, ``k`` a flat
    C-order index over ``w``'s own shape (any layout; ``w.size()``,
    ``w.ndim`` and ``w.shape[d]`` as in ElementwiseKernel). So
    ``x * w[_j]`` weighs each reduced position and ``y = a + w[_i]``
    offsets each output. Indices are not checked.

    ``kernel(*inputs[, output], axis=None, keepdims=False, out=None,
    stream=None)`` reduces over ``axis`` (an int, a tuple, None for all);
    a full reduction gives a 0-d array. Type placeholders (one letter) are
    resolved from the output given, then the input arrays (raw ones too),
    then scalars; ``reduce_type`` is a dtype name, a C type kiln knows, or a
    placeholder (default: the output's type), and the placeholders are
    typedefs the expressions and ``preamble`` can use.

    Differs from CuPy: raw outputs are not supported (the one output is
    written by the engine, element by element), at most 4 non-raw inputs
    (and at least one), one output; ``reduce_dims`` is accepted and has no
    effect.
    """

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="", options=()):
        if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
            raise ValueError("Invalid kernel name: %r (it must be a C++ identifier)" % (name,))
        self.name = self.__name__ = name
        self.in_params = _parse_params(in_params, True, name)
        self.out_params = _parse_params(out_params, False, name)
        self.params = self.in_params + self.out_params
        if len(self.out_params) != 1:
            raise ValueError("%s: a ReductionKernel has exactly one output parameter" % name)
        if self.out_params[0].raw:
            raise NotImplementedError("%s: raw output parameter %r is not supported by kiln's ReductionKernel "
                                      "(raw inputs are)" % (name, self.out_params[0].name))
        if not 1 <= sum(not p.raw for p in self.in_params) <= 4:
            raise ValueError("%s: a ReductionKernel takes 1 to 4 non-raw input parameters (and any raw ones)" % name)
        names = [p.name for p in self.params]
        for n in names:
            if names.count(n) > 1 or n in ("a", "b", "out"):
                raise ValueError("%s: parameter name %r is used twice or is reserved ('a', 'b' and 'out' are "
                                 "the reduction's)" % (name, n))
        self.nin, self.nout, self.nargs = len(self.in_params), 1, len(self.params)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = identity
        self.reduce_type = reduce_type
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.options = tuple(options)
        self._specs = {}   # resolved dtypes of all params -> (_core._ReductionSpec, reduce dtype)

    def __repr__(self):
        return "<kiln.ReductionKernel %s>" % self.name

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        if len(args) == self.nargs:
            if out is not None:
                raise ValueError("%s: the output is given twice (as an argument and as out=)" % self.name)
            out = args[-1]
            args = args[:-1]
        elif len(args) != self.nin:
            raise TypeError("Wrong number of arguments for %r: it takes %d (inputs) or %d (with the output), got %d"
                            % (self.name, self.nin, self.nargs, len(args)))
        if out is not None and not isinstance(out, ndarray):
            raise TypeError("%s: the output must be a kiln.ndarray, got %s" % (self.name, type(out).__name__))
        for k, (p, a) in enumerate(zip(self.in_params, args)):
            if p.raw and _is_scalar(a):
                raise TypeError("%s: raw parameter %r takes a kiln.ndarray, got %s"
                                % (self.name, p.name, type(a).__name__))
            if not isinstance(a, ndarray) and not _is_scalar(a):
                raise _unsupported(self.name, k, a)
        dtypes = self._resolve(args, out)
        spec, _ = self._spec_for(dtypes)
        raws = [a for p, a in zip(self.in_params, args) if p.raw]
        arrays = [a if isinstance(a, ndarray) else _creation.asarray(numpy.asarray(a, dtype=dt))
                  for p, a, dt in zip(self.in_params, args, dtypes) if not p.raw]
        shape = broadcast_shapes(*(tuple(a.shape) for a in arrays))
        arrays = [_core._broadcast_to(a, shape) for a in arrays]
        axes = _reduce_axes(axis, len(shape))
        kept = tuple(n for d, n in enumerate(shape) if d not in axes)
        result_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keepdims else kept
        if out is not None and tuple(out.shape) != result_shape:
            raise ValueError("%s: out has shape %s, expected %s" % (self.name, tuple(out.shape), result_shape))
        result = _creation.empty(kept, dtypes[-1])
        if stream is None:
            _core._reduce(spec, arrays, list(axes), result, raws)
        else:
            with stream:
                _core._reduce(spec, arrays, list(axes), result, raws)
        result = result.reshape(result_shape)
        if out is None:
            return result
        copyto(out, result, casting="unsafe")
        return out

    def _resolve(self, args, out):
        """The dtype of every parameter: placeholders from the output given,
        then the input arrays (raw ones too), then the scalars (NumPy's
        result_type of their dtypes), as ElementwiseKernel resolves them."""
        resolved = {}

        def settle(p, dtype, what):
            if p.dtype is not None:
                if dtype != p.dtype:
                    raise TypeError("%s: type mismatch: %s %r is %s, but the parameter is %s"
                                    % (self.name, what, p.name, dtype, p.dtype))
            elif resolved.setdefault(p.ctype, dtype) != dtype:
                raise TypeError("%s: type mismatch: %s %r is %s, but placeholder %s is already %s"
                                % (self.name, what, p.name, dtype, p.ctype, resolved[p.ctype]))

        if out is not None:
            settle(self.out_params[0], out.dtype, "output")
        for p, a in zip(self.in_params, args):
            if isinstance(a, ndarray):
                settle(p, a.dtype, "input")
        from_scalars = {}
        for p, a in zip(self.in_params, args):
            if not isinstance(a, ndarray) and p.dtype is None and p.ctype not in resolved:
                from_scalars.setdefault(p.ctype, []).append(
                    a.dtype if isinstance(a, numpy.generic) else _PYTHON_SCALAR_DTYPES[type(a)])
        for placeholder, found in from_scalars.items():
            resolved[placeholder] = numpy.result_type(*found)
        dtypes = []
        for p in self.params:
            if p.dtype is not None:
                dtypes.append(p.dtype)
            elif p.ctype in resolved:
                dtypes.append(resolved[p.ctype])
            else:
                raise TypeError("%s: output type can't be determined: placeholder %s of %r appears in no input; "
                                "pass the output array" % (self.name, p.ctype, p.name))
        if out is None and dtypes[-1] not in _CTYPES:
            raise TypeError("%s: output dtype %s is not supported" % (self.name, dtypes[-1]))
        return tuple(dtypes)

    def _reduce_dtype(self, dtypes, resolved):
        t = self.reduce_type
        if t is None:
            return dtypes[-1]
        if t in resolved:
            return resolved[t]
        if t in _DTYPES_OF_CTYPES:
            return _DTYPES_OF_CTYPES[t]
        try:
            dtype = numpy.dtype(t)
        except TypeError:
            dtype = None
        if dtype not in _CTYPES:
            raise TypeError("%s: unknown reduce_type %r (a NumPy dtype name, a C type kiln knows such as "
                            "'float', or a type placeholder)" % (self.name, t))
        return dtype

    def _spec_for(self, dtypes):
        """The engine spec for these parameter dtypes (placeholders as
        typedefs after the preamble; the output bound by name to `out`)."""
        entry = self._specs.get(dtypes)
        if entry is None:
            resolved = {p.ctype: dt for p, dt in zip(self.params, dtypes) if p.dtype is None}
            acc = self._reduce_dtype(dtypes, resolved)
            typedefs = "".join("typedef %s %s;\n" % (_CTYPES[dt], placeholder)
                               for placeholder, dt in sorted(resolved.items()))
            typedefs += "typedef %s _type_reduce;\n" % _CTYPES[acc]
            out_param = self.out_params[0]
            out_ctype = _CTYPES[dtypes[-1]]
            post = "%s& %s = out;\n%s\n;" % (out_ctype, out_param.name, self.post_map_expr)
            spec = _core._ReductionSpec(self.name, [(p.name, _CTYPES[dt]) for p, dt in zip(self.in_params, dtypes)
                                                    if not p.raw],
                                        "(_type_reduce)(%s)" % self.map_expr, "(_type_reduce)(%s)" % self.reduce_expr,
                                        post, "(_type_reduce)(%s)" % self.identity, acc, out_ctype,
                                        preamble="#include <kiln/ufunc_math.h>\n" + self.preamble + "\n" + typedefs,
                                        options=list(self.options),
                                        raw_params=[(p.name, _CTYPES[dt]) for p, dt in zip(self.in_params, dtypes)
                                                    if p.raw])
            entry = self._specs[dtypes] = (spec, acc)
        return entry
