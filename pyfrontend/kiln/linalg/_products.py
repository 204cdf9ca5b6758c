"""The matrix-product family: matmul (and ``@``), dot, vdot, inner, outer,
tensordot, kron, vecdot, matvec, vecmat. Argument normalisation only: 1-D promotion, batch
broadcasting (stride-0 views), NumPy's result dtype and casting checks, and
NumPy's errors; every product runs in kiln._core._matmul_into (the matmul
engine, arraycore/matmul.h: cuBLAS or kiln's own tiled kernel, Note [Matmul
paths]). outer and kron are products of broadcast views through
kiln.multiply, as NumPy defines them. matmul, vecdot and ``@`` take
operands as kiln's ufuncs do (kiln arrays and scalars; host arrays are a
TypeError, never uploaded implicitly); the other functions take host data
as kiln's functions do.

    c = kiln.matmul(a, b)              # a @ b, batched and broadcast
    kiln.dot(a, b, out=c)              # NumPy's dot, out C-contiguous of the result dtype
    kiln.tensordot(a, b, axes=([1, 0], [0, 1]))
"""
import numbers
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln._core import ndarray
from kiln._creation import _broadcast_view

_MATMUL_SIG = "(n?,k),(k,m?)->(n?,m?)"
_VECDOT_SIG = "(n),(n)->()"
_MATVEC_SIG = "(m,n),(n)->(m)"
_VECMAT_SIG = "(n),(n,m)->(m)"
_HOST_SCALARS = (numbers.Number, numpy.generic, bool)


def _operand(x):
    """A kiln array for x: itself, or uploaded host data (lists, NumPy arrays,
    scalars), or a view of another library's device array."""
    if isinstance(x, ndarray):
        return x
    return _creation.asarray(x)


def _view(a, shape, strides):
    return _core._as_strided(a, tuple(shape), tuple(strides), 0)


def _dtype_error(name, x1, x2):
    return _core._UFuncNoLoopError(
        "ufunc '%s' did not contain a loop with signature matching types (%r, %r) -> None"
        % (name, x1.dtype, x2.dtype))


def _check_input_casts(name, arrays, dtype, casting):
    for i, a in enumerate(arrays):
        if not numpy.can_cast(a.dtype, dtype, casting):
            raise _core._UFuncInputCastingError(
                "Cannot cast ufunc '%s' input %d from %r to %r with casting rule %r"
                % (name, i, a.dtype, dtype, casting))


def _single_out(out):
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        out = out[0]
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    return out


def _product(a, b, dtype, out_full):
    """a (..., m, k) @ b (..., k, n), both of `dtype` after a cast, their batch
    axes already of one shape; the result in out_full (a kiln array of the
    full (..., m, n) shape and dtype) or a new C-order array."""
    if a.dtype != dtype:
        a = a.astype(dtype)
    if b.dtype != dtype:
        b = b.astype(dtype)
    if out_full is None:
        out_full = _core.empty(a.shape[:-1] + b.shape[-1:], dtype)
    if a.shape[-2] == 1 and b.shape[-1] == 1 and out_full.size:
        _dots_by_reduction(a, b, dtype, out_full)
    else:
        _core._matmul_into(a, b, out_full)
    return out_full


# Note [Dot products by reduction]
# Products whose every output is one dot product (1 x 1 matrices: dot and
# inner of vectors, vdot, vecdot, batches of them) are a multiply and a
# sum over k through kiln's reduction engine instead of the matmul engine,
# whose 64 x 64 tiles would spend a block on each output and walk a long k
# with one block. The results are NumPy's: integers wrap identically
# (multiply and add modulo 2^bits, in any order), bool is OR of ANDs
# (sum with dtype=bool), float16 is multiplied (exactly) and summed in
# float32 then rounded once, as NumPy's matmul; float sums are the
# reduction engine's pairwise-or-better sums, inside Note [Product
# tolerances]' bound.
def _dots_by_reduction(a, b, dtype, out_full):
    from kiln import _reductions
    k = a.shape[-1]
    x = _view(a, a.shape[:-2] + (k,), a.strides[:-2] + (a.strides[-1],))
    y = _view(b, b.shape[:-2] + (k,), b.strides[:-2] + (b.strides[-2],))
    acc = numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype
    if acc != dtype:
        x, y = x.astype(acc), y.astype(acc)
    total = _reductions.sum(_multiply(x, y), axis=-1, dtype=acc)
    _copy(total, _view(out_full, out_full.shape[:-2], out_full.strides[:-2]))


