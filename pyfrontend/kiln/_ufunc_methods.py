"""The ufunc methods reduce, accumulate, outer and at.

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
from kiln._elementwise_kernel import _CTYPES
from kiln._ndarray_methods import _axis

# Note [Reorderable ufuncs], [Pairwise passes], [Identity as the start value],
# [Float16 reductions] and [fmax identity] live with the code they describe,
# in arraycore/reduce_apply.{h,cpp}: ufunc.reduce and the reductions on it are
# one C++ call (Note [Reduction calls] in pyfrontend/reduction_binding.cpp).
# The helpers below (_spec, _ctype, _operand, _single_out, _reduce_axes,
# _rows, _row_view, _literal, _where_operand, _check_out) serve the modules
# that still build their reductions and sorts in Python (_reductions' mean/var/
# arg-reductions, _sorting, _sets, _statistics_order, _reduction_kernel) until
# those move to C++ too.

_NO_VALUE = _core._no_value   # initial= not given (None means "no initial", as NumPy)
_INCLUDE = "#include <kiln/ufunc_math.h>\n"
_specs = {}            # (kind, ufunc name, dtypes...) -> _core._EwSpec


def _spec(key, params, operation):
    spec = _specs.get(key)
    if spec is None:
        spec = _core._EwSpec("_".join(str(k) for k in key), params, operation, preamble=_INCLUDE,
                             options=_core._EXACT_FP_OPTIONS)
        _specs[key] = spec
    return spec


def _ctype(dtype):
    return _CTYPES[numpy.dtype(dtype)]


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


def _rows(a, perm, m, n, dtype):
    """a's elements with axes permuted to `perm`, cast to dtype, as a
    C-contiguous (m, n) array (no copy when a already is one)."""
    t = _core._as_strided(a, tuple(a.shape[d] for d in perm), tuple(a.strides[d] for d in perm), 0)
    return t.astype(dtype, order="C", copy=False).reshape((m, n))


def _literal(value, dtype):
    """A C++ expression of dtype's C type with exactly the bits of `value`
    converted to dtype."""
    dtype = numpy.dtype(dtype)
    v = numpy.asarray(value).astype(dtype)[()]
    if dtype.kind == "b":
        return "true" if v else "false"
    if dtype.kind == "c":
        part = numpy.dtype("f%d" % (dtype.itemsize // 2))
        return "%s(%s, %s)" % (_ctype(dtype), _literal(v.real, part), _literal(v.imag, part))
    bits = int(v.view(numpy.dtype("u%d" % dtype.itemsize)))
    if dtype.kind in "iu":
        return "(%s)%dULL" % (_ctype(dtype), bits)
    return {2: "kiln::half::from_bits((unsigned short)%du)", 4: "kiln::detail::bits_float(%du)",
            8: "kiln::detail::bits_double(%dULL)"}[dtype.itemsize] % bits


def _where_operand(where, shape):
    """where= (a bool or a kiln array) as a kiln array broadcast to shape."""
    if isinstance(where, (bool, numpy.bool_)):
        where = _creation.asarray(numpy.bool_(where))
    elif not isinstance(where, ndarray):
        raise _host_operand_error(where)
    return _core._broadcast_to(where, shape)


def _check_out(uf, out, shape, keepdims, ndim):
    if out.ndim != len(shape):
        raise ValueError("output parameter for reduction operation %s has the wrong number of dimensions: Found %d "
                         "but expected %d%s" % (uf.__name__, out.ndim, len(shape),
                                                " (must match the operand's when keepdims=True)" if keepdims else ""))
    if tuple(out.shape) != tuple(shape):
        raise ValueError("output parameter for reduction operation %s has shape %s, expected %s"
                         % (uf.__name__, tuple(out.shape), tuple(shape)))


def _row_view(a, perm, m, n):
    """a with axes permuted to `perm` as an (m, n) view, the last axis of perm
    scanned, or None when the other axes do not merge into one stride."""
    kept = [d for d in perm[:-1] if a.shape[d] != 1]
    for d, e in zip(kept, kept[1:]):
        if a.strides[d] != a.strides[e] * a.shape[e]:
            return None
    return _core._as_strided(a, (m, n), (a.strides[kept[-1]] if kept else 0, a.strides[perm[-1]]), 0)


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
        b = _operand(b) if not isinstance(b, (bool, int, float, complex)) else _creation.asarray(numpy.asarray(b))
    positions = _flat_positions(tuple(a.shape), _host_index(indices))
    _core._ufunc_at(self, a, _creation.asarray(positions), b)   # arraycore/ufunc_at.h: loop, casts, kernel


_core.ufunc.outer = outer
_core.ufunc.at = at
