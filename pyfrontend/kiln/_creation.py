"""Array creation, as NumPy 2's: arrays from host data and other arrays
(array, asarray, copy, ...), new arrays (empty, zeros, ones, full and their
_like forms), ranges (arange, linspace, logspace, geomspace), matrices (eye,
identity, diag, diagonal, diagflat, tri, tril, triu) and grids (meshgrid, indices,
fromfunction); asnumpy copies back to the host.

    import kiln
    x = kiln.linspace(0, 1, 5)                          # float64: 0, 0.25, ..., 1
    m = kiln.tril(kiln.ones((3, 3), dtype=kiln.int32))  # lower triangle of ones
    xx, yy = kiln.meshgrid(kiln.arange(3), kiln.arange(2))   # each of shape (2, 3)
    kiln.asnumpy(kiln.eye(2, k=1)).tolist()             # [[0.0, 1.0], [0.0, 0.0]]

Host data (Python scalars and sequences, NumPy arrays) is converted by NumPy
on the host and uploaded once. Everything else runs on the device: fills and
casts through the copy kernel, views through _core._as_strided, and the
values of linspace, logspace and geomspace in one generated kernel (Note
[Spaced values] in arraycore/creation.h), computed in double or complex
double and cast to the result dtype.
"""
import contextlib
import functools
import inspect
import math
import operator

import numpy

from kiln import _copyto
from kiln import _core
from kiln._core import ndarray

AxisError = numpy.exceptions.AxisError

_NO_COPY = ("Unable to avoid copy while creating an array as requested.\n"
            "If using `np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow a copy when "
            "needed (no behavior change in NumPy 1.x).")


# --- device= (the array API standard's) -------------------------------------

def _on_device(device):
    """The context that makes `device` current while an array is made: None
    (the current device), or a kiln.cuda.Device of this backend (an array's
    ``.device``, one of ``__array_namespace_info__().devices()``); anything
    else is a ValueError."""
    if device is None:
        return contextlib.nullcontext()
    from kiln.cuda import Device, runtime
    if isinstance(device, Device) and 0 <= device.id < runtime.getDeviceCount():
        return device
    raise ValueError(f"device={device!r} is not a device kiln can use here: pass None, an array's .device or one of "
                     f"kiln.__array_namespace_info__().devices() ({Device()!r} is the current one)")


def _takes_device(f):
    """f with the keyword-only ``device=None`` of the array API standard's
    creation functions: the result is made on that device."""
    @functools.wraps(f)
    def creation(*args, device=None, **kwargs):
        if device is None:
            return f(*args, **kwargs)
        with _on_device(device):
            return f(*args, **kwargs)
    sig = inspect.signature(f)
    creation.__signature__ = sig.replace(parameters=[*sig.parameters.values(),
                                                     inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY,
                                                                       default=None)])
    return creation


def empty(shape, dtype=None, order="C", *, device=None):
    """A new uninitialised array (float64 unless dtype is given), on `device`
    (None: the current one)."""
    if device is None:
        return _core.empty(shape, dtype, order)
    with _on_device(device):
        return _core.empty(shape, dtype, order)


def zeros(shape, dtype=None, order="C", *, device=None):
    """A new array of zeros (float64 unless dtype is given), on `device`
    (None: the current one)."""
    if device is None:
        return _core.zeros(shape, dtype, order)
    with _on_device(device):
        return _core.zeros(shape, dtype, order)


# --- layouts ---------------------------------------------------------------

def _order(order):
    """'C', 'F', 'A' or 'K' (None means 'K'); NumPy's ValueError otherwise."""
    if order is None:
        return "K"
    if isinstance(order, str) and order.upper() in ("C", "F", "A", "K"):
        return order.upper()
    raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % (order,))


def _contiguity(a):
    if isinstance(a, ndarray):
        return a._c_contiguous, a._f_contiguous
    return a.flags.c_contiguous, a.flags.f_contiguous


def _axis_order(a, order, ndim=None):
    """The axes, outermost first, of a new array laid out per ``order``
    relative to prototype ``a`` (kiln or NumPy array): NumPy's rules for
    'A' (F when a is F- but not C-contiguous) and 'K' (a's stride order,
    C when ``ndim`` differs from a's)."""
    ndim = a.ndim if ndim is None else ndim
    c, f = _contiguity(a)
    if order == "A":
        order = "F" if f and not c else "C"
    elif order == "K" and (ndim != a.ndim or c or f):
        order = "C" if ndim != a.ndim or c else "F"
    if order == "C":
        return list(range(ndim))
    if order == "F":
        return list(range(ndim))[::-1]
    return _core._memory_order_axes(a.strides)   # Note [Memory order of axes]