def _ufunc_operand(x):
    """matmul's and vecdot's operands follow kiln's ufunc rule (ufunc_binding.cpp):
    kiln arrays, scalars and other libraries' device arrays; host arrays and
    sequences are refused, never uploaded behind the caller's back."""
    if isinstance(x, ndarray):
        return x
    if isinstance(x, _HOST_SCALARS) or hasattr(x, "__cuda_array_interface__"):
        return _creation.asarray(x)
    raise TypeError("Unsupported type %s: kiln ufuncs and operators take kiln arrays and scalars; move host data "
                    "to the device with kiln.asarray() first" % type(x))


def _gufunc_operands(name, x1, x2, sig):
    a, b = _ufunc_operand(x1), _ufunc_operand(x2)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError("%s: Input operand %d does not have enough dimensions (has 0, gufunc core with "
                             "signature %s requires 1)" % (name, i, sig))
    return a, b


def _batch_shape(a, b, core_a, core_b, core_out):
    """The broadcast of a's and b's batch axes (all but core_a / core_b last
    axes), with NumPy's message when they do not broadcast."""
    sa, sb = a.shape[:a.ndim - core_a], b.shape[:b.ndim - core_b]
    try:
        return _manipulation.broadcast_shapes(sa, sb)
    except ValueError:
        def remap(shape, core):
            kept = list(map(str, shape[:len(shape) - core])) + ["newaxis"] * core
            return "(%s)->(%s)" % (",".join(map(str, shape)), ",".join(kept))
        raise ValueError("operands could not be broadcast together with remapped shapes [original->remapped]: "
                         "%s %s  and requested shape (%s)"
                         % (remap(a.shape, core_a), remap(b.shape, core_b), ",".join(map(str, core_out)))) from None


def matmul(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True, axes=None, axis=None,
           keepdims=False):
    """The matrix product of x1 and x2 (numpy.matmul, the ``@`` operator).

    1-D operands are promoted to matrices (a row for x1, a column for x2) and
    the added axis is removed from the result; axes before the last two are
    batch axes, broadcast against each other. Integer and bool products are
    exact in their own dtype (integers wrap around on overflow, as NumPy's);
    float16 is summed in float32; float32 keeps float32 precision unless
    kiln.config.allow_tf32 (docs/linalg.md). ``axes`` names the core axes
    of each operand and of the result, as for NumPy's gufuncs (Note [Gufunc
    axes]). ``order`` and ``subok`` are accepted for NumPy compatibility; the
    result is C-ordered."""
    out = _single_out(out)
    a, b = x1, x2
    if (type(a) is ndarray and type(b) is ndarray and out is None and dtype is None and a.ndim == 2
            and b.ndim == 2 and a.dtype == b.dtype and a.shape[1] == b.shape[0] and axes is None and axis is None
            and not keepdims):
        # The common case, without the general path's views and checks.
        c = _core.empty((a.shape[0], b.shape[1]), a.dtype)
        _core._matmul_into(a, b, c)
        return c
    a, b = _gufunc_operands("matmul", a, b, _MATMUL_SIG)
    if axes is not None or axis is not None or keepdims:
        cores = (min(a.ndim, 2), min(b.ndim, 2), (a.ndim > 1) + (b.ndim > 1))
        return _on_core_axes(matmul, "matmul", _MATMUL_SIG, cores, 3, a, b, out, axes, axis, keepdims,
                             casting=casting, dtype=dtype)
    a2 = _view(a, (1,) + a.shape, (0,) + a.strides) if a.ndim == 1 else a
    b2 = _view(b, b.shape + (1,), b.strides + (0,)) if b.ndim == 1 else b
    return _matrix_product("matmul", _MATMUL_SIG, a2, b2, a.ndim > 1, b.ndim > 1, out, casting, dtype)


