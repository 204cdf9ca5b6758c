"""Indexing routines: nonzero and its relatives on the compaction of
kiln._core (arraycore/advanced_indexing.h), the take and put families as
advanced indexing. Index arrays from the host are checked as NumPy checks
them; device index arrays follow kiln.config (they wrap by default)."""
import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._creation import arange, tri, full, asarray as _upload
from kiln._manipulation import ravel, _axis

_MODES = ("raise", "wrap", "clip")


def _asarray(a):
    return a if isinstance(a, ndarray) else _upload(a)


def _host_or_device(indices):
    """Indices as a kiln array or a NumPy integer array (checked on the host
    when used)."""
    if isinstance(indices, ndarray):
        return indices
    host = numpy.asarray(indices)
    if host.dtype.kind == "f" and host.size == 0:
        host = host.astype(numpy.intp)
    return host


def nonzero(a):
    """Indices of the nonzero elements, one int64 array per axis (the count
    needs one device-to-host copy)."""
    a = _asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                         "instead.")
    coordinates = _core._nonzero(a, True)
    return tuple(coordinates[d] for d in range(a.ndim))


def argwhere(a):
    """The coordinates of the nonzero elements, one row each (count, ndim)."""
    a = _asarray(a)
    if a.ndim == 0:
        return _core._nonzero(a, False)[:, :0]
    return _core._nonzero(a, False)


def flatnonzero(a):
    """Positions of the nonzero elements of a.ravel()."""
    return _core._flatnonzero(_asarray(a))


def _mode_indices(indices, n, mode):
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' (got %r)" % (mode,))
    if mode == "raise":
        return indices
    if n == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if isinstance(indices, ndarray):   # clip: arraycore/math_functions.h's, as kiln.clip's
        return indices % n if mode == "wrap" else _core._clip(indices, 0, n - 1, None)
    return numpy.asarray(numpy.mod(indices, n) if mode == "wrap" else numpy.clip(indices, 0, n - 1))


def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements of a (flattened when axis is None) at indices along axis.
    mode 'raise' checks host indices (device ones follow kiln.config),
    'wrap' and 'clip' as NumPy's."""
    a = _asarray(a)
    if axis is None or a.ndim == 0:   # NumPy reads a 0-d a as one element along axis 0 or -1
        a, axis = ravel(a), (0 if axis is None else axis)
    axis = _axis(axis, a.ndim)
    if out is not None and getattr(out, "dtype", None) != a.dtype:
        raise TypeError("Cannot cast array data from %r to %r according to the rule 'safe': take's out "
                        "must have a's dtype" % (getattr(out, "dtype", out), a.dtype))
    indices = _host_or_device(indices)
    if indices.size == 0 and mode != "raise":
        mode = "raise"
    indices = _mode_indices(indices, a.shape[axis], mode)
    result = a[(slice(None),) * axis + (indices,)]
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError("output array does not match result of ndarray.take")
    out[...] = result
    return out


def compress(condition, a, axis=None, out=None):
    """The slices of a along axis where condition (1-d) is true."""
    a = _asarray(a)
    condition = _asarray(condition)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    if condition.shape[0] > n:
        beyond = flatnonzero(condition[n:])
        if beyond.size:
            raise IndexError("index %d is out of bounds for axis %d with size %d"
                             % (n + int(beyond[0]), axis, n))
        condition = condition[:n]
    return take(a, flatnonzero(condition), axis=axis, out=out)


def extract(condition, arr):
    """The elements of arr.ravel() where condition.ravel() is nonzero."""
    return compress(ravel(_asarray(condition)), ravel(_asarray(arr)))


def _along_axis_key(arr, indices, axis):
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return ravel(arr), (indices,)
    axis = _axis(axis, arr.ndim)
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    key = []
    for d in range(arr.ndim):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            key.append(arange(arr.shape[d]).reshape(shape))
    return arr, tuple(key)


def take_along_axis(arr, indices, axis=-1):
    """arr's values at indices along axis, matched on the other axes
    (NumPy's take_along_axis; axis None: of arr.ravel())."""
    arr, key = _along_axis_key(_asarray(arr), _host_or_device(indices), axis)
    return arr[key]


def put_along_axis(arr, indices, values, axis):
    """arr at indices along axis, matched on the other axes, = values
    (axis None: arr.flat at 1-d indices, as NumPy)."""
    if axis is None:
        indices = _host_or_device(indices)
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        _flat_store(arr, indices, values)
        return
    arr, key = _along_axis_key(arr, _host_or_device(indices), axis)
    arr[key] = values


def _cycled(values, n):
    """values.ravel() repeated or cut to n elements (put's and place's rule)."""
    values = ravel(_asarray(values))
    if values.size == n:
        return values
    return values[arange(n) % values.size]