def _has_layout(a, order):
    c, f = a._c_contiguous, a._f_contiguous
    return {"C": c, "F": f, "A": c or f, "K": True}[order]


def _shape_tuple(shape):
    if isinstance(shape, (int, numpy.integer)) or not hasattr(shape, "__iter__"):
        return (operator.index(shape),)
    return tuple(operator.index(n) for n in shape)


def _view(a, shape, strides, offset=0):
    return _core._as_strided(a, tuple(shape), tuple(strides), offset)


def _broadcast_view(a, shape):
    """a seen with ``shape`` (stride 0 on new and stretched axes); ValueError naming both shapes."""
    return _core._broadcast_to(a, tuple(shape))


def _new(shape, dtype, axis_order, zero=False):
    make = _core._zeros_in_axis_order if zero else _core._empty_in_axis_order
    return make(tuple(shape), numpy.dtype(dtype), list(axis_order))


# --- arrays from data --------------------------------------------------------

def _device_array(obj):
    """obj when it is a kiln array, the kiln array it stands for when it has
    __cupy_get_ndarray__ or __cuda_array_interface__ (Note [Foreign device
    operands]), else None."""
    return obj if isinstance(obj, ndarray) else _core._foreign_device_array(obj)


def _holds_kiln(obj):
    if isinstance(obj, (list, tuple)):
        return any(_holds_kiln(x) for x in obj)
    return _device_array(obj) is not None


def _from_host(obj, dtype, order):
    host = numpy.asarray(obj, dtype=dtype)
    return _core._upload_in_axis_order(host, _axis_order(host, order))


def _from_nested(obj, dtype, order):
    """A sequence holding kiln arrays: one copy per item, on the device."""
    parts = [_device_array(x) if not isinstance(x, (list, tuple)) and _holds_kiln(x) else
             _from_nested(x, None, "C") if _holds_kiln(x) else numpy.asarray(x) for x in obj]
    shapes = [p.shape for p in parts]
    if any(s != shapes[0] for s in shapes):
        common = 0
        while all(len(s) > common for s in shapes) and len({s[common] for s in shapes}) == 1:
            common += 1
        raise ValueError("setting an array element with a sequence. The requested array has an inhomogeneous "
                         "shape after %d dimensions. The detected shape was %s + inhomogeneous part."
                         % (common + 1, (len(parts),) + shapes[0][:common]))
    if dtype is None:
        dtype = numpy.result_type(*[p.dtype for p in parts])
    shape = (len(parts),) + shapes[0]
    out = _new(shape, dtype, range(len(shape))[::-1] if order == "F" else range(len(shape)))
    for i, part in enumerate(parts):
        out[i] = part
    return out


_HOST_TYPES = frozenset([numpy.ndarray, list, tuple, int, float, complex, bool])


def array(obj, dtype=None, copy=True, order="K", ndmin=0, *, blocking=False):
    """A kiln array from host data (scalars, nested sequences, NumPy arrays),
    a kiln array, another library's device array (anything with
    ``__cuda_array_interface__``: viewed in place, Note [CAI import]), or
    sequences mixing kiln arrays and host data, as numpy.array: ``copy=True`` always copies, ``copy=None`` copies only when
    dtype or order demand it, ``copy=False`` never copies and raises
    ValueError when it would have to. Host data always needs a copy (the
    upload), so it raises with ``copy=False``; ``blocking=True`` waits for
    that upload to finish (CuPy's keyword)."""
    order = _order(order)
    ndmin = operator.index(ndmin)
    if ndmin > 64:
        raise ValueError("ndmin bigger than allowable number of dimensions NPY_MAXDIMS (=64)")
    if type(obj) not in _HOST_TYPES and not isinstance(obj, ndarray):
        # Another library's device array (PyTorch, Numba, ...): viewed in place.
        foreign = _core._foreign_device_array(obj)
        if foreign is not None:
            obj = foreign
    if isinstance(obj, ndarray):
        target = obj.dtype if dtype is None else numpy.dtype(dtype)
        out = obj
        if (copy is not None and copy) or target != obj.dtype or not _has_layout(obj, order):
            if copy is not None and not copy:
                raise ValueError(_NO_COPY)
            out = _new(obj.shape, target, _axis_order(obj, order))
            out[...] = obj   # warns ComplexWarning for complex -> real, as NumPy
    elif copy is not None and not copy:
        raise ValueError(_NO_COPY)
    elif _holds_kiln(obj):
        out = _from_nested(obj, dtype, order)
    else:
        out = _from_host(obj, dtype, order)
        if blocking:
            from kiln.cuda import get_current_stream
            get_current_stream().synchronize()
    if out.ndim < ndmin:
        extra = ndmin - out.ndim
        out = _view(out, (1,) * extra + out.shape, (0,) * extra + out.strides)
    return out


