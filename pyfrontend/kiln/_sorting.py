"""Sorting: sort, argsort, lexsort, partition, argpartition, sort_complex and
the ndarray.sort/argsort methods, on the sort engine.

    kiln.sort(a, axis=0)               # stable radix sort along axis 0 (NaNs last)
    kiln.argsort(a, kind='stable')     # every kind is stable here
    kiln.lexsort((b, a))               # by a, then b

Each is one C++ call (arraycore/sort_apply.h, Note [Sort along an axis]):
the kind/order/stable checks, the axis, the (m, n) row view over the sort
engine (Note [Sort engine] in arraycore/sort.h) and the result. Sorts are
always stable, whatever `kind` says, so argsort gives NumPy's kind='stable'
result; partition and argpartition sort fully, which satisfies their
contract (NumPy promises only that element kth is in place, smaller ones
before, larger after).
"""
import numpy

from kiln import _core
from kiln import _indexing
from kiln import _manipulation
from kiln._core import ndarray
from kiln._manipulation import _asarray, _axis


def _sort_axis(a, axis, keys_out=None, index_out=None):
    """Sorts a along the normalised `axis` into keys_out (a's shape and
    dtype) and/or index_out (a's shape, int64), any layouts; keys_out may be a."""
    _core._sort_axis(a, axis, keys_out, index_out)


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """A sorted copy along `axis` (None: flattened), NumPy's order: NaNs last.
    Always stable. ``descending=True`` (the array API's) sorts from largest to
    smallest, equal elements still in their original order."""
    a = _asarray(a)
    if descending:
        return _take_sorted(a, axis, argsort(a, axis, kind, order, stable=stable, descending=True))
    return _core._sort(a, axis, kind, order, stable)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Indices (int64) that sort `a` along `axis` (None: flattened), ties in
    order: NumPy's kind='stable' result, for every kind. A 0-d `a` is read
    as one element (NumPy's array([0])). ``descending=True`` (the array
    API's): largest first, ties still in their original order."""
    a = _asarray(a)
    if a.ndim == 0:
        a = a.reshape(1)
    if not descending:
        return _core._argsort(a, axis, kind, order, stable)
    # Descending and stable: the stable ascending order of the reversed elements, read back to front and
    # mapped to positions of the unreversed ones (n - 1 - i).
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = _axis(axis, a.ndim)
    reversed_order = _core._argsort(_manipulation.flip(a, axis), axis, kind, order, stable)
    return _manipulation.flip((a.shape[axis] - 1) - reversed_order, axis)


def _take_sorted(a, axis, order):
    if axis is None:
        return _indexing.take(a.reshape(-1), order)
    return _indexing.take_along_axis(a if a.ndim else a.reshape(1), order, axis)


def _ndarray_sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """Sorts the array in place along `axis` (stable)."""
    _core._sort_in_place(self, axis, kind, order, stable)


def _ndarray_argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    """kiln.argsort(self, axis, kind, order)."""
    return argsort(self, axis, kind, order, stable=stable)


ndarray.sort = _ndarray_sort
ndarray.argsort = _ndarray_argsort


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy with element kth (each of a sequence) where a sort puts it,
    smaller ones before and larger after (here: fully sorted)."""
    return _core._partition(_asarray(a), kth, axis, kind, order, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition `a` around kth (here: a stable argsort)."""
    return _core._partition(_asarray(a), kth, axis, kind, order, True)


def _ndarray_partition(self, kth, axis=-1, kind="introselect", order=None):
    """Partitions the array in place along axis (kiln.partition's result)."""
    self[...] = partition(self, kth, axis, kind, order)


def _ndarray_argpartition(self, kth, axis=-1, kind="introselect", order=None):
    """kiln.argpartition(self, kth, axis, kind, order)."""
    return argpartition(self, kth, axis, kind, order)


ndarray.partition = _ndarray_partition
ndarray.argpartition = _ndarray_argpartition


def sort_complex(a):
    """Sorted (along the last axis) as complex: complex64 for int8/16 and
    uint8/16 input, the input's complex dtype, else complex128 (NumPy's rule)."""
    b = sort(a)
    if b.dtype.kind == "c":
        return b
    return b.astype(numpy.complex64 if b.dtype.char in "bhBH" else numpy.complex128)


def lexsort(keys, axis=-1):
    """Indices sorting by the last key, ties broken by the one before, and
    so on (stable), along `axis` of the keys' common shape."""
    if isinstance(keys, ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    else:
        keys = [_asarray(k) for k in keys]
    return _core._lexsort(keys, axis)
