"""kiln.copyto: numpy.copyto for kiln arrays (argument checks, NumPy's
messages and broadcasting here; the cast runs in the copy kernel)."""
import warnings

import numpy

from kiln import _core
from kiln._core import ndarray

_WEAK_SCALARS = (int, float, complex)   # NEP 50: Python bool is strong (numpy.bool_)


def copyto(dst, src, casting="same_kind", where=True):
    """Copy ``src`` into ``dst`` (cast to dst's dtype), broadcasting ``src``
    and ``where`` to dst's shape, where ``where`` is True: numpy.copyto.

    ``src`` may be a kiln array or host data (Python or NumPy scalars,
    sequences, NumPy arrays), uploaded first. Python int, float and complex
    are weak (NEP 50): they are checked against ``casting`` as dst's kind of
    value, and an int out of dst's range raises OverflowError. Complex to
    real casts take the real part and warn ComplexWarning, as NumPy does
    (complex -> bool is nonzero-ness: no warning).
    Differences from NumPy: ``dst`` must be a kiln array (TypeError
    otherwise)."""
    if not isinstance(dst, ndarray):
        raise TypeError("copyto() argument 1 must be a kiln.ndarray, not %s" % type(dst).__name__)
    _core.can_cast(dst.dtype, dst.dtype, casting)   # ValueError for an unknown casting=, before anything else
    src = _source_array(src, dst.dtype, casting)
    mask = _mask_array(where)
    src_view = _broadcast_to(src, dst.shape, "input array", extra_ones=True)
    if mask is False:
        return
    if mask is not None:
        mask = _broadcast_to(mask, dst.shape, "where mask", extra_ones=False)
    if src.dtype.kind == "c" and dst.dtype.kind not in "cVb":   # V<n> takes the bytes; bool reads both parts
        warnings.warn("Casting complex values to real discards the imaginary part",
                      numpy.exceptions.ComplexWarning, stacklevel=2)
    if mask is None:
        _core._copy_into(dst, src_view)
    else:
        _core._copy_where(dst, src_view, mask)


def _cast_error(ndim, from_dtype, to_dtype, casting):
    kind = "scalar" if ndim == 0 else "array data"
    return TypeError("Cannot cast %s from %r to %r according to the rule %r"
                     % (kind, numpy.dtype(from_dtype), numpy.dtype(to_dtype), casting))


def _check_cast(ndim, from_dtype, to_dtype, casting):
    from_dtype = numpy.dtype(from_dtype).newbyteorder("=")   # host values are swapped as they upload
    if not _core._kiln_dtype(from_dtype) or not _core.can_cast(from_dtype, to_dtype, casting):
        raise _cast_error(ndim, from_dtype, to_dtype, casting)


def _source_array(src, dst_dtype, casting):
    """src as a kiln array, after NumPy's casting check."""
    if isinstance(src, ndarray):
        _check_cast(src.ndim, src.dtype, dst_dtype, casting)
        return src
    if dst_dtype.kind == "V" and not isinstance(src, numpy.ndarray):   # NumPy's assignment converts a record
        _check_cast(numpy.ndim(src), numpy.asarray(src).dtype, dst_dtype, casting)
        return _core._assigned_value(src, dst_dtype)
    if type(src) in _WEAK_SCALARS:
        # The scalar takes dst's kind where it fits (int into int8 stays int8),
        # else the default of its own kind: result_type decides, as in NumPy.
        # The value is converted first (OverflowError for an int out of range,
        # whatever casting= says), then checked.
        as_dtype = numpy.dtype(_core.result_type(src, dst_dtype))
        host = numpy.asarray(src, dtype=as_dtype)
        _check_cast(0, as_dtype, dst_dtype, casting)
    else:
        host = numpy.asarray(src)
        if not _core._kiln_dtype(host.dtype):
            if casting != "unsafe":
                raise _cast_error(host.ndim, host.dtype, dst_dtype, casting)
            host = host.astype(dst_dtype)
        _check_cast(host.ndim, host.dtype, dst_dtype, casting)
    if not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))
    return _core._from_numpy(host, None)


def _mask_array(where):
    """None (copy everywhere), False (nowhere) or a bool kiln array."""
    if where is True:
        return None
    if isinstance(where, (ndarray, numpy.ndarray)):
        if where.dtype != numpy.bool_:
            raise _cast_error(where.ndim, where.dtype, numpy.bool_, "safe")
        host_or_device = where
    else:
        host_or_device = numpy.asarray(where, dtype=numpy.bool_)
    if isinstance(host_or_device, numpy.ndarray):
        if host_or_device.ndim == 0:
            return None if bool(host_or_device) else False
        return _core._from_numpy(numpy.ascontiguousarray(host_or_device), None)
    return host_or_device


def _broadcast_to(a, shape, what, extra_ones):
    """A view of kiln array a with `shape` (stride 0 along broadcast dimensions);
    ValueError as numpy.copyto's when a does not broadcast to it. With
    extra_ones, leading size-1 dimensions beyond len(shape) are dropped
    (numpy.copyto allows them for src, not for where)."""
    shape = tuple(shape)
    a_shape, a_strides = tuple(a.shape), tuple(a.strides)
    if a_shape == shape:
        return a
    fail = ValueError("could not broadcast %s from shape %s into shape %s"
                      % (what, _shape_str(a_shape), _shape_str(shape)))
    extra = len(a_shape) - len(shape)
    if extra > 0:
        if not extra_ones or any(n != 1 for n in a_shape[:extra]):
            raise fail
        a = _core._as_strided(a, a_shape[extra:], a_strides[extra:], 0)
    try:
        return _core._broadcast_to(a, shape)
    except ValueError:
        raise fail from None


def _shape_str(shape):
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
