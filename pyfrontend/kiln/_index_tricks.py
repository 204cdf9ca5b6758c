"""Index tricks: objects and functions that build index arrays and grids.

    kiln.r_[a, 0, b]           # concatenation along the first axis
    kiln.c_[x, y]              # 1-d arrays as columns, stacked along the last axis
    kiln.mgrid[0:3, 0:4]       # dense grid, shape (2, 3, 4); kiln.ogrid: open (sparse) grid
    kiln.ix_([0, 1], [2, 4])   # an open mesh for fancy indexing
    kiln.unravel_index(idx, (6, 4)); kiln.ravel_multi_index((i, j), (6, 4))
    kiln.broadcast(a, b).shape

``s_``, ``index_exp`` and ``ndindex`` build index tuples on the host and are
NumPy's objects. The others compose kiln operations (arange, indices,
concatenate, the integer ufuncs); a check that needs the values (an index
out of bounds) is one reduction read back.
"""
import math
import operator

import numpy

import kiln
from kiln._core import ndarray

s_ = numpy.s_
index_exp = numpy.index_exp
ndindex = numpy.ndindex


class broadcast:
    """The broadcast of the arguments (kiln arrays or array-likes): ``shape``,
    ``size``, ``nd``/``ndim``, ``numiter`` and ``values``, the broadcast views.
    ValueError when they do not broadcast. Unlike NumPy's, not an iterator."""

    def __init__(self, *arrays):
        self.values = tuple(kiln.broadcast_arrays(*[kiln.asarray(a) for a in arrays])) if arrays else ()
        self.shape = self.values[0].shape if self.values else ()
        self.nd = self.ndim = len(self.shape)
        self.size = math.prod(self.shape)
        self.numiter = len(self.values)


class AxisConcatenator:
    """``r_``/``c_``: concatenates its items (arrays, lists, Python and NumPy
    scalars) along ``axis``, each raised to ``ndmin`` dimensions first.
    As CuPy's: slice items (``r_[0:5]``) and string directives (``r_['0,2', ...]``)
    raise NotImplementedError."""

    def __init__(self, axis=0, matrix=False, ndmin=1, trans1d=-1):
        if matrix:
            raise NotImplementedError("kiln has no matrix class")
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        objs, typed = [], []
        for i, item in enumerate(key):
            if isinstance(item, slice):
                raise NotImplementedError("kiln's r_ and c_ do not take slices")
            if isinstance(item, str):
                if i != 0:
                    raise ValueError("special directives must be the first entry.")
                raise NotImplementedError("kiln's r_ and c_ do not take string directives")
            if type(item) in numpy.ScalarType:
                objs.append(item)
                typed.append(item)
                continue
            arr = kiln.asarray(item)
            typed.append(arr)
            objs.append(self._raised(arr))
        dtype = kiln.result_type(*typed) if typed else None
        objs = [kiln.array(o, dtype=dtype, ndmin=self.ndmin) if not isinstance(o, ndarray) or o.dtype != dtype
                else o for o in objs]
        return kiln.concatenate(objs, axis=self.axis)

    def _raised(self, arr):
        ndim = arr.ndim
        if ndim >= self.ndmin:
            return arr
        out = kiln.array(arr, copy=None, ndmin=self.ndmin)
        if self.trans1d != -1:   # NumPy's rule: the original axes go to position trans1d
            k2 = self.ndmin - ndim
            k1 = self.trans1d if self.trans1d >= 0 else self.trans1d + k2 + 1
            axes = list(range(self.ndmin))
            out = out.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])
        return out

    def __len__(self):
        return 0


r_ = AxisConcatenator(0)
c_ = AxisConcatenator(-1, ndmin=2, trans1d=0)


def _grid_axis(key):
    start = 0 if key.start is None else key.start
    step = 1 if key.step is None else key.step
    if isinstance(step, (complex, numpy.complexfloating)):
        count = int(abs(step))
        return start, key.stop, count, ((key.stop - start) / float(count - 1) if count != 1 else count), True
    return start, key.stop, int(math.ceil((key.stop - start) / step)), step, False