def _flat_store(a, positions, values):
    """a.flat[positions] = values, for any layout of a."""
    if a._c_contiguous:
        a.reshape(-1)[positions] = values
        return
    flat = ravel(a).copy()
    flat[positions] = values
    a[...] = flat.reshape(a.shape)


def put(a, ind, v, mode="raise"):
    """a.flat[ind] = v, v repeated when shorter than ind. Positions named
    more than once (after mode's wrap or clip) get one of their values, as
    a[idx] = v: NumPy's last one with kiln.config.setitem_last_wins."""
    if not isinstance(a, ndarray):
        raise TypeError("put() argument 1 must be kiln.ndarray, not %s" % type(a).__name__)
    ind = _host_or_device(ind)
    if ind.ndim != 1:
        ind = ind.reshape(-1)
    if ind.size == 0:
        return
    ind = _mode_indices(ind, a.size, mode)
    if mode == "raise" and isinstance(ind, ndarray):   # device indices too: mode='raise' asks for the check
        bad = ind[(ind < -a.size) | (ind >= a.size)]
        if bad.size:
            raise IndexError("index %d is out of bounds for axis 0 with size %d" % (int(bad[0]), a.size))
    v = v if isinstance(v, ndarray) else _core._assigned_value(v, a.dtype)
    if v.size == 0:
        return
    _flat_store(a, ind, _cycled(v, ind.size))


def place(arr, mask, vals):
    """arr's elements where mask is true = vals in order, repeated as
    needed."""
    if getattr(mask, "size", numpy.size(mask)) != arr.size:
        raise ValueError("place: mask and data must be the same size")
    positions = flatnonzero(mask)
    if positions.size == 0:
        return
    vals = vals if isinstance(vals, ndarray) else _core._assigned_value(vals, arr.dtype)
    if vals.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    _flat_store(arr, positions, _cycled(vals, positions.size))


def putmask(a, mask, values):
    """a.flat[i] = values.flat[i % values.size] where mask.flat[i] is nonzero
    (numpy.putmask: mask of a's size; array values must cast safely)."""
    if not isinstance(a, ndarray):
        raise TypeError("putmask: first argument must be an array")
    unsafe = not isinstance(values, (ndarray, numpy.ndarray))
    values = _core._assigned_value(values, a.dtype) if unsafe else _asarray(values)
    _core._putmask(a, _asarray(mask), values, unsafe)


def fill_diagonal(a, val, wrap=False):
    """a's main diagonal = val (repeated), in place: numpy.fill_diagonal
    (a tall 2-d array's diagonal continues below the square with wrap)."""
    _core._fill_diagonal(a, val if isinstance(val, ndarray) else _core._assigned_value(val, a.dtype), wrap)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an (n, ..., n) array: one arange per axis."""
    return (arange(n),) * ndim


def diag_indices_from(arr):
    """diag_indices for arr, whose dimensions must be equal (2 or more)."""
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle (below diagonal k) of an (n, m) array."""
    return nonzero(tri(n, m, k, dtype=bool))


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle (above diagonal k) of an (n, m) array."""
    return nonzero(~tri(n, m, k - 1, dtype=bool))


def _from_2d(arr):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return arr.shape


def tril_indices_from(arr, k=0):
    """tril_indices for the shape of arr (2-d)."""
    n, m = _from_2d(arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    """triu_indices for the shape of arr (2-d)."""
    n, m = _from_2d(arr)
    return triu_indices(n, k, m)


def mask_indices(n, mask_func, k=0):
    """The indices where mask_func(ones((n, n)), k) is nonzero (e.g. kiln.triu)."""
    return nonzero(mask_func(full((n, n), 1, int), k) != 0)


def _scatter(name):
    def scatter(a, slices, value):
        """a[slices] = %s(a[slices], value), unbuffered (an element named k
        times is updated k times), value cast to a's dtype first: CuPy's
        scatter_%s, kiln.%s.at underneath."""
        value = value.astype(a.dtype) if isinstance(value, ndarray) else _upload(value, dtype=a.dtype)
        _core._ufuncs[name].at(a, slices, value)
    scatter.__doc__ %= (name, name[:3], name)
    return scatter


scatter_add, scatter_max, scatter_min = _scatter("add"), _scatter("maximum"), _scatter("minimum")


def _method_nonzero(self):
    return nonzero(self)


def _method_take(self, indices, axis=None, out=None, mode="raise"):
    return take(self, indices, axis, out, mode)


def _method_put(self, indices, values, mode="raise"):
    return put(self, indices, values, mode)


def _method_compress(self, condition, axis=None, out=None):
    return compress(condition, self, axis, out)


for _name, _method in (("nonzero", _method_nonzero), ("take", _method_take), ("put", _method_put),
                       ("compress", _method_compress), ("scatter_add", scatter_add),
                       ("scatter_max", scatter_max), ("scatter_min", scatter_min)):
    _method.__name__ = _name
    _method.__doc__ = globals()[_name].__doc__
    setattr(ndarray, _name, _method)
del _name, _method
