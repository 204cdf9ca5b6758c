"""kiln.ReductionKernel: a map-reduce written in CUDA C++ expressions, with
CuPy's API, run by the reduction engine (arraycore/reduction.h).

    l2norm = kiln.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')
    l2norm(kiln.arange(10, dtype=kiln.float32).reshape(2, 5), axis=1)   # array([ 5.477226 , 15.9687195], ...)

    wsum = kiln.ReductionKernel('T x, raw T w', 'T y', 'x * w[_j]', 'a + b', 'y = a', '0', 'wsum')
    wsum(kiln.arange(10, dtype=kiln.float32).reshape(2, 5),     # raw w: passed whole, w[_j] weighs
         kiln.asarray([1, 0, 2, 0, 1], dtype=kiln.float32), axis=1)  # column _j: array([ 8., 28.], ...)

The parameter lists are parsed, and a call's types resolved, by the kernel
template (arraycore/kernel_template.h), as ElementwiseKernel's; the engine spec
comes from there too (reduction_kernel_spec).
"""
import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._core import ndarray
from kiln._elementwise_kernel import Param
from kiln._manipulation import broadcast_shapes
from kiln._ufunc_methods import _reduce_axes


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
        self._template = _core._ReductionKernelTemplate(
            name, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, reduce_type=reduce_type,
            preamble=preamble, options=list(options))
        self.name = self.__name__ = name
        self.params = tuple(Param(*p) for p in self._template.params)
        self.in_params, self.out_params = self.params[:-1], self.params[-1:]
        self.nin, self.nout, self.nargs = len(self.in_params), 1, len(self.params)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = identity
        self.reduce_type = reduce_type
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.options = tuple(options)

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
        # Checks the arguments too, and converts other libraries' device arrays.
        spec, dtypes, args = self._template.resolve(args, out)
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
