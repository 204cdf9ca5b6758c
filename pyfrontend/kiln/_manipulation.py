"""Array manipulation routines (numpy's reshape, stack, split, tile, pad, ...).

The view operations (reshape, ravel, transpose, swapaxes, squeeze, moveaxis,
expand_dims, flip, broadcast_to) are C++ (arraycore/views.h): the ndarray
methods and kiln._core functions these wrappers call, with NumPy's view rules
and messages. The copying routines here compose them with copies through
``__setitem__`` (one launch of the strided copy kernel per assignment). Note [Bounded launches]:
every routine issues a number of copies that does not grow with the data,
except where a comment says otherwise (repeat with per-element counts).

Differences from NumPy, common to every routine here: inputs that are not kiln
arrays (NumPy arrays, lists, scalars) are uploaded first; ``subok`` is
accepted and ignored (there are no kiln subclasses)."""
import itertools
import math
import operator
import warnings

import numpy

from kiln import _core
from kiln._core import ndarray
from kiln._creation import asarray as _upload

AxisError = numpy.exceptions.AxisError


# --- helpers -----------------------------------------------------------------

def _asarray(a):
    return a if isinstance(a, ndarray) else _upload(a)


def _axis(axis, ndim, argname=None):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim, argname)
    return axis % ndim


def _axis_tuple(axis, ndim, argname=None):
    """Axes as a tuple of non-negative ints; ValueError on repeats."""
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    axes = tuple(_axis(ax, ndim, argname) for ax in axis)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis in `%s` argument" % argname if argname else "repeated axis")
    return axes


def _index(axis, ndim, key):
    """A __getitem__/__setitem__ key selecting ``key`` along ``axis``."""
    return (slice(None),) * axis + (key,) + (slice(None),) * (ndim - axis - 1)


def _empty_like_layout(shape, dtype, *arrays):
    """An uninitialised array, Fortran-ordered when every input is (and not C)."""
    f = arrays and all(x._f_contiguous for x in arrays) and not all(x._c_contiguous for x in arrays)
    return _core.empty(tuple(shape), dtype, "F" if f else "C")


def _byte_range(a):
    low = high = a.data.ptr
    for n, s in zip(a.shape, a.strides):
        (low, high) = (low + (n - 1) * s, high) if s < 0 else (low, high + (n - 1) * s)
    return low, high + a.itemsize


def _may_share_memory(a, b):
    if a.size == 0 or b.size == 0 or a.data.mem is not b.data.mem:
        return False
    (a0, a1), (b0, b1) = _byte_range(a), _byte_range(b)
    return a0 < b1 and b0 < a1


# --- shapes ------------------------------------------------------------------

def reshape(a, /, shape=None, order="C", *, copy=None):
    """A view of ``a`` with a new shape where NumPy's would be one (also for
    non-contiguous inputs whose strides allow it), else a copy: numpy.reshape.

    ``order`` ('C', 'F' or 'A') is the index order elements are read and
    placed in; one dimension may be -1. ``copy=True`` always copies,
    ``copy=False`` raises ValueError rather than copy."""
    a = _asarray(a)
    if shape is None:
        raise TypeError("reshape() missing required argument 'shape' (pos 2)")
    return a.reshape(shape, order=order, copy=copy)


def ravel(a, order="C"):
    """The elements of ``a`` in one dimension, read in ``order`` ('C', 'F',
    'A' or 'K'): a view when no copy is needed, as numpy.ravel."""
    return _asarray(a).ravel(order)


def shape(a):
    """The shape of an array (numpy.shape)."""
    return a.shape if isinstance(a, ndarray) else numpy.shape(a)


def ndim(a):
    """The number of dimensions of an array (numpy.ndim)."""
    return a.ndim if isinstance(a, ndarray) else numpy.ndim(a)


def size(a, axis=None):
    """The number of elements, in all or along the given axis (or axes)."""
    if not isinstance(a, ndarray):
        return numpy.size(a, axis)
    if axis is None:
        return a.size
    return math.prod(a.shape[i] for i in _axis_tuple(axis, a.ndim))