def asarray(a, dtype=None, order=None, copy=None, *, blocking=False, device=None):
    """array(a, dtype, copy=copy, order=order): ``a`` itself when it is a kiln
    array of that dtype and order; a view of another library's device array
    (Note [CAI import]). ``device=`` (the array API's) makes the result on
    that device, copying a kiln array from another one."""
    if device is not None:
        with _on_device(device):
            if isinstance(a, ndarray) and a.device != device:
                if copy is False:
                    raise ValueError("asarray(copy=False): the array is on " + repr(a.device) + ", not on " +
                                     repr(device))
                a, copy = a.to_device(device), None
            return asarray(a, dtype, order, copy, blocking=blocking)
    if dtype is None and order is None and copy is None and type(a) not in _HOST_TYPES \
            and not isinstance(a, ndarray):
        # The interop fast path (kiln.asarray(torch_tensor)): nothing to convert.
        foreign = _core._foreign_device_array(a)
        if foreign is not None:
            return foreign
    return array(a, dtype, copy=copy, order=order, blocking=blocking)


def asanyarray(a, dtype=None, order=None, copy=None, *, blocking=False):
    """asarray (kiln has no ndarray subclasses)."""
    return array(a, dtype, copy=copy, order=order, blocking=blocking)


def ascontiguousarray(a, dtype=None):
    """A C-contiguous array (ndim >= 1) with a's values; a itself when it already is one."""
    return array(a, dtype, copy=None, order="C", ndmin=1)


def asfortranarray(a, dtype=None):
    """An F-contiguous array (ndim >= 1) with a's values; a itself when it already is one."""
    return array(a, dtype, copy=None, order="F", ndmin=1)


def copy(a, order="K"):
    """A new array with a's values (order 'K' keeps a's memory order)."""
    return array(a, copy=True, order=order)


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """Copy a kiln array to a NumPy array (into ``out`` when given); NumPy and
    other host inputs come back through numpy.asarray.

    With ``blocking=False`` the copy is only queued on ``stream``: ``out`` (or
    the returned array) is complete once that stream is synchronized, and the
    host is free meanwhile when ``out`` is page-locked memory."""
    device = _device_array(a)   # another library's device array too
    if device is not None:
        return _core._to_numpy(device, stream, order, out, blocking)
    if out is not None:
        out[...] = a
        return out
    return numpy.asarray(a, order=order)


@_takes_device
def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in [start, stop), as numpy.arange."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("step of arange must not be zero")
    if dtype is None:
        dtype = numpy.result_type(start, stop, step)
    dtype = numpy.dtype(dtype)
    n = max(int(math.ceil((stop - start) / step)), 0)
    integral = all(isinstance(v, (int, numpy.integer)) for v in (start, stop, step))
    if dtype.kind == "b":
        if n > 2:
            raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
        return array([bool(start), bool(start + step)][:n], dtype=dtype)
    if dtype.kind in "iu" and integral:
        return _core._arange_int(operator.index(start), operator.index(step), n, dtype)
    if dtype.kind == "c":   # real start and step: the real parts' range, imaginary parts 0
        real = numpy.float32 if dtype == numpy.complex64 else numpy.float64
        return _core._arange_float(float(start), float(step), n, numpy.dtype(real)).astype(dtype)
    return _core._arange_float(float(start), float(step), n, dtype)


# --- new arrays -------------------------------------------------------------

@_takes_device
def ones(shape, dtype=None, order="C"):
    """A new array of ones (float64 unless dtype is given)."""
    out = empty(shape, dtype, order)
    out.fill(1)
    return out