def _matrix_product(name, sig, a2, b2, keep_m, keep_n, out, casting, dtype):
    """The gufunc `name` (matmul, matvec, vecmat) as a2 (..., m, k) @ b2
    (..., k, n), the result's m (n) axis dropped unless keep_m (keep_n):
    NumPy's dtype, casting, broadcasting and out= rules and messages."""
    if not (_core._kiln_dtype(a2.dtype) and _core._kiln_dtype(b2.dtype)):
        raise _dtype_error(name, a2, b2)
    rdtype = numpy.result_type(a2.dtype, b2.dtype) if dtype is None else numpy.dtype(dtype)
    _check_input_casts(name, (a2, b2), rdtype, casting)
    m, k = a2.shape[-2:]
    if b2.shape[-2] != k:
        raise ValueError("%s: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         "%s (size %d is different from %d)" % (name, sig, b2.shape[-2], k))
    n = b2.shape[-1]
    batch = _batch_shape(a2, b2, 2, 2, (m, n))
    shape = batch + ((m,) if keep_m else ()) + ((n,) if keep_n else ())
    full = batch + (m, n)
    target = None
    if out is not None:
        if out.ndim < len(shape) - len(batch) or out.shape[out.ndim - (len(shape) - len(batch)):] != \
                shape[len(batch):]:
            core = shape[len(batch):]
            got = out.shape[out.ndim - len(core):] if len(core) else ()
            for i, (want, have) in enumerate(zip(core, got)):
                if want != have:
                    raise ValueError("%s: Output operand 0 has a mismatch in its core dimension %d, with gufunc "
                                     "signature %s (size %d is different from %d)" % (name, i, sig, have, want))
            raise ValueError("%s: Output operand 0 does not have enough dimensions (has %d, gufunc core with "
                             "signature %s requires %d)" % (name, out.ndim, sig, len(core)))
        if out.shape != shape:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match the broadcast shape %s"
                             % (out.shape, shape))
        if not numpy.can_cast(rdtype, out.dtype, casting):
            raise _core._UFuncOutputCastingError(
                "Cannot cast ufunc '%s' output from %r to %r with casting rule %r" % (name, rdtype, out.dtype, casting))
        if out.dtype == rdtype:   # written in place: out seen with the full (..., m, n) shape
            strides = out.strides[:len(batch)] + (out.strides[len(batch)] if keep_m else 0,) + \
                (out.strides[-1] if keep_n else 0,)
            target = _view(out, full, strides)
    res = _product(_broadcast_view(a2, batch + (m, k)), _broadcast_view(b2, batch + (k, n)), rdtype, target)
    if out is not None:
        if target is None:
            _copy(_manipulation.reshape(res, shape), out)
        return out
    if not (keep_m and keep_n):
        res = res.reshape(shape)
    return res


def _core_operands(name, sig, x1, x2, cores):
    """matvec's and vecmat's operands, each with at least its core dimensions."""
    a, b = _gufunc_operands(name, x1, x2, sig)
    for i, (x, c) in enumerate(((a, cores[0]), (b, cores[1]))):
        if x.ndim < c:
            raise ValueError("%s: Input operand %d does not have enough dimensions (has %d, gufunc core with "
                             "signature %s requires %d)" % (name, i, x.ndim, sig, c))
    return a, b


def matvec(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True, axes=None, axis=None,
           keepdims=False):
    """numpy.matvec: matrix x1 (..., m, n) times vector x2 (..., n), giving
    (..., m); batch axes broadcast, as matmul's (its engine, dtypes and
    out= rules; no conjugation). ``axes`` as for NumPy's gufuncs."""
    out = _single_out(out)
    a, b = _core_operands("matvec", _MATVEC_SIG, x1, x2, (2, 1))
    if axes is not None or axis is not None or keepdims:
        return _on_core_axes(matvec, "matvec", _MATVEC_SIG, (2, 1, 1), 2, a, b, out, axes, axis, keepdims,
                             casting=casting, dtype=dtype)
    b2 = _view(b, b.shape + (1,), b.strides + (0,))
    return _matrix_product("matvec", _MATVEC_SIG, a, b2, True, False, out, casting, dtype)


