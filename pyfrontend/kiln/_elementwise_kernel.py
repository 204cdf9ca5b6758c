"""kiln.ElementwiseKernel: a loop body in CUDA C++ applied to every element,
with CuPy's API (docs/elementwise.md).

    squared_diff = kiln.ElementwiseKernel(
        'T x, T y', 'T z', 'z = (x - y) * (x - y)', 'squared_diff')
    z = squared_diff(kiln.arange(6.0).reshape(2, 3), 2.0)   # broadcast, scalar, z allocated
    squared_diff(x, y, z)                                    # outputs passed after the inputs

The parameter lists are parsed once, at construction, and a call's types are
resolved, by the kernel template (arraycore/kernel_template.h). A call is C++
(_core._ElementwiseKernelBase, Note [ElementwiseKernel warm calls] in
pyfrontend/elementwise_binding.cpp): it looks its argument kinds up in the
kernel's plans (types resolved, the engine spec, how each scalar is
converted), and makes a plan for a new combination of kinds. The generated
kernels come from the elementwise engine (arraycore/elementwise.h, Note
[Elementwise kernels]).
"""
import collections

import numpy

from kiln import _core

# C++ spelling of each dtype in generated code: the dtype table's
# (arraycore/dtype.cpp), the one kiln keeps; by dtype name (bfloat16 is
# ml_dtypes', which NumPy knows only once it is imported).
_CTYPES = {name: c_type for name, _kind, _char, _itemsize, c_type in _core._dtype_table()}

Param = collections.namedtuple("Param", "name dtype ctype raw is_const")
Param.__doc__ = """One parameter: ``dtype`` is None for a type placeholder, whose
one-character name is then ``ctype``; otherwise ``ctype`` is its C++ type."""


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
        _core._ElementwiseKernelBase.__init__(
            self, name, in_params, out_params, operation, preamble=preamble, loop_prep=loop_prep,
            after_loop=after_loop, options=list(options), outputs_write_only=self._outputs_write_only,
            no_return=no_return, return_tuple=return_tuple)
        self.name = self.__name__ = name
        self.params = tuple(Param(*p) for p in self._template_params)
        self.nin = sum(p.is_const for p in self.params)
        self.nout = len(self.params) - self.nin
        self.nargs = len(self.params)
        self.in_params, self.out_params = self.params[:self.nin], self.params[self.nin:]
        self.operation = operation
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self.options = tuple(options)
        self.no_return = no_return
        self.return_tuple = return_tuple

    def __repr__(self):
        return "<kiln.ElementwiseKernel %s>" % self.name