@_takes_device
def full(shape, fill_value, dtype=None, order="C"):
    """A new array holding fill_value (a scalar or an array broadcast to
    shape; dtype defaults to fill_value's, cast unsafely as NumPy does)."""
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, ndarray) else numpy.asarray(fill_value).dtype
    out = empty(shape, dtype, order)
    _copyto.copyto(out, fill_value, casting="unsafe")   # NumPy's full: a Python int must fit dtype
    return out


@_takes_device
def empty_like(prototype, dtype=None, order="K", subok=None, shape=None):
    """A new uninitialised array with prototype's shape and dtype (or the
    given ones). order 'K' keeps prototype's memory order (also for a new
    shape of the same ndim), 'A' is F when prototype is F-contiguous only.
    ``subok=True`` is refused, as CuPy does (kiln has no subclasses)."""
    return _like(prototype, dtype, order, shape, False, subok)


def _refuse_subok(subok):
    if subok:
        raise TypeError("subok=True is not supported: kiln arrays have no subclasses")


def _like(prototype, dtype, order, shape, zero, subok):
    _refuse_subok(subok)
    proto = prototype if isinstance(prototype, ndarray) else numpy.asarray(prototype)
    dtype = proto.dtype if dtype is None else numpy.dtype(dtype)
    shape = proto.shape if shape is None else _shape_tuple(shape)
    return _new(shape, dtype, _axis_order(proto, _order(order), len(shape)), zero)


@_takes_device
def zeros_like(prototype, dtype=None, order="K", subok=None, shape=None):
    """empty_like, filled with zeros."""
    return _like(prototype, dtype, order, shape, True, subok)


@_takes_device
def ones_like(prototype, dtype=None, order="K", subok=None, shape=None):
    """empty_like, filled with ones."""
    out = empty_like(prototype, dtype, order, subok, shape)
    out.fill(1)
    return out


@_takes_device
def full_like(prototype, fill_value, dtype=None, order="K", subok=None, shape=None):
    """empty_like, filled with fill_value (broadcast, cast unsafely)."""
    out = empty_like(prototype, dtype, order, subok, shape)
    _copyto.copyto(out, fill_value, casting="unsafe")
    return out


def empty_pinned(shape, dtype=float, order="C"):
    """A NumPy array in page-locked host memory (cupyx.empty_pinned): copies
    between it and the device (asnumpy(a, out=..., blocking=False)) are
    truly asynchronous. Its base is the kiln.cuda.PinnedMemoryPointer."""
    from kiln.cuda import alloc_pinned_memory   # kiln.cuda imports this module
    shape, dtype = _shape_tuple(shape), numpy.dtype(dtype)
    return numpy.ndarray(shape, dtype, buffer=alloc_pinned_memory(math.prod(shape) * dtype.itemsize),
                         order=order)


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    """empty_pinned with a's shape and dtype (or the given ones), laid out
    per ``order`` as empty_like (cupyx.empty_like_pinned)."""
    _refuse_subok(subok)
    shape = a.shape if shape is None else _shape_tuple(shape)
    axes = _axis_order(a if isinstance(a, ndarray) else numpy.asarray(a), _order(order), len(shape))
    stored = empty_pinned([shape[d] for d in axes], a.dtype if dtype is None else dtype)
    return stored if axes == sorted(axes) else stored.transpose(numpy.argsort(axes))


def zeros_pinned(shape, dtype=float, order="C"):
    """empty_pinned filled with zeros (cupyx.zeros_pinned)."""
    out = empty_pinned(shape, dtype, order)
    out[...] = 0
    return out


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    """empty_like_pinned filled with zeros (cupyx.zeros_like_pinned)."""
    out = empty_like_pinned(a, dtype, order, subok, shape)
    out[...] = 0
    return out


# --- ranges -----------------------------------------------------------------

_LINEAR, _LOGARITHMIC, _GEOMETRIC, _STEP = 0, 1, 2, 3


def _promotion_operand(x):
    """x as numpy.result_type should see it: Python scalars stay weak (NEP 50)."""
    if isinstance(x, (bool, int, float, complex)):
        return x
    if isinstance(x, (ndarray, numpy.ndarray, numpy.generic)):
        return x.dtype
    return numpy.asarray(x).dtype


def _inexact(dtype):
    return numpy.dtype(numpy.float64) if dtype.kind in "biu" else dtype


