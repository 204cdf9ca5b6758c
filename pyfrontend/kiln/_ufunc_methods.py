"""The ufunc methods reduce, accumulate, reduceat, outer and at, and ufunc.name.

    kiln.add.reduce(a, axis=(0, 2), keepdims=True)       # the reduction engine
    kiln.maximum.reduce(a, axis=None, initial=0, where=mask)
    kiln.subtract.accumulate(a, axis=1)                  # one thread per row
    kiln.multiply.outer(a, b)                            # a[..., None, ...] * b
    kiln.add.at(a, [0, 0, 2], b)                         # repeated indices accumulate

ufunc.reduce and ufunc.accumulate are C++ (arraycore/reduce_apply.h,
scan_apply.h, bound in pyfrontend/reduction_binding.cpp, scan_binding.cpp);
importing this module attaches outer and at to kiln.ufunc. Semantics (result
dtypes, errors, identities, initial=, where=) are NumPy 2.4's. Reorderable
reductions run on the reduction engine, reorderable scans on the scan
engine, the rest on elementwise-engine launches, all generated from the
ufunc's device function kiln::ufn::<name>.
"""
import math
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln._core import ndarray
from kiln._ndarray_methods import _axis

# Note [Reorderable ufuncs], [Pairwise passes], [Identity as the start value],
# [Float16 reductions] and [fmax identity] live with the code they describe,
# in arraycore/reduce_apply.{h,cpp}: ufunc.reduce and the reductions on it are
# one C++ call (Note [Reduction calls] in pyfrontend/reduction_binding.cpp).
# The helpers below (_operand, _single_out, _loop_dtype, _reduce_axes,
# _check_out) serve the Python modules that check arguments as the ufunc
# methods do (_reductions, _scans, _reduction_kernel, linalg ...).

_NO_VALUE = _core._no_value   # initial= not given (None means "no initial", as NumPy)


def _host_operand_error(obj):
    return TypeError("Unsupported type %s: kiln ufuncs and operators take kiln arrays and scalars; move host "
                     "data to the device with kiln.asarray() first" % type(obj))


def _operand(obj):
    """A kiln array for an array argument: kiln arrays as they are, Python and
    NumPy scalars as 0-d arrays; host arrays and lists raise TypeError."""
    if isinstance(obj, ndarray):
        return obj
    if isinstance(obj, (bool, int, float, complex, numpy.generic)):
        return _creation.asarray(obj)
    raise _host_operand_error(obj)


def _check_arity(uf):
    if uf.nin != 2:
        raise ValueError("outer product only supported for binary functions")


def _single_out(out, method):
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("%s: out must be a kiln.ndarray, got %s" % (method, type(out).__name__))
    return out


def _loop_dtype(uf, dtype, requested, out):
    """The dtype a reduction or scan runs in (arraycore's reduction_loop_dtype):
    the loop (t, t) -> t NumPy picks for operands (out's dtype or, without out,
    `dtype`; `dtype`) under `requested` (dtype=)."""
    return _core._reduction_loop_dtype(uf, dtype, requested, None if out is None else out.dtype)


def _reduce_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    if ndim == 0 and operator.index(axis) in (0, -1):
        return ()   # NumPy accepts axis 0 (the default) and -1 on 0-d operands
    return (_axis(axis, ndim),)


def _check_out(uf, out, shape, keepdims, ndim):
    if out.ndim != len(shape):
        raise ValueError("output parameter for reduction operation %s has the wrong number of dimensions: Found %d "
                         "but expected %d%s" % (uf.__name__, out.ndim, len(shape),
                                                " (must match the operand's when keepdims=True)" if keepdims else ""))
    if tuple(out.shape) != tuple(shape):
        raise ValueError("output parameter for reduction operation %s has shape %s, expected %s"
                         % (uf.__name__, tuple(out.shape), tuple(shape)))


def outer(self, A, B, **kwargs):
    """The ufunc over every pair (A[i...], B[j...]): result shape A.shape +
    B.shape, as numpy.ufunc.outer; keyword arguments go to the ufunc."""
    _check_arity(self)
    # NumPy's outer makes arrays of its operands: a Python scalar is strong
    # here (add.outer(int8_array, 5) is int64), a NumPy scalar of its default dtype.
    A, B = (numpy.asarray(v)[()] if isinstance(v, (bool, int, float, complex)) else v for v in (A, B))
    if isinstance(A, ndarray):
        A = A.reshape(tuple(A.shape) + (1,) * (B.ndim if isinstance(B, ndarray) else 0))
    return self(A, B, **kwargs)   # host arrays raise the ufunc's TypeError