def vecmat(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True, axes=None, axis=None,
           keepdims=False):
    """numpy.vecmat: the conjugate of vector x1 (..., n) times matrix x2
    (..., n, m), giving (..., m); batch axes broadcast, as matmul's.
    ``axes`` as for NumPy's gufuncs."""
    out = _single_out(out)
    a, b = _core_operands("vecmat", _VECMAT_SIG, x1, x2, (1, 2))
    if axes is not None or axis is not None or keepdims:
        return _on_core_axes(vecmat, "vecmat", _VECMAT_SIG, (1, 2, 1), 2, a, b, out, axes, axis, keepdims,
                             casting=casting, dtype=dtype)
    if a.dtype.kind == "c":
        a = _core._ufuncs["conjugate"](a)
    a2 = _view(a, a.shape[:-1] + (1,) + a.shape[-1:], a.strides[:-1] + (0,) + a.strides[-1:])
    return _matrix_product("vecmat", _VECMAT_SIG, a2, b, False, True, out, casting, dtype)


# Note [Gufunc axes]
# NumPy's gufunc keywords, for matmul, matvec, vecmat and vecdot: ``axes``
# lists, for each operand and then the result, which of its axes are the
# core axes (a tuple, or an int for one core axis; the result's entry may
# be left out when it has none); ``axis`` is short for the same axis in
# every operand, allowed only where the signature has one core dimension
# (vecdot); ``keepdims`` keeps a reduced core axis in the result as size 1
# (vecdot only). Each is carried out with views: the operands' core axes
# moved last, the gufunc called as usual, and the result's core axes moved
# to their place (or ``out`` seen with its core axes last before the call).
def _on_core_axes(fn, name, sig, cores, distinct, a, b, out, axes, axis, keepdims, **kwargs):
    """fn(a, b, out, **kwargs) under the keywords of Note [Gufunc axes];
    ``cores`` are the core dimension counts of a, b and the result,
    ``distinct`` the number of distinct core dimensions in ``sig``."""
    if keepdims and (cores[2] or cores[0] != cores[1]):
        raise TypeError("%s does not support keepdims: its signature %s requires output 0 to have %d core "
                        "dimensions, but keepdims can only be used when all inputs have the same number of core "
                        "dimensions and all outputs have no core dimensions." % (name, sig, cores[2]))
    out_core = cores[0] if keepdims else cores[2]
    if axis is not None:
        if axes is not None:
            raise TypeError("cannot specify both 'axis' and 'axes'")
        if distinct != 1:
            raise TypeError("%s: axis can only be used with a single shared core dimension, not with the %d distinct "
                            "ones implied by signature %s." % (name, distinct, sig))
        axes = [(axis,), (axis,)]
    elif axes is None:
        axes = [tuple(range(-c, 0)) for c in cores[:2]]
    elif not isinstance(axes, list):
        raise TypeError("axes should be a list.")
    if len(axes) == 2 and cores[2] == 0:
        axes = list(axes) + [axes[0] if keepdims else ()]
    if len(axes) != 3:
        raise ValueError("axes should be a list with an entry for all 3 inputs and outputs; entries for outputs can "
                         "only be omitted if none of them has core axes.")
    batch_ndim = max(a.ndim - cores[0], b.ndim - cores[1])
    ndims = (a.ndim, b.ndim, out.ndim if out is not None else batch_ndim + out_core)
    places = []
    for i, (item, c, nd) in enumerate(zip(axes, cores[:2] + (out_core,), ndims)):
        if not isinstance(item, tuple):
            if c != 1:
                raise numpy.exceptions.AxisError("%s: operand %d has %d core dimensions, but the axes item is a "
                                                 "single integer." % (name, i, c))
            item = (item,)
        if len(item) != c:
            raise numpy.exceptions.AxisError("%s: operand %d has %d core dimensions, but %d dimensions are specified "
                                             "by axes tuple." % (name, i, c, len(item)))
        place = [_manipulation._axis(x, nd) for x in item]
        for x in place:
            if place.count(x) > 1:
                raise ValueError("axes item %d has value %d repeated" % (i, x))
        places.append(place)

    def core_last(x, place):
        return _manipulation.moveaxis(x, place, list(range(x.ndim - len(place), x.ndim)))

    a, b = core_last(a, places[0]), core_last(b, places[1])
    if out is not None:
        target = core_last(out, places[2])
        if keepdims:
            if target.shape[-1] != 1:
                raise ValueError("%s: Output operand 0 has a mismatch in its core dimension 0, with gufunc signature "
                                 "%s (size %d is different from 1)" % (name, sig, target.shape[-1]))
            target = _view(target, target.shape[:-1], target.strides[:-1])
        fn(a, b, out=target, **kwargs)
        return out
    res = fn(a, b, **kwargs)
    if keepdims:
        res = _view(res, res.shape + (1,), res.strides + (0,))
    return _manipulation.moveaxis(res, list(range(res.ndim - out_core, res.ndim)), places[2])