# --- axes --------------------------------------------------------------------

def transpose(a, axes=None):
    """A view with axes permuted (reversed when ``axes`` is None)."""
    return _asarray(a).transpose(axes)


def swapaxes(a, axis1, axis2):
    """A view with two axes interchanged."""
    return _asarray(a).swapaxes(axis1, axis2)


def moveaxis(a, source, destination):
    """A view with the ``source`` axes moved to the ``destination`` positions."""
    return _core.moveaxis(_asarray(a), source, destination)


def rollaxis(a, axis, start=0):
    """A view with ``axis`` moved to lie before ``start`` (prefer moveaxis)."""
    a = _asarray(a)
    n = a.ndim
    axis = _axis(axis, n)
    start = operator.index(start)
    if not -n <= start <= n:
        raise AxisError("'start' arg requires %d <= start < %d, but %d was passed in" % (-n, n + 1, start))
    if start < 0:
        start += n
    if axis < start:
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return a.transpose(order)


def squeeze(a, axis=None):
    """A view without the given (or every) length-1 axis."""
    return _asarray(a).squeeze(axis)


def expand_dims(a, axis):
    """A view with length-1 axes inserted at the positions ``axis`` (an int
    or a tuple) names in the result."""
    return _core.expand_dims(_asarray(a), axis)


def _atleast(arys, n):
    out = []
    for a in arys:
        a = _asarray(a)
        if a.ndim < n:
            if a.ndim == 0:
                shape = (1,) * n
            elif n == 2 or a.ndim == 2:   # (N,) -> (1, N); (M, N) -> (M, N, 1)
                shape = (1,) + a.shape if n == 2 else a.shape + (1,)
            else:                         # (N,) -> (1, N, 1)
                shape = (1,) + a.shape + (1,)
            a = reshape(a, shape)
        out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*arys):
    """Each input as an array with at least 1 dimension (views); one array
    for one input, else a tuple."""
    return _atleast(arys, 1)


def atleast_2d(*arys):
    """Each input with at least 2 dimensions: (N,) becomes (1, N)."""
    return _atleast(arys, 2)


def atleast_3d(*arys):
    """Each input with at least 3 dimensions: (N,) becomes (1, N, 1) and
    (M, N) becomes (M, N, 1)."""
    return _atleast(arys, 3)


# --- broadcasting ------------------------------------------------------------

def _shape_tuple(shape):
    return tuple(operator.index(n) for n in shape) if numpy.iterable(shape) else (operator.index(shape),)


def broadcast_shapes(*args):
    """The shape the given shapes broadcast to (ValueError naming the pair
    that does not)."""
    shapes = [_shape_tuple(s) for s in args]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    first = [None] * ndim   # which argument fixed each output dimension
    for k, s in enumerate(shapes):
        for i, n in enumerate(s, ndim - len(s)):
            if n < 0:
                raise ValueError("negative dimensions are not allowed")
            if n == 1:
                continue
            if out[i] == 1:
                out[i], first[i] = n, k
            elif out[i] != n:
                raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                                 "is between arg %d with shape %s and arg %d with shape %s."
                                 % (first[i], shapes[first[i]], k, s))
    return tuple(out)


def broadcast_to(array, shape, subok=False):
    """A read-only view of ``array`` broadcast to ``shape`` (stride 0 along
    the broadcast axes), as NumPy's: every write through it raises
    ValueError (Note [Read-only arrays]). Differs from CuPy, whose view is
    writable and writes the shared elements."""
    return _core.broadcast_to(_asarray(array), _shape_tuple(shape))


