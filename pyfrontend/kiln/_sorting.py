"""Sorting: sort, argsort, lexsort, partition, argpartition, sort_complex and
the ndarray.sort/argsort methods, on the sort engine.

    kiln.sort(a, axis=0)               # stable radix sort along axis 0 (NaNs last)
    kiln.argsort(a, kind='stable')     # every kind is stable here
    kiln.lexsort((b, a))               # by a, then b

Every sort runs kiln._core._sort_rows (Note [Sort engine] in
arraycore/sort.h): the axis is moved last and the array seen as (m, n) rows,
without a copy where strides allow. Sorts are always stable, whatever
`kind` says, so argsort gives NumPy's kind='stable' result; partition and
argpartition sort fully, which satisfies their contract (NumPy promises only
that element kth is in place, smaller ones before, larger after).
"""
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._core import ndarray
from kiln._manipulation import _asarray, _axis
from kiln._ufunc_methods import _ctype, _row_view, _rows, _spec

_KINDS = (None, "quicksort", "quick", "mergesort", "merge", "heapsort", "heap", "stable")


def _check_kind(kind, order, stable):
    if kind not in _KINDS:
        raise ValueError("sort kind must be one of 'quick', 'heap', or 'stable' (got %r)" % (kind,))
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. Use only one of them.")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _operand(a, axis):
    """(array, axis) with axis=None flattening, the axis checked (AxisError)."""
    a = _asarray(a)
    if axis is None:
        return a.reshape(-1), 0
    return a, _axis(axis, a.ndim)


def _perm(ndim, axis):
    return [d for d in range(ndim) if d != axis] + [axis]


def _sort_axis(a, axis, keys_out=None, index_out=None):
    """Sorts a along `axis` into keys_out (a's shape and dtype) and/or
    index_out (a's shape, int64), any layouts; keys_out may be a."""
    n = a.shape[axis]
    if a.size == 0:
        return
    perm = _perm(a.ndim, axis)
    m = a.size // n
    x = _row_view(a, perm, m, n)
    if x is None:
        x = _rows(a, perm, m, n, a.dtype)
    rows = []   # (result, its (m, n) view or a temporary, whether a temporary)
    for res, dtype in ((keys_out, a.dtype), (index_out, numpy.dtype(numpy.int64))):
        view = None if res is None else _row_view(res, perm, m, n)
        rows.append((res, view if view is not None or res is None else _creation.empty((m, n), dtype),
                     view is None))
    _core._sort_rows(x, rows[0][1], rows[1][1])
    for res, r, temporary in rows:
        if res is not None and temporary:
            moved = _core._as_strided(res, tuple(res.shape[d] for d in perm), tuple(res.strides[d] for d in perm), 0)
            copyto(moved, r.reshape(moved.shape))


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """A sorted copy along `axis` (None: flattened), NumPy's order: NaNs last.
    Always stable."""
    _check_kind(kind, order, stable)
    a, axis = _operand(a, axis)
    out = _creation.empty(a.shape, a.dtype)
    _sort_axis(a, axis, keys_out=out)
    return out


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """Indices (int64) that sort `a` along `axis` (None: flattened), ties in
    order: NumPy's kind='stable' result, for every kind."""
    _check_kind(kind, order, stable)
    a, axis = _operand(a, axis)
    out = _creation.empty(a.shape, numpy.int64)
    _sort_axis(a, axis, index_out=out)
    return out


def _ndarray_sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """Sorts the array in place along `axis` (stable)."""
    _check_kind(kind, order, stable)
    _sort_axis(self, _axis(axis, self.ndim), keys_out=self)


def _ndarray_argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    """kiln.argsort(self, axis, kind, order)."""
    return argsort(self, axis, kind, order, stable=stable)


ndarray.sort = _ndarray_sort
ndarray.argsort = _ndarray_argsort


def _kth_array(kth, n):
    """kth as a list of non-negative ints below n, NumPy's errors otherwise."""
    k = numpy.asarray(kth)
    if k.dtype == numpy.bool_ or not numpy.issubdtype(k.dtype, numpy.integer):
        raise TypeError("Partition index must be integer")
    if k.ndim > 1:
        raise ValueError("kth must be scalar or 1-D")
    out = []
    for v in k.reshape(-1).tolist():
        if not -n <= v < n:
            raise ValueError("kth(=%d) out of bounds (%d)" % (v, n))
        out.append(v % n)
    return out


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy with element kth (each of a sequence) where a sort puts it,
    smaller ones before and larger after (here: fully sorted)."""
    if kind != "introselect":
        raise ValueError("select kind must be 'introselect' (got %r)" % (kind,))
    _check_kind(None, order, None)
    a, axis = _operand(a, axis)
    _kth_array(kth, a.shape[axis])
    return sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition `a` around kth (here: a stable argsort)."""
    if kind != "introselect":
        raise ValueError("select kind must be 'introselect' (got %r)" % (kind,))
    _check_kind(None, order, None)
    a, axis = _operand(a, axis)
    _kth_array(kth, a.shape[axis])
    return argsort(a, axis)


def sort_complex(a):
    """Sorted (along the last axis) as complex: complex64 for int8/16 and
    uint8/16 input, the input's complex dtype, else complex128 (NumPy's rule)."""
    b = sort(a)
    if b.dtype.kind == "c":
        return b
    return b.astype(numpy.complex64 if b.dtype.char in "bhBH" else numpy.complex128)


def _gather_rows(src, idx):
    """out[r, j] = src[r, idx[r, j]] for C-contiguous 2-D src (m, n) and
    int64 idx (m, k): take_along_axis on rows, one thread an element."""
    m, k = idx.shape
    out = _creation.empty((m, k), src.dtype)
    if out.size:
        c = _ctype(src.dtype)
        spec = _spec(("sort_gather_rows", src.dtype.name),
                     [("src", c, "", "raw"), ("idx", "long long", "", "raw"), ("n", "long long", "", "in"),
                      ("k", "long long", "", "in"), ("out", c, "", "raw")],
                     "out[i] = src[(i / k) * n + idx[i]];")
        _core._elementwise_launch(spec, [src, idx, numpy.int64(src.shape[1]), numpy.int64(k), out], (m * k,))
    return out


def lexsort(keys, axis=-1):
    """Indices sorting by the last key, ties broken by the one before, and
    so on (stable), along `axis` of the keys' common shape."""
    if isinstance(keys, ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    else:
        keys = [_asarray(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if len(shape) == 0:
        return _creation.zeros((), numpy.int64)
    axis = _axis(axis, len(shape))
    n = shape[axis]
    perm = _perm(len(shape), axis)
    m = keys[0].size // n if n else 0
    moved = tuple(shape[d] for d in perm)
    idx = _creation.empty((m, n), numpy.int64)
    if m * n:
        _core._sort_rows(_rows(keys[0], perm, m, n, keys[0].dtype), None, idx)
        for key in keys[1:]:
            ordered = _gather_rows(_rows(key, perm, m, n, key.dtype), idx)
            step = _creation.empty((m, n), numpy.int64)
            _core._sort_rows(ordered, None, step)
            idx = _gather_rows(idx, step)
    back = [perm.index(d) for d in range(len(shape))]
    res = idx.reshape(moved)
    res = _core._as_strided(res, tuple(shape), tuple(res.strides[b] for b in back), 0)
    return res.copy()