def _not_aligned(a, b, dim_a, dim_b):
    return ValueError("shapes %s and %s not aligned: %d (dim %d) != %d (dim %d)"
                      % (_shape_text(a.shape), _shape_text(b.shape), a.shape[dim_a], dim_a, b.shape[dim_b], dim_b))


def _shape_text(shape):
    return "(%s)" % (",".join(map(str, shape)) + ("," if len(shape) == 1 else ""))


def _multiply(a, b, out=None):
    from kiln import _core as c
    mul = c._ufuncs["multiply"]
    return mul(a, b) if out is None else mul(a, b, out=out)


def dot(a, b, out=None):
    """numpy.dot: a 0-d operand multiplies; 1-D with 1-D is the inner
    product; otherwise the sum over a's last axis and b's second-to-last
    (b's only axis when 1-D): result shape a.shape[:-1] + b.shape[:-2] +
    b.shape[-1:]. ``out`` must be a C-contiguous kiln array of exactly the
    result's dtype and shape, as NumPy demands."""
    a, b = _operand(a), _operand(b)
    out = _single_out(out)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b, out)
    if not (_core._kiln_dtype(a.dtype) and _core._kiln_dtype(b.dtype)):
        raise _dtype_error("dot", a, b)
    rdtype = numpy.result_type(a.dtype, b.dtype)
    kb = 0 if b.ndim == 1 else b.ndim - 2
    k = a.shape[-1]
    if b.shape[kb] != k:
        raise _not_aligned(a, b, a.ndim - 1, kb)
    shape = a.shape[:-1] + b.shape[:kb] + b.shape[kb + 1:]
    if out is not None:
        if out.dtype != rdtype or out.shape != shape or not out.flags.c_contiguous:
            raise ValueError("output array is not acceptable (must have the right datatype, number of dimensions, "
                             "and be a C-Array)")
        res = out
    else:
        res = _core.empty(shape, rdtype)
    ma = 1
    for n in a.shape[:-1]:
        ma *= n
    nb = 1 if b.ndim == 1 else b.shape[-1]
    pb = 1
    for n in b.shape[:kb]:
        pb *= n
    # a as (ma, k), b as pb matrices (k, nb); res (ma, pb, nb) C-order, seen as (pb, ma, nb).
    a2 = _manipulation.reshape(a, (ma, k))
    b3 = _manipulation.reshape(b, (pb, k, nb)) if b.ndim > 1 else _view(b, (1, k, 1), (0, b.strides[0], 0))
    item = res.itemsize
    target = _view(res, (pb, ma, nb), (nb * item, pb * nb * item, item))
    _product(_broadcast_view(a2, (pb, ma, k)), b3, rdtype, target)
    return res


def vdot(a, b, /):
    """numpy.vdot: the dot product of a and b flattened (C order), the
    first conjugated when complex; a 0-d array."""
    a, b = _operand(a), _operand(b)
    a = _manipulation.ravel(a)
    b = _manipulation.ravel(b)
    if a.shape != b.shape:
        raise ValueError("cannot reshape array of size %d into shape (%d,)" % (b.size, a.size))
    if a.dtype.kind == "c":
        a = _core._ufuncs["conjugate"](a)
    return dot(a, b)


def inner(a, b, /):
    """numpy.inner: the sum over the last axes of a and b (a 0-d operand
    multiplies); result shape a.shape[:-1] + b.shape[:-1]."""
    a, b = _operand(a), _operand(b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b)
    if not (_core._kiln_dtype(a.dtype) and _core._kiln_dtype(b.dtype)):
        raise _dtype_error("inner", a, b)
    k = a.shape[-1]
    if b.shape[-1] != k:
        raise _not_aligned(a, b, a.ndim - 1, b.ndim - 1)
    rdtype = numpy.result_type(a.dtype, b.dtype)
    shape = a.shape[:-1] + b.shape[:-1]
    res = _core.empty(shape, rdtype)
    ma = _size(a.shape[:-1])
    mb = _size(b.shape[:-1])
    a2 = _manipulation.reshape(a, (1, ma, k))
    b2 = _manipulation.reshape(b, (mb, k))
    bt = _view(b2, (1, k, mb), (0, b2.strides[1], b2.strides[0]))
    item = res.itemsize
    _product(a2, bt, rdtype, _view(res, (1, ma, mb), (0, mb * item, item)))
    return res


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def outer(a, b, out=None):
    """numpy.outer: out[i, j] = a.ravel()[i] * b.ravel()[j] (kiln.multiply
    of broadcast views, so the dtype is multiply's)."""
    a, b = _operand(a), _operand(b)
    a = _manipulation.ravel(a)
    b = _manipulation.ravel(b)
    return _multiply(_view(a, (a.size, 1), (a.strides[0], 0)), _view(b, (1, b.size), (0, b.strides[0])),
                     _single_out(out))