def broadcast_arrays(*args, subok=False):
    """Views of the inputs broadcast to one shape, as a tuple (inputs that
    already have that shape come back themselves). The views are writable, as
    NumPy 2's still are (NumPy warns on the first write into one; kiln does
    not), so writing through a stretched axis writes the shared elements."""
    arrays = [_asarray(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    if all(a.shape == shape for a in arrays):
        return tuple(arrays)
    return tuple(a if a.shape == shape else _writable_broadcast(a, shape) for a in arrays)


def _writable_broadcast(a, shape):
    view = broadcast_to(a, shape)
    view._writeable = a._writeable
    return view


# --- joining -----------------------------------------------------------------

def _check_cast(a, dtype, casting):
    if not _core.can_cast(a.dtype, dtype, casting):
        raise TypeError("Cannot cast array data from %r to %r according to the rule %r"
                        % (a.dtype, numpy.dtype(dtype), casting))


def _sequence(arrays):
    if not hasattr(arrays, "__getitem__"):
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list or tuple.')
    return arrays


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays along an existing axis (all of them flattened when
    ``axis`` is None): numpy.concatenate, one copy per input.

    The result dtype is ``dtype``, ``out``'s, or kiln.result_type of the
    inputs; each input must cast to it under ``casting``. The result is
    Fortran-ordered when every input is, else C-ordered (NumPy follows the
    inputs' memory order more finely)."""
    arrays = [_asarray(a) for a in arrays]
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both were provided.")
    _core.can_cast(numpy.bool_, numpy.bool_, casting)   # ValueError for an unknown casting=
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _axis(axis, first.ndim)
    for k, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise ValueError("all the input arrays must have same number of dimensions, but the array at "
                             "index 0 has %d dimension(s) and the array at index %d has %d dimension(s)"
                             % (first.ndim, k, a.ndim))
        for i, (n, m) in enumerate(zip(first.shape, a.shape)):
            if i != axis and n != m:
                raise ValueError("all the input array dimensions except for the concatenation axis must "
                                 "match exactly, but along dimension %d, the array at index 0 has size %d "
                                 "and the array at index %d has size %d" % (i, n, k, m))
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("out must be a kiln.ndarray, not %s" % type(out).__name__)
        if out.ndim != len(shape):
            raise ValueError("Output array has wrong dimensionality")
        if tuple(out.shape) != tuple(shape):
            raise ValueError("Output array is the wrong shape")
        dtype = out.dtype
    elif dtype is None:
        dtype = _core.result_type(*arrays)
    dtype = numpy.dtype(dtype)
    for a in arrays:
        _check_cast(a, dtype, casting)
    if dtype.kind not in "cb" and any(a.dtype.kind == "c" for a in arrays):   # complex -> bool: no warning
        warnings.warn("Casting complex values to real discards the imaginary part",
                      numpy.exceptions.ComplexWarning, stacklevel=2)
    if out is None:
        out = _empty_like_layout(shape, dtype, *arrays)
    else:   # an input that out overlaps is read before anything is written
        arrays = [a.copy() if _may_share_memory(a, out) else a for a in arrays]
    start = 0
    for a in arrays:
        n = a.shape[axis]
        if n and a.size:   # the copy kernel directly: the one ComplexWarning is given above
            _core._copy_into(out[_index(axis, out.ndim, slice(start, start + n))], a)
        start += n
    return out


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join same-shaped arrays along a new axis: numpy.stack (one copy per input)."""
    arrays = [_asarray(a) for a in _sequence(arrays)]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = _axis(axis, arrays[0].ndim + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Join along the second axis (the first for 1-d inputs)."""
    arrays = atleast_1d(*_sequence(tup))
    arrays = arrays if isinstance(arrays, tuple) else (arrays,)
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return concatenate(arrays, axis, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Join along the first axis after making inputs at least 2-d."""
    arrays = atleast_2d(*_sequence(tup))
    return concatenate(arrays if isinstance(arrays, tuple) else (arrays,), 0, dtype=dtype, casting=casting)


def dstack(tup):
    """Join along the third axis after making inputs at least 3-d."""
    arrays = atleast_3d(*_sequence(tup))
    return concatenate(arrays if isinstance(arrays, tuple) else (arrays,), 2)


def column_stack(tup):
    """Join 1-d arrays as columns (and 2-d arrays as they are) into a 2-d array."""
    arrays = []
    for a in _sequence(tup):
        a = _asarray(a)
        arrays.append(reshape(a, (-1, 1)) if a.ndim < 2 else a)
    return concatenate(arrays, 1)


# --- splitting ---------------------------------------------------------------

def array_split(ary, indices_or_sections, axis=0):
    """A list of views splitting ``ary`` along ``axis``: into N nearly equal
    parts (the first ones one longer) or at the given indices."""
    a = _asarray(ary)
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    try:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    except TypeError:
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = list(itertools.accumulate([0] + sizes))
    return [a[_index(axis, a.ndim, slice(lo, hi))] for lo, hi in zip(bounds, bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    """As array_split, but N sections must divide the axis evenly."""
    a = _asarray(ary)
    if not numpy.iterable(indices_or_sections):
        sections = operator.index(indices_or_sections)
        if sections > 0 and a.shape[_axis(axis, a.ndim)] % sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(a, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """split along the second axis (the first for 1-d arrays)."""
    a = _asarray(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """split along the first axis of an array of 2 or more dimensions."""
    a = _asarray(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """split along the third axis of an array of 3 or more dimensions."""
    a = _asarray(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


# --- repeating, flipping, rolling --------------------------------------------

def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis: numpy.tile (one copy,
    from a view with a stride-0 axis before each of A's)."""
    a = _asarray(A)
    reps = _shape_tuple(reps)
    nd = max(len(reps), a.ndim)
    shape = (1,) * (nd - a.ndim) + a.shape
    reps = (1,) * (nd - len(reps)) + reps
    if any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    source = _core.broadcast_to(_core.expand_dims(a.reshape(shape), tuple(range(0, 2 * nd, 2))),
                                tuple(m for r, n in zip(reps, shape) for m in (r, n)))
    out = _core.empty(source.shape, a.dtype)
    if out.size:
        out[...] = source
    return reshape(out, tuple(r * n for r, n in zip(reps, shape)))


def _repeated_view(a, axis, r):
    """A view of ``a`` with a stride-0 axis of length ``r`` after ``axis``."""
    return _core.broadcast_to(_core.expand_dims(a, axis + 1), a.shape[:axis + 1] + (r,) + a.shape[axis + 1:])


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated: numpy.repeat. ``repeats`` is a count
    for every element, or one count per element along ``axis`` (of the
    flattened array when ``axis`` is None).

    One copy for a single count (a view with a stride-0 axis). Per-element
    counts take one copy per run of equal consecutive counts: bounded by the
    axis length, not by the data size."""
    a = _asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    else:   # a 0-d array repeats as a 1-d one, as in NumPy
        a = a if a.ndim else reshape(a, 1)
        axis = _axis(axis, a.ndim)
    counts = repeats.get() if isinstance(repeats, ndarray) else numpy.asarray(repeats)
    if counts.ndim > 1:
        raise ValueError("object too deep for desired array (repeats must be a scalar or 1-d, got %d "
                         "dimensions)" % counts.ndim)
    if isinstance(repeats, (ndarray, numpy.ndarray)) and not numpy.can_cast(counts.dtype, numpy.intp):
        raise TypeError("Cannot cast array data from %r to %r according to the rule 'safe'"
                        % (counts.dtype, numpy.dtype(numpy.intp)))
    counts = counts.astype(numpy.intp).reshape(-1)
    if (counts < 0).any():
        raise ValueError("repeats may not contain negative values.")
    n = a.shape[axis]
    if counts.size == 1:
        r = int(counts[0])
        source = _repeated_view(a, axis, r)
        out = _core.empty(source.shape, a.dtype)
        if out.size:
            out[...] = source
        return reshape(out, a.shape[:axis] + (n * r,) + a.shape[axis + 1:])
    if counts.size != n:
        raise ValueError("repeats must have the same length as axis %d: operands could not be broadcast together "
                         "with shape (%d,) (%d,)" % (axis, n, counts.size))
    total = sum(counts.tolist())   # a Python int: an int64 sum could wrap (Note [Array size limit])
    out = _core.empty(a.shape[:axis] + (total,) + a.shape[axis + 1:], a.dtype)
    if out.size == 0:
        return out
    start, i = 0, 0
    for r, run in itertools.groupby(counts.tolist()):
        k = len(list(run))
        if r:
            src = a[_index(axis, a.ndim, slice(i, i + k))]
            src = _repeated_view(src, axis, r)
            dst = out[_index(axis, out.ndim, slice(start, start + k * r))]
            dst.reshape(src.shape, copy=False)[...] = src   # splitting an axis is always a view
        start, i = start + k * r, i + k
    return out


def flip(m, axis=None):
    """A view with the order of elements reversed along the given axes (all
    when ``axis`` is None)."""
    return _core.flip(_asarray(m), axis)


def fliplr(m):
    """A view reversed along axis 1 (left/right)."""
    a = _asarray(m)
    if a.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(a, 1)


def flipud(m):
    """A view reversed along axis 0 (up/down)."""
    a = _asarray(m)
    if a.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(a, 0)


def _ints(x):
    return [operator.index(v) for v in x] if isinstance(x, (tuple, list)) else [operator.index(x)]


def _roll_into(dst, src, axis_shifts):
    """dst = src rolled along each (axis, shift): one copy per combination
    of the two pieces of each axis."""
    pieces = []
    for axis, s in axis_shifts:
        n = src.shape[axis]
        pieces.append([(axis, slice(s, n), slice(0, n - s)), (axis, slice(0, s), slice(n - s, n))])
    for combo in itertools.product(*pieces):
        dkey, skey = [slice(None)] * src.ndim, [slice(None)] * src.ndim
        for axis, d, s in combo:
            dkey[axis], skey[axis] = d, s
        dst[tuple(dkey)] = src[tuple(skey)]


def roll(a, shift, axis=None):
    """A copy of ``a`` with elements shifted along ``axis`` (of the flattened
    array when None), wrapping around: numpy.roll. ``shift`` and ``axis``
    may be tuples (broadcast against each other; shifts on one axis add).
    At most two copies per rolled axis."""
    a = _asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = _ints(axis)
    shift = shift.tolist() if isinstance(shift, ndarray) else shift
    shifts = [int(v) for v in shift] if isinstance(shift, (tuple, list)) else [int(shift)]   # int(): NumPy's
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                         "between arg 0 with shape (%d,) and arg 1 with shape (%d,)." % (len(shifts), len(axes)))
    total = {}
    for s, ax in zip(shifts * len(axes) if len(shifts) == 1 else shifts,
                     axes * len(shifts) if len(axes) == 1 else axes):
        ax = _axis(ax, a.ndim)
        total[ax] = total.get(ax, 0) + s
    rolls = [(ax, s % a.shape[ax]) for ax, s in sorted(total.items()) if a.shape[ax] and s % a.shape[ax]]
    out = _empty_like_layout(a.shape, a.dtype, a)
    if a.size == 0:
        return out
    if len(rolls) <= 2:
        _roll_into(out, a, rolls)
        return out
    # More axes: roll one axis at a time, alternating between out and a
    # scratch array so that the last step lands in out.
    scratch = _core.empty(a.shape, a.dtype)
    src = a
    for k, roll_k in enumerate(rolls):
        dst = out if (len(rolls) - 1 - k) % 2 == 0 else scratch
        _roll_into(dst, src, [roll_k])
        src = dst
    return out


def rot90(m, k=1, axes=(0, 1)):
    """A view of ``m`` rotated by 90 degrees ``k`` times in the plane of
    ``axes``, from the first axis towards the second."""
    a = _asarray(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == a.ndim:
        raise ValueError("Axes must be different.")
    if not (-a.ndim <= axes[0] < a.ndim and -a.ndim <= axes[1] < a.ndim):
        raise ValueError("Axes={} out of range in array of shape={}.".format(axes, a.shape))
    k = operator.index(k) % 4
    if k == 0:
        return a[...]
    if k == 2:
        return flip(flip(a, axes[0]), axes[1])
    order = list(range(a.ndim))
    i, j = axes[0] % a.ndim, axes[1] % a.ndim
    order[i], order[j] = order[j], order[i]
    if k == 1:
        return transpose(flip(a, axes[1]), order)
    return flip(transpose(a, order), axes[1])


# --- adding and removing elements (issue 22) ----------------------------------

def row_stack(tup, *, dtype=None, casting="same_kind"):
    """vstack under its deprecated name (NumPy 2.4 warns, as here)."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


def delete(arr, obj, axis=None):
    """A copy of arr without the entries obj (a slice, integers or a boolean
    mask) names along axis (of the flattened array when None)."""
    a = _asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    keep = numpy.ones(n, dtype=bool)
    obj = obj if isinstance(obj, slice) else numpy.asarray(obj.get() if isinstance(obj, ndarray) else obj)
    if isinstance(obj, slice) or obj.dtype != bool:
        if not isinstance(obj, slice) and obj.dtype.kind not in "iu":
            if obj.size:
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            obj = obj.astype(numpy.intp)
        keep[obj] = False
    elif obj.shape != (n,):
        raise ValueError("boolean array argument obj to delete must be one dimensional and match the "
                         "axis length of %d" % n)
    else:
        keep = ~obj
    return a[_index(axis, a.ndim, numpy.flatnonzero(keep))]


def append(arr, values, axis=None):
    """arr and values joined along axis (both flattened when None): a copy."""
    if axis is None:
        return concatenate((ravel(_asarray(arr)), ravel(_asarray(values))), 0)
    return concatenate((arr, values), axis)


def resize(a, new_shape):
    """A new array of new_shape filled with a's elements (C order) repeated,
    zeros when a is empty: numpy.resize."""
    shape = _shape_tuple(new_shape)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    return _core._resize(_asarray(a), shape)


def trim_zeros(filt, trim="fb", axis=None):
    """filt without its leading ('f') and/or trailing ('b') zeros along the
    given axes (every axis when None): a view, numpy.trim_zeros."""
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError("unexpected character(s) in `trim`: %r" % trim)
    a = _asarray(filt)
    axes = range(a.ndim) if axis is None else _axis_tuple(axis, a.ndim, "axis")
    if not axes:
        return filt
    return a[tuple(slice(lo if "f" in trim or not hi else None, hi if "b" in trim or not hi else None)
                   if d in axes else slice(None) for d, (lo, hi) in enumerate(_core._nonzero_bounds(a)))]


def _block_depth(x, where):
    """(list depth, largest array ndim) of numpy.block's argument, checked."""
    if type(x) is tuple:
        raise TypeError("%s is a tuple. Only lists can be used to arrange blocks, and np.block does not "
                        "allow implicit conversion from tuple to ndarray." % where)
    if type(x) is not list:
        return 0, ndim(x)
    if not x:
        raise ValueError("List at %s cannot be empty" % where)
    inner = [_block_depth(v, "%s[%d]" % (where, i)) for i, v in enumerate(x)]
    for i, (d, _) in enumerate(inner):
        if d != inner[0][0]:
            raise ValueError("List depths are mismatched. First element was at depth %d, but there is an "
                             "element at depth %d (%s[%d])" % (inner[0][0] + 1, d + 1, where, i))
    return inner[0][0] + 1, max(n for _, n in inner)


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists
    join along the last axis, the next ones along the one before, ...
    (numpy.block; one copy per block and level)."""
    depth, nd = _block_depth(arrays, "arrays")
    nd = max(nd, depth)

    def build(x, level):
        if type(x) is list:
            return concatenate([build(v, level + 1) for v in x], axis=level - depth)
        a = _asarray(x)
        return reshape(a, (1,) * (nd - a.ndim) + a.shape)
    return build(arrays, 0) if depth else _asarray(arrays).copy()


ndarray.repeat = lambda self, repeats, axis=None: repeat(self, repeats, axis)   # numpy.ndarray.repeat

__all__ = [
    "reshape", "ravel", "shape", "ndim", "size", "transpose", "swapaxes", "moveaxis", "rollaxis",
    "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes",
    "broadcast_to", "broadcast_arrays", "concatenate", "stack", "hstack", "vstack", "dstack",
    "column_stack", "array_split", "split", "hsplit", "vsplit", "dsplit", "tile", "repeat", "flip",
    "fliplr", "flipud", "roll", "rot90", "row_stack", "delete", "append", "resize", "trim_zeros", "block",
]