def _flat_positions(shape, indices):
    """The flat C-order positions a[indices] selects in an array of `shape`,
    in NumPy's order (its shape is a[indices].shape), with NumPy's index rules:
    negative indices wrap, out-of-bounds ones raise IndexError, bool arrays are
    masks. Each axis's coordinate is read through a zero-strided view, so the
    cost is that of the selection, not of the array."""
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    total = None
    for d, n in enumerate(shape):
        coord = numpy.arange(n, dtype=numpy.int64).reshape((n,) + (1,) * (len(shape) - d - 1))
        picked = numpy.broadcast_to(coord, shape)[indices] * strides[d]
        total = picked if total is None else total + picked
    if total is None:   # 0-d array: a[()] or a[...] selects its one element
        return numpy.zeros(numpy.empty(())[indices].shape, numpy.int64)
    return numpy.asarray(total, dtype=numpy.int64)


def _host_index(indices):
    """indices with kiln arrays (also inside a tuple) downloaded."""
    if isinstance(indices, ndarray):
        return _creation.asnumpy(indices)
    if isinstance(indices, tuple):
        return tuple(_host_index(i) for i in indices)
    return indices


def at(self, a, indices, b=None):
    """In place a[indices] = ufunc(a[indices], b), unbuffered: an element
    indexed k times is updated k times, in index order (numpy.ufunc.at).

    Indices may be kiln arrays, NumPy arrays, lists, ints, slices, Ellipsis,
    None or tuples of those, with NumPy's indexing rules; they are read on the
    host, so kiln-array indices cost a download. The updates run in one
    thread, sequentially in index order: O(number of updates) serial time on
    the device, not parallel (fine for small index sets; the scatter
    reductions of issue 5 will be parallel). b is a kiln array or a scalar
    (a Python scalar is an array of its default dtype here, as in NumPy's
    at); each update computes as the ufunc's call does, which for complex
    multiply can differ in the last bit from NumPy's at (NumPy's at runs a
    scalar loop whose rounding differs from its own ufunc call)."""
    if self.nout != 1:
        raise ValueError("Only single output ufuncs supported at this time")
    if not isinstance(a, ndarray):
        raise _host_operand_error(a)
    if self.nin == 1 and b is not None:
        raise ValueError("second operand provided when ufunc is unary")
    if self.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if self.nin > 2:
        raise ValueError("at only supported for unary and binary ufuncs")
    if b is not None:
        # A NumPy array b is uploaded, as CuPy's at does (its scatter tests pass them).
        host = isinstance(b, (bool, int, float, complex, numpy.ndarray))
        b = _creation.asarray(numpy.asarray(b)) if host else _operand(b)
    positions = _flat_positions(tuple(a.shape), _host_index(indices))
    _core._ufunc_at(self, a, _creation.asarray(positions), b)   # arraycore/ufunc_at.h: loop, casts, kernel


def reduceat(self, array, indices, axis=0, dtype=None, out=None):
    """numpy.ufunc.reduceat: along ``axis``, the reduction of
    array[indices[i]:indices[i + 1]] for each i (array[indices[i]] alone
    where indices[i] >= indices[i + 1]; the last slice runs to the end), in
    the dtype self.reduce would use. The indices are read on the host; each
    slice's first element is gathered and the others are combined into it
    with ufunc.at, in index order (serially on the device, as at)."""
    if self.nin != 2 or self.nout != 1:
        raise ValueError("reduceat only supported for binary functions")
    a = _operand(array)
    axis = _axis(axis, a.ndim)
    idx = numpy.asarray(_host_index(indices))
    if idx.ndim != 1:
        raise ValueError("setting an array element with a sequence. The requested array would exceed the maximum "
                         "number of dimension of 1.")
    idx, n = idx.astype(numpy.intp), a.shape[axis]
    for i in idx.tolist():
        if not 0 <= i < n:
            raise IndexError("index %d out-of-bounds in %s.reduceat [0, %d)" % (i, self.__name__, n))
    moved = _core.moveaxis(a, axis, -1)
    # The result is a new C-contiguous array (NumPy's layout for a C-contiguous
    # operand); the work below writes it through a view with `axis` last.
    shape = tuple(a.shape[:axis]) + (len(idx),) + tuple(a.shape[axis + 1:])
    result = _core.empty(shape, _loop_dtype(self, a.dtype, dtype, out))
    work = _core.moveaxis(result, axis, -1)
    work[...] = moved[..., idx]
    ends = idx.tolist()[1:] + [n]
    spans = [(k, s, e) for k, (s, e) in enumerate(zip(idx.tolist(), ends)) if e > s + 1]
    if spans:
        segment = numpy.concatenate([numpy.full(e - s - 1, k) for k, s, e in spans])
        position = numpy.concatenate([numpy.arange(s + 1, e) for _, s, e in spans])
        self.at(work, (Ellipsis, segment), moved[..., position])
    if out is None:
        return result
    out[...] = result
    return out


_core.ufunc.outer = outer
_core.ufunc.at = at
_core.ufunc.reduceat = reduceat
_core.ufunc.name = property(lambda self: self.__name__, doc="The ufunc's name (numpy.ufunc.name).")