def _num(num):
    num = operator.index(num)
    if num < 0:
        raise ValueError("Number of samples, %s, must be non-negative." % num)
    return num


def _compute_operands(complex_values, *values):
    """Each value as a float64 (complex128) kiln array, and their broadcast shape."""
    compute = numpy.dtype(numpy.complex128 if complex_values else numpy.float64)
    arrays = [v.astype(compute) if isinstance(v, ndarray) else _from_host(numpy.asarray(v, dtype=compute), None, "C")
              for v in values]
    return arrays, tuple(numpy.broadcast_shapes(*[a.shape for a in arrays]))


def _spaced(spacing, num, endpoint, floor_values, operands, shape, axis, dtype):
    """The spaced values (Note [Spaced values]) of shape (num,) + shape with
    axis 0 moved to ``axis``, C-contiguous, cast to ``dtype``."""
    frame = (num,) + shape
    axis = operator.index(axis)
    if not -len(frame) <= axis < len(frame):
        raise AxisError(axis, len(frame), "destination")
    axis %= len(frame)
    final = frame[1:axis + 1] + (num,) + frame[axis + 1:]
    out = empty(final, dtype)
    compute = operands[0].dtype
    values = out if out.dtype == compute else empty(final, compute)
    strides = values.strides
    front = _view(values, frame, (strides[axis],) + strides[:axis] + strides[axis + 1:])
    start, stop, base = [_broadcast_view(a, frame) for a in (operands + [operands[0]])[:3]]
    _core._fill_spaced(front, start, stop, base, num, endpoint, spacing, floor_values)
    if values is not out:
        out[...] = values
    return out