def _tensordot_axes(axes, nda, ndb):
    try:
        n = operator.index(axes)
    except TypeError:
        axes_a, axes_b = axes
        axes_a = [operator.index(x) for x in (axes_a if isinstance(axes_a, (list, tuple)) else [axes_a])]
        axes_b = [operator.index(x) for x in (axes_b if isinstance(axes_b, (list, tuple)) else [axes_b])]
        return axes_a, axes_b
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    if n > nda or n > ndb:
        raise IndexError("tuple index out of range")
    return list(range(nda - n, nda)), list(range(n))


def tensordot(a, b, axes=2):
    """numpy.tensordot: the sum of products over a's `axes[0]` and b's
    `axes[1]` (an int N: a's last N axes with b's first N), result axes a's
    free axes then b's, each in order."""
    a, b = _operand(a), _operand(b)
    axes_a, axes_b = _tensordot_axes(axes, a.ndim, b.ndim)
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    try:
        axes_a = [x + a.ndim if x < 0 else x for x in axes_a]
        axes_b = [x + b.ndim if x < 0 else x for x in axes_b]
        if any(not 0 <= x < a.ndim for x in axes_a) or any(not 0 <= x < b.ndim for x in axes_b) \
                or any(a.shape[x] != b.shape[y] for x, y in zip(axes_a, axes_b)):
            raise ValueError
    except (ValueError, IndexError):
        raise ValueError("shape-mismatch for sum") from None
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ValueError("duplicate axes are not allowed in tensordot")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = _size([a.shape[i] for i in axes_a])
    ma = _size([a.shape[i] for i in free_a])
    nb = _size([b.shape[i] for i in free_b])
    a2 = _manipulation.reshape(_manipulation.transpose(a, free_a + axes_a), (1, ma, k))
    b2 = _manipulation.reshape(_manipulation.transpose(b, axes_b + free_b), (1, k, nb))
    rdtype = numpy.result_type(a.dtype, b.dtype)
    if not (_core._kiln_dtype(a.dtype) and _core._kiln_dtype(b.dtype)):
        raise _dtype_error("tensordot", a, b)
    res = _product(a2, b2, rdtype, None)
    return _manipulation.reshape(res, tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def kron(a, b):
    """numpy.kron: the Kronecker product; the operands' shapes are padded
    with leading 1s to one length, and result[i * b.shape + j] = a[i] * b[j]
    along every axis (kiln.multiply's dtype)."""
    a, b = _operand(a), _operand(b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    a_nd = _manipulation.reshape(a, sa)
    b_nd = _manipulation.reshape(b, sb)
    # a's axes at even positions, b's at odd ones; the product's pairs of
    # axes then merge into one of size sa[t] * sb[t].
    a_v = _view(a_nd, [x for n in sa for x in (n, 1)], [x for s in a_nd.strides for x in (s, 0)])
    b_v = _view(b_nd, [x for n in sb for x in (1, n)], [x for s in b_nd.strides for x in (0, s)])
    prod = _multiply(a_v, b_v)
    return _manipulation.reshape(prod, tuple(x * y for x, y in zip(sa, sb)))


def vecdot(x1, x2, /, out=None, *, axis=None, casting="same_kind", dtype=None, axes=None, keepdims=False):
    """numpy.vecdot: the dot product of vectors along ``axis`` (default the
    last) of x1 and x2 (x1 conjugated when complex), the other axes
    broadcast; ``axes`` and ``keepdims`` as for NumPy's gufuncs (Note
    [Gufunc axes])."""
    out = _single_out(out)
    a, b = _gufunc_operands("vecdot", x1, x2, _VECDOT_SIG)
    if axes is not None or keepdims:
        return _on_core_axes(vecdot, "vecdot", _VECDOT_SIG, (1, 1, 0), 1, a, b, out, axes, axis, keepdims,
                             casting=casting, dtype=dtype)
    axis = -1 if axis is None else axis
    if not (_core._kiln_dtype(a.dtype) and _core._kiln_dtype(b.dtype)):
        raise _dtype_error("vecdot", a, b)
    axis = operator.index(axis)
    for x in (a, b):
        if not -x.ndim <= axis < x.ndim:
            raise numpy.exceptions.AxisError(axis, x.ndim)
    a = _manipulation.moveaxis(a, axis, -1)
    b = _manipulation.moveaxis(b, axis, -1)
    if b.shape[-1] != a.shape[-1]:
        raise ValueError("vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         "%s (size %d is different from %d)" % (_VECDOT_SIG, b.shape[-1], a.shape[-1]))
    rdtype = numpy.result_type(a.dtype, b.dtype) if dtype is None else numpy.dtype(dtype)
    _check_input_casts("vecdot", (a, b), rdtype, casting)
    if a.dtype.kind == "c":
        a = _core._ufuncs["conjugate"](a)
    batch = _batch_shape(a, b, 1, 1, ())
    k = a.shape[-1]
    a3 = _broadcast_view(_view(a, a.shape[:-1] + (1, k), a.strides[:-1] + (0, a.strides[-1])), batch + (1, k))
    b3 = _broadcast_view(_view(b, b.shape + (1,), b.strides + (0,)), batch + (k, 1))
    res = _product(a3, b3, rdtype, None)
    res = _view(res, batch, res.strides[:-2])
    if out is not None:
        if out.shape != batch:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match the broadcast shape %s"
                             % (out.shape, batch))
        if not numpy.can_cast(rdtype, out.dtype, casting):
            raise _core._UFuncOutputCastingError(
                "Cannot cast ufunc 'vecdot' output from %r to %r with casting rule %r" % (rdtype, out.dtype, casting))
        _copy(res, out)
        return out
    return res


def _copy(src, dst):
    from kiln._copyto import copyto
    copyto(dst, src, casting="unsafe")


def matrix_transpose(x, /):
    """The last two axes swapped (a view); ValueError below 2-d."""
    x = _operand(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional, but it is %d" % x.ndim)
    return x.mT


def linalg_outer(x1, x2, /):
    """numpy.linalg.outer: outer of two 1-D arrays (ValueError otherwise)."""
    a, b = _operand(x1), _operand(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are x1.ndim=%d and x2.ndim=%d."
                         % (a.ndim, b.ndim))
    return outer(a, b)


def linalg_matmul(x1, x2, /):
    """numpy.linalg.matmul: matmul without out= and the ufunc keywords."""
    return matmul(x1, x2)


def linalg_tensordot(x1, x2, /, *, axes=2):
    """numpy.linalg.tensordot (axes keyword-only)."""
    return tensordot(x1, x2, axes=axes)


def linalg_vecdot(x1, x2, /, *, axis=-1):
    """numpy.linalg.vecdot."""
    return vecdot(x1, x2, axis=axis)


# --- ndarray operators ---------------------------------------------------------

def _matmul_operand_ok(other):
    # Objects kiln does not know get their own __rmatmul__/__matmul__ a chance.
    return isinstance(other, (ndarray, numpy.ndarray, list, tuple) + _HOST_SCALARS) or \
        hasattr(other, "__cuda_array_interface__")


def __matmul__(self, other):
    if not _matmul_operand_ok(other):
        return NotImplemented
    return matmul(self, other)


def __rmatmul__(self, other):
    if not _matmul_operand_ok(other):
        return NotImplemented
    return matmul(other, self)


def __imatmul__(self, other):
    other = _ufunc_operand(other)
    if self.ndim < 1 or other.ndim < 2:
        raise ValueError("inplace matrix multiplication requires the first operand to have at least one and "
                         "the second at least two dimensions.")
    return matmul(self, other, out=self)


ndarray.__matmul__ = __matmul__
ndarray.__rmatmul__ = __rmatmul__
ndarray.__imatmul__ = __imatmul__


ndarray.dot = lambda self, b, out=None: dot(self, b, out)   # numpy.ndarray.dot