class _Grid:
    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            if not isinstance(key.step, (complex, numpy.complexfloating)):
                bounds = (0 if key.start is None else key.start, key.stop)
                return kiln.arange(*bounds) if key.step is None else kiln.arange(*bounds, key.step)
            start, stop, count, step, _ = _grid_axis(key)   # a complex step is a point count, as linspace
            return kiln.arange(0, count, 1, dtype=kiln.result_type(start, stop, abs(key.step))) * step + start
        axes = [_grid_axis(k) for k in key]
        sizes = [a[2] for a in axes]
        dtype = kiln.result_type(0, *[v for k in key for v in (
            0 if k.start is None else k.start, k.stop,
            1 if k.step is None else abs(k.step) if isinstance(k.step, (complex, numpy.complexfloating)) else k.step)])
        if self.sparse:
            out = []
            for k, (start, _, count, step, _) in enumerate(axes):
                line = kiln.arange(count, dtype=dtype) * step + start
                out.append(line[tuple(slice(None) if j == k else None for j in range(len(axes)))])
            return tuple(out)
        grid = kiln.indices(sizes, dtype)
        for k, (start, _, _, step, _) in enumerate(axes):
            grid[k] = grid[k] * step + start
        return grid

    def __len__(self):
        return 0


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def ix_(*args):
    """An open mesh from 1-d sequences: the k-th result has shape 1 on every
    axis but k, so ``a[kiln.ix_(rows, cols)]`` picks the cross product. Bool
    sequences become the indices of their True entries."""
    out = []
    for k, seq in enumerate(args):
        if not isinstance(seq, ndarray):
            seq = kiln.asarray(seq)
            if seq.size == 0:
                seq = seq.astype(numpy.intp)
        if seq.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if seq.dtype == numpy.bool_:
            (seq,) = seq.nonzero()
        out.append(seq.reshape((1,) * k + (seq.size,) + (1,) * (len(args) - k - 1)))
    return tuple(out)


def _check_order(order):
    if order not in ("C", "F", None):
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % (order,))
    return order or "C"


def _int_indices(a):
    a = kiln.asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("only int indices permitted")
    return a.astype(numpy.intp, copy=False)


def unravel_index(indices, shape, order="C"):
    """The tuple of coordinate arrays (intp) that flat ``indices`` have in an
    array of ``shape``; ValueError for an index out of bounds."""
    order = _check_order(order)
    dims = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(map(operator.index, shape))
    if not isinstance(indices, ndarray):
        return numpy.unravel_index(indices, dims, order=order)
    flat = _int_indices(indices)
    size = math.prod(dims)
    bad = kiln.logical_or(flat < 0, flat >= size).ravel()
    if flat.size and bool(bad.any()):   # NumPy names the first bad index
        raise ValueError("index %d is out of bounds for array with size %d"
                         % (int(flat.ravel()[int(bad.argmax())]), size))
    out = [None] * len(dims)
    rest = flat
    for k in (range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))):
        out[k] = kiln.remainder(rest, dims[k])
        rest = kiln.floor_divide(rest, dims[k])
    return tuple(out)


_CLIP_MODES = ("raise", "wrap", "clip")


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices (intp) of the coordinates ``multi_index`` in an array of
    ``dims``; ``mode`` ('raise', 'wrap', 'clip', or one per axis) says what
    an out-of-bounds coordinate does."""
    order = _check_order(order)
    dims = tuple(operator.index(d) for d in dims)
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    for m in modes:
        if m not in _CLIP_MODES:
            raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' (got %r)" % (m,))
    if len(modes) != len(dims):
        raise ValueError("mode must be a string or a sequence of length %d" % len(dims))
    if len(multi_index) != len(dims):
        raise ValueError("parameter multi_index must be a sequence of length %d" % len(dims))
    if math.prod(dims) > numpy.iinfo(numpy.intp).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum possible size.")
    if not any(isinstance(m, ndarray) for m in multi_index):
        return numpy.ravel_multi_index(multi_index, dims, mode=mode, order=order)
    coords = kiln.broadcast_arrays(*[_int_indices(m) for m in multi_index])
    stride, strides = 1, [0] * len(dims)
    for k in (range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))):
        strides[k], stride = stride, stride * dims[k]
    flat = kiln.zeros(coords[0].shape if coords else (), dtype=numpy.intp)
    bad = None
    for c, n, m, s in zip(coords, dims, modes, strides):
        if m == "wrap":
            c = kiln.remainder(c, n)
        elif m == "clip":
            c = kiln.clip(c, 0, n - 1)
        else:
            out_of_bounds = kiln.logical_or(c < 0, c >= n)
            bad = out_of_bounds if bad is None else kiln.logical_or(bad, out_of_bounds)
        flat += c * s
    if bad is not None and bool(bad.any()):
        raise ValueError("invalid entry in coordinates array")
    return flat