@_takes_device
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from start to stop (stop excluded when not
    ``endpoint``), as numpy.linspace: start and stop may be arrays (the
    values then run along ``axis``), an integer dtype floors the values,
    and ``retstep`` also returns the spacing (a NumPy scalar for scalar
    start and stop, else a kiln array). Values are computed in double (or
    complex double) and rounded once to the result dtype, so float32 and
    float16 results can differ from NumPy's (which computes in that
    precision) in the last bit."""
    num = _num(num)
    computed = _inexact(numpy.result_type(_promotion_operand(start), _promotion_operand(stop)))
    integer = dtype is not None and numpy.issubdtype(dtype, numpy.integer)
    if integer and computed.kind == "c":
        raise TypeError("linspace cannot give integer dtype %s from complex start or stop "
                        "(numpy's floor is not defined for complex values)" % numpy.dtype(dtype))
    if computed.itemsize < (16 if computed.kind == "c" else 8):
        return _narrow_linspace(start, stop, num, endpoint, retstep, dtype, axis, computed, integer)
    operands, shape = _compute_operands(computed.kind == "c", start, stop)
    out = _spaced(_LINEAR, num, endpoint, integer, operands, shape, axis,
                  computed if dtype is None else dtype)
    if not retstep:
        return out
    div = num - 1 if endpoint else num
    if isinstance(start, ndarray) or isinstance(stop, ndarray):
        step = empty((1,) + shape, operands[0].dtype)
        _core._fill_spaced(step, *[_broadcast_view(a, step.shape) for a in operands + operands[:1]],
                           num, endpoint, _STEP, False)
        return out, step.reshape(shape).astype(computed, copy=False)
    delta = numpy.subtract(stop, start, dtype=computed.type)
    step = delta / div if div > 0 else numpy.nan
    if isinstance(step, numpy.ndarray) and step.ndim > 0:
        step = _from_host(step, None, "C")
    return out, step


def _narrow_linspace(start, stop, num, endpoint, retstep, dtype, axis, computed, integer):
    """linspace computed in float16, float32 or complex64 (start or stop of
    that dtype): NumPy's operations in NumPy's order, each rounded to that
    dtype, so the values are NumPy's bit for bit."""
    on_device = isinstance(start, ndarray) or isinstance(stop, ndarray)
    start, stop = array(start, computed, copy=None), array(stop, computed, copy=None)
    delta = stop - start
    y = arange(0, num, dtype=computed).reshape((-1,) + (1,) * delta.ndim)
    div = num - 1 if endpoint else num
    step = delta / div if div > 0 else float("nan")
    if div > 0 and bool((step == 0).any()):   # subnormal steps (NumPy's rule, for all elements at once)
        y = y / div * delta
    else:
        y = y * (step if div > 0 else delta)
    y += start
    if endpoint and num > 1:
        y[-1, ...] = stop
    axis = operator.index(axis)
    if not -y.ndim <= axis < y.ndim:
        raise AxisError(axis, y.ndim, "destination")
    y = y.transpose(list(range(1, axis % y.ndim + 1)) + [0] + list(range(axis % y.ndim + 1, y.ndim)))
    if integer:
        y = _core._ufuncs["floor"](y)
    y = y.astype(computed if dtype is None else dtype, copy=False)
    if not retstep:
        return y
    return y, (step if isinstance(step, float) or step.ndim or on_device else step.dtype.type(step.get()))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num, endpoint), as numpy.logspace
    (base may be an array, broadcast against start and stop; an integer
    dtype truncates, as NumPy's cast does)."""
    num = _num(num)
    exponent = _inexact(numpy.result_type(_promotion_operand(start), _promotion_operand(stop)))
    computed = numpy.result_type(exponent, _promotion_operand(base))
    operands, shape = _compute_operands(computed.kind == "c", start, stop, base)
    return _spaced(_LOGARITHMIC, num, endpoint, False, operands, shape, axis,
                   computed if dtype is None else dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Values spaced evenly on a log scale from start to stop, as
    numpy.geomspace (negative and complex ends included: the sequence is
    spaced on the ray through start). Kiln-array start or stop are read
    back to the host once to check for zeros."""
    num = _num(num)
    host_start, host_stop = [numpy.asarray(x.get() if isinstance(x, ndarray) else x) for x in (start, stop)]
    if (host_start == 0).any() or (host_stop == 0).any():
        raise ValueError("Geometric sequence cannot include zero")
    computed = numpy.result_type(host_start, host_stop, float(num), numpy.zeros((), dtype))
    operands, shape = _compute_operands(computed.kind == "c", start, stop)
    return _spaced(_GEOMETRIC, num, endpoint, False, operands, shape, axis,
                   computed if dtype is None else dtype)


# --- matrices ---------------------------------------------------------------

def _diagonal_view(a, k, axis1=0, axis2=1):
    """The k-th diagonal of ``a`` over axes axis1 and axis2 (distinct,
    non-negative), as a view: a's other axes in order, then the diagonal."""
    k = operator.index(k)
    n, m = a.shape[axis1], a.shape[axis2]
    s0, s1 = a.strides[axis1], a.strides[axis2]
    length = max(min(n, m - k) if k >= 0 else min(n + k, m), 0)
    offset = (k * s1 if k >= 0 else -k * s0) if length else 0
    rest = [d for d in range(a.ndim) if d not in (axis1, axis2)]
    return _view(a, [a.shape[d] for d in rest] + [length], [a.strides[d] for d in rest] + [s0 + s1], offset)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonal over axes axis1 and axis2, as
    numpy.diagonal: a view with a's other axes first and the diagonal last.
    NumPy 2 returns a read-only view; kiln arrays have no read-only flag,
    so writing into kiln's view writes into ``a``."""
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    for axis, label in ((axis1, "axis1"), (axis2, "axis2")):
        axis = operator.index(axis)
        if not -a.ndim <= axis < a.ndim:
            raise AxisError(axis, a.ndim, label)
    axis1, axis2 = operator.index(axis1) % a.ndim, operator.index(axis2) % a.ndim
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return _diagonal_view(a, offset, axis1, axis2)


@_takes_device
def eye(N, M=None, k=0, dtype=float, order="C"):
    """A 2-d array with ones on the k-th diagonal and zeros elsewhere."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    out = zeros((N, M), dtype, order)
    diagonal = _diagonal_view(out, k)
    if diagonal.size:
        diagonal.fill(1)
    return out


def identity(n, dtype=None):
    """The n x n identity matrix (float64 unless dtype is given)."""
    return eye(n, dtype=float if dtype is None else dtype)


def _diag_matrix(v, k):
    n = v.shape[0] + abs(operator.index(k))
    out = zeros((n, n), v.dtype)
    if v.size:
        _diagonal_view(out, k)[...] = v
    return out


def diag(v, k=0):
    """For 1-d v, a new 2-d array with v on the k-th diagonal; for 2-d v, its
    k-th diagonal. That diagonal is a writable kiln view of v (NumPy 2
    returns a read-only view)."""
    v = asarray(v)
    if v.ndim == 1:
        return _diag_matrix(v, k)
    if v.ndim == 2:
        return _diagonal_view(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """A new 2-d array with the flattened v on the k-th diagonal."""
    return _diag_matrix(asarray(v).ravel(), k)


def _tri_mask(N, M, k, lower, lead=()):
    """A bool view of shape lead + (N, M), True where j - i <= k (lower) or
    j - i >= k (upper): one line of N + M - 1 values seen with strides
    (-1, 1), so that mask[i, j] = line[j - i + N - 1]."""
    N, M, k = max(operator.index(N), 0), max(operator.index(M), 0), operator.index(k)
    shape = tuple(lead) + (N, M)
    if N == 0 or M == 0:
        return zeros(shape, numpy.bool_)
    length = N + M - 1
    line = zeros(length, numpy.bool_)
    if lower:
        cut = min(max(k + N, 0), length)
        if cut > 0:
            line[:cut] = True
    else:
        cut = min(max(k + N - 1, 0), length)
        if cut < length:
            line[cut:] = True
    return _view(line, shape, (0,) * len(lead) + (-1, 1), N - 1)


def tri(N, M=None, k=0, dtype=float):
    """An N x M array with ones at and below the k-th diagonal, zeros above."""
    M = N if M is None else M
    # The result first: a shape no array may have fails before the mask is made.
    out = empty((max(operator.index(N), 0), max(operator.index(M), 0)), dtype)
    out[...] = _tri_mask(N, M, k, True)
    return out


def _triangle(m, k, lower, name):
    m = asarray(m)
    if m.ndim == 0:
        raise TypeError("%s() needs an array of at least 1 dimension, got a 0-d array" % name)
    shape = m.shape if m.ndim >= 2 else (m.shape[0], m.shape[0])
    out = zeros(shape, m.dtype)
    mask = _tri_mask(shape[-2], shape[-1], k, lower, shape[:-2])
    _core._copy_where(out, _broadcast_view(m, shape), mask)
    return out


def tril(m, k=0):
    """A copy of m (or of each matrix in a stack) with the elements above the
    k-th diagonal zeroed; 1-d m is a row repeated into a square."""
    return _triangle(m, k, True, "tril")


def triu(m, k=0):
    """A copy of m (or of each matrix in a stack) with the elements below the
    k-th diagonal zeroed; 1-d m is a row repeated into a square."""
    return _triangle(m, k, False, "triu")


# --- grids ------------------------------------------------------------------

def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors (inputs are flattened),
    as numpy.meshgrid: a tuple; with ``copy=False``, broadcast views of the
    inputs."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    flat = [asarray(x).ravel() for x in xi]
    ndim = len(flat)
    axes = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        axes[0], axes[1] = 1, 0
    outputs = []
    for x, axis in zip(flat, axes):
        shape, strides = [1] * ndim, [0] * ndim
        shape[axis], strides[axis] = x.shape[0], x.strides[0]
        outputs.append(_view(x, shape, strides))
    if not sparse:
        full_shape = [1] * ndim
        for x, axis in zip(flat, axes):
            full_shape[axis] = x.shape[0]
        outputs = [_broadcast_view(x, full_shape) for x in outputs]
    if copy:
        outputs = [x.copy() for x in outputs]
    return tuple(outputs)


def indices(dimensions, dtype=int, sparse=False):
    """Index grids: out[i] holds the i-th index of each position in an array
    of shape ``dimensions`` (one array of shape (len(dimensions),) +
    dimensions; with ``sparse``, a tuple of arrays broadcastable to it).
    dtype=bool takes axes of length 2 at most, as NumPy's."""
    dimensions = tuple(dimensions)
    ndim = len(dimensions)
    dtype = numpy.dtype(dtype)
    if dtype == numpy.bool_ and any(n > 2 for n in dimensions):
        raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
    out = [] if sparse else empty((ndim,) + dimensions, dtype)
    for i, n in enumerate(dimensions):
        shape = [1] * ndim
        shape[i] = n
        line = arange(n).reshape(shape)
        if sparse:
            out.append(line.astype(dtype))
        else:
            out[i] = _broadcast_view(line, dimensions)
    return tuple(out) if sparse else out


def fromfunction(function, shape, dtype=float, **kwargs):
    """function(*indices(shape, dtype), **kwargs): the function receives one
    kiln array of coordinates per axis."""
    return function(*indices(shape, dtype=dtype), **kwargs)
