"""The transforms behind kiln.fft and kiln.scipy.fftpack: argument checks
as NumPy 2 makes them, the passes a call needs, their plans (cached:
kiln.fft.config), and the execution: cuFFT on the cuda backend, numpy.fft
elsewhere.

    r = transform("fftn", a, "C2C", axes, sizes, True, "backward", out,
                  lambda h: numpy.fft.fftn(h, sizes, axes))

Note [FFT passes]
cuFFT transforms 1 to 3 axes per plan, laid out as Note [FFT plan layout]
(arraycore/fft.h) says: the transformed axes last, C-contiguous. A call is
cut into passes of at most three distinct axes (one axis each when an axis
repeats, or with config.enable_nd_planning off), in NumPy's order (which
matters where a repeated axis is truncated or padded differently each
time): the last axes first; rfftn's real-to-complex pass on its last axes,
then complex-to-complex passes on the others, the last first; irfftn's
complex-to-complex passes first first, then its complex-to-real pass. Each pass moves
its axes last as a view; when that view is not already of the plan's dtype,
extent and layout, one copy makes it so, casting and zero-padding or
truncating to n in the same copy. The pass's output is a new array (or the
copy itself, transformed in place, for complex-to-complex), seen with the
axes back where they were. Normalisation (norm=) is one multiply at the end,
by the product of every pass's factor.

Note [Hermitian C2R input]
A complex-to-real transform of n points reads the n // 2 + 1 terms of a
Hermitian spectrum, whose first term (and, for even n, last) is real.
NumPy's irfft and hfft drop those terms' imaginary parts; cuFFT's result
for input with them nonzero is undefined (and seen to differ between
sizes). 1-D passes therefore zero them in their copy of the input
(Note [C2R overwrites its input] makes that copy anyway), so irfft and
hfft match NumPy for any input. Multi-axis C2R plans (irfftn, irfft2)
leave the input as it is: there NumPy's result for a non-Hermitian input
depends on its order of 1-D passes, and kiln, like CuPy, gives cuFFT's
(docs/fft.md).

Note [FFT on the host backend]
On the host backend (and any backend without vendor libraries: uses_cufft
in _plan.py) the same checks,
passes and plan lookups run (so plan caches, get_fft_plan and errors behave
alike everywhere), and then numpy.fft computes the call on a NumPy view of
the kiln array: host-backend memory is host memory (numpy.from_dlpack
gives a zero-copy view, kDLCPU) and host launches are synchronous, so the
view holds the array's current values. NumPy 2's pocketfft keeps float32
and complex64 in single precision, as cuFFT does; its result is written
into a kiln array of the dtype the cuda backend gives.
"""
import math
import operator
import warnings

import numpy

from kiln import _core
from kiln._core import ndarray, _ufuncs
from kiln._creation import empty, zeros
from kiln._copyto import copyto
from kiln._manipulation import _asarray, _axis, _may_share_memory
from kiln.fft import config
from kiln.fft import _plan
from kiln.fft._plan import make_plan, current_plan, describe_key

_HOST_MEMORY = _core._backend_caps()["host_addressable"]   # NumPy views kiln arrays in place (Note [Backend traits])
_NORMS = ("backward", "ortho", "forward")
_SINGLE = frozenset(numpy.dtype(t) for t in ("float16", "float32", "complex64"))
SWAPPED_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def check_norm(norm):
    """norm as one of _NORMS (None is "backward"); NumPy's ValueError otherwise."""
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError('Invalid norm value %r; should be "backward", "ortho" or "forward".' % (norm,))
    return norm


def n_points(n):
    """A transform length as an int >= 1 (NumPy's ValueError otherwise)."""
    n = operator.index(n)
    if n < 1:
        raise ValueError("Invalid number of FFT data points (%d) specified." % n)
    return n


def as_input(a, name, real_only=False):
    a = _asarray(a)
    if real_only and a.dtype.kind == "c":
        raise TypeError("%s takes real input, got an array of %s" % (name, a.dtype))
    return a.astype(numpy.float32) if a.dtype.name == "bfloat16" else a   # in single precision, as NumPy


def cook_1d(a, n, axis, halved_input=False):
    """([axis], [n]) of a 1-D transform; n defaults to the axis' length (for
    complex-to-real transforms, 2 * (length - 1))."""
    if a.ndim == 0:
        raise IndexError("an FFT needs an array of at least one dimension, got a 0-d array")
    axis = _axis(axis, a.ndim, "axis")
    if n is None:
        n = 2 * (a.shape[axis] - 1) if halved_input else a.shape[axis]
    return [axis], [n_points(n)]


def cook_nd(a, s, axes, halved_input=False):
    """(axes, sizes) of an n-D transform, as NumPy 2 reads s and axes:
    axes default to all (or, with s given, the last len(s), deprecated);
    s defaults to the axes' lengths, -1 in s is the axis' length and None
    its 1-D transform's default (deprecated)."""
    if axes is None:
        if s is None:
            axes = range(a.ndim)
        else:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (deprecated in NumPy 2.0): the last "
                          "len(s) axes are transformed; pass axes explicitly", DeprecationWarning, stacklevel=4)
            axes = range(-len(s), 0)
    axes = [_axis(ax, a.ndim, "axes") for ax in axes]
    defaults = [a.shape[ax] for ax in axes]
    if halved_input and axes:
        defaults[-1] = 2 * (defaults[-1] - 1)
    if s is None:
        sizes = defaults
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
        if any(e is None for e in s):
            warnings.warn("None in `s` is deprecated in NumPy 2.0: pass each axis' size (or -1 for its length)",
                          DeprecationWarning, stacklevel=4)
        sizes = [d if e is None else (a.shape[ax] if e == -1 else e) for e, ax, d in zip(s, axes, defaults)]
    return axes, [n_points(e) for e in sizes]


def _groups(axes, sizes, width):
    """(axes, sizes) chunks of at most `width`, the last axes first."""
    out = []
    end = len(axes)
    while end > 0:
        start = max(0, end - width)
        out.append((axes[start:end], sizes[start:end]))
        end = start
    return out


def plan_passes(kind, axes, sizes):
    """[(kind, axes, sizes)] in execution order (Note [FFT passes])."""
    width = 3 if config._nd_planning and len(set(axes)) == len(axes) else 1
    if kind == "C2C":
        return [("C2C", ax, sz) for ax, sz in _groups(axes, sizes, width)]
    k = min(width, len(axes))
    real = (kind, axes[len(axes) - k:], sizes[len(axes) - k:])
    rest = [("C2C", ax, sz) for ax, sz in _groups(axes[:len(axes) - k], sizes[:len(axes) - k], width)]
    # NumPy: rfftn transforms the other axes last first (as fftn), irfftn first first
    return [real] + rest if kind == "R2C" else rest[::-1] + [real]


def _extents(kind, sizes):
    """(input extents, output extents) of a pass over `sizes` (real side)."""
    half = list(sizes[:-1]) + [sizes[-1] // 2 + 1]
    if kind == "R2C":
        return list(sizes), half
    if kind == "C2R":
        return half, list(sizes)
    return list(sizes), list(sizes)


def _dtypes(kind, double):
    real = numpy.dtype(numpy.float64 if double else numpy.float32)
    cplx = numpy.dtype(numpy.complex128 if double else numpy.complex64)
    return (real if kind == "R2C" else cplx), (real if kind == "C2R" else cplx)


def plan_key(kind, double, n, batch):
    return (kind, bool(double), tuple(n), int(batch), _core.get_device())


def plan_for(kind, double, n, batch, user_plan, passes):
    """The plan of one pass: `user_plan` when it matches (ValueError when it
    does not, or when the call needs several passes), else the cached one."""
    key = plan_key(kind, double, n, batch)
    if user_plan is not None:
        if passes != 1:
            raise ValueError("an FFT plan covers one cuFFT transform of 1 to 3 distinct axes; this call needs %d "
                             "(more than 3 axes, a repeated axis, or a real transform over several groups)"
                             % passes)
        if user_plan.key != key:
            raise ValueError("Target array size does not match the plan. The FFT plan is for %s; the transform "
                             "needs %s"
                             % (user_plan.describe(), describe_key(key)))
        return user_plan
    cache = config.get_plan_cache()
    plan = cache.get(key)
    if plan is None:
        try:
            plan = make_plan(kind, double, n, batch)
        except MemoryError:
            if not len(cache):
                raise
            # The cached plans' work areas (and cuFFT's own memory) may be what is missing.
            cache.clear()
            _core._pool_free_all_blocks()
            plan = make_plan(kind, double, n, batch)
        cache[key] = plan
    return plan


def _moved(x, axes):
    """x with `axes` moved last (a view) and the permutation used."""
    perm = [i for i in range(x.ndim) if i not in axes] + list(axes)
    return x.transpose(perm), perm


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def _prepared(v, nb, ext, dtype, conj, force_copy=False):
    """v (transformed axes last) as the C-contiguous `dtype` array of shape
    v.shape[:nb] + ext the plan reads: v itself when it already is one,
    else a copy cast, padded with zeros or truncated (Note [FFT passes])."""
    shape = tuple(v.shape[:nb]) + tuple(ext)
    if not conj and not force_copy and v.dtype == dtype and v.shape == shape and v.flags.c_contiguous:
        return v, False
    common = tuple(min(have, want) for have, want in zip(v.shape[nb:], ext))
    window = (Ellipsis,) + tuple(slice(0, c) for c in common)
    padded = common != tuple(ext)
    buf = zeros(shape, dtype) if padded else empty(shape, dtype)
    src = v[window] if common != tuple(v.shape[nb:]) else v
    if conj:
        src = src.conj()
    copyto(buf[window] if padded else buf, src, casting="unsafe")
    return buf, True


def _cufft_pass(x, step, double, forward, conj, plan, target):
    """One pass on the cuda backend: (the transformed array with the axes
    back in place, whether it was written into target)."""
    kind, axes, sizes = step
    v, perm = _moved(x, axes)
    nb = x.ndim - len(axes)
    in_ext, out_ext = _extents(kind, sizes)
    in_dtype, out_dtype = _dtypes(kind, double)
    batch_shape = tuple(v.shape[:nb])
    out_shape = batch_shape + tuple(out_ext)
    # Note [C2R overwrites its input]: a C2R pass always reads a copy of its own.
    buf, owned = _prepared(v, nb, in_ext, in_dtype, conj, force_copy=kind == "C2R")
    if kind == "C2R" and len(axes) == 1:
        # Note [Hermitian C2R input]: the terms a real signal's spectrum has real.
        buf.imag[..., 0] = 0
        if sizes[-1] % 2 == 0:
            buf.imag[..., -1] = 0
    into_target = target is not None and not _may_share_memory(target, buf)
    if into_target:
        res = target.transpose(perm)
    elif kind == "C2C" and owned:
        res = buf   # the copy is ours: transform it in place
    else:
        res = empty(out_shape, out_dtype)
    batch = math.prod(batch_shape)
    if batch > 0:
        flat = (batch,)
        plan._cufft.execute(buf.reshape(flat + tuple(in_ext)), res.reshape(flat + tuple(out_ext)),
                            forward if kind == "C2C" else kind == "R2C")
    return res.transpose(_inverse(perm)), into_target


def _fits(target, shape, dtype, perm):
    return (target is not None and target.dtype == dtype and tuple(target.shape) == tuple(shape)
            and target.transpose(perm).flags.c_contiguous)


def _numpy_view(x):
    """A NumPy array with x's values (Note [FFT on the host backend])."""
    return numpy.from_dlpack(x) if _HOST_MEMORY else x.get()


def _check_out(name, out, shape, dtype):
    if not isinstance(out, ndarray):
        raise TypeError("%s: out must be a kiln.ndarray, got %s" % (name, type(out).__name__))
    if tuple(out.shape) != tuple(shape):
        raise ValueError("output array has wrong shape: %s needs %s, got %s" % (name, tuple(shape), out.shape))
    if not numpy.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError("Cannot cast %s's output from %r to %r with casting rule 'same_kind'"
                        % (name, dtype, out.dtype))


def transform(name, a, kind, axes, sizes, forward, norm, out, numpy_call, conj_in=False, conj_out=False,
              plan=None):
    """The call `name` on kiln array a: a `kind` transform ('C2C', 'R2C',
    'C2R') over axes (normalised, may repeat) of logical (real-side) sizes,
    normalised by norm (after any hfft swap) in the direction `forward`
    (C2C; R2C is forward, C2R inverse); conj_in/conj_out conjugate the
    input/output (hfft, ihfft). numpy_call(view) computes the same with
    numpy.fft off the cuda backend. plan: a Plan given by the caller (else
    the one of a `with plan:` block, else the cache's)."""
    double = a.dtype not in _SINGLE
    passes = plan_passes(kind, axes, sizes)
    # Walk the passes' shapes: result shape and dtype, and each pass's plan.
    shape = list(a.shape)
    user_plan = plan if plan is not None else current_plan()
    plans = []
    for step_kind, step_axes, step_sizes in passes:
        batch = math.prod(e for i, e in enumerate(shape) if i not in step_axes)
        plans.append(plan_for(step_kind, double, step_sizes, batch, user_plan, len(passes)) if batch else None)
        for ax, e in zip(step_axes, _extents(step_kind, step_sizes)[1]):
            shape[ax] = e
    dtype = _dtypes(passes[-1][0], double)[1]
    if out is not None:
        _check_out(name, out, shape, dtype)

    if not _plan.uses_cufft():
        h = _numpy_view(a)
        # float32, as cuFFT reads it: NumPy would round norm's factor to float16
        r = numpy_call(h.astype(numpy.float32) if h.dtype == numpy.float16 else h)
        x = out if out is not None and out.dtype == dtype else empty(r.shape, dtype)
        if _HOST_MEMORY:
            numpy.from_dlpack(x)[...] = r
        else:
            x.set(numpy.asarray(r, dtype))
    else:
        x, into_out = a, False
        for i, (step, p) in enumerate(zip(passes, plans)):
            perm = [j for j in range(a.ndim) if j not in step[1]] + list(step[1])
            target = out if i == len(passes) - 1 and _fits(out, shape, dtype, perm) else None
            x, into_out = _cufft_pass(x, step, double, forward, conj_in and i == 0, p, target)
        scale = _scale(norm, math.prod(sizes), kind == "R2C" or (kind == "C2C" and forward))
        if scale != 1.0:
            _ufuncs["multiply"](x, scale, out=x)
        if conj_out:
            _ufuncs["conjugate"](x, out=x)
        if into_out:
            return out
    if out is None or x is out:
        return x
    copyto(out, x, casting="same_kind")
    return out


def _scale(norm, n, forward):
    """The factor a transform of n points is multiplied by under norm."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") == forward else 1.0


def call(name, kind, forward, a, axes_sizes, norm, out, numpy_fn, nd, conj=False, plan=None):
    """Checks the arguments of `name` and runs it (transform() in _fft.py).
    numpy_fn is NumPy's function of the same name (nd: takes s and axes);
    conj: hfft's conjugated input / ihfft's conjugated output, whose norm
    is the swapped one of irfft/rfft. plan: as transform() takes it."""
    a = as_input(a, name, real_only=kind == "R2C")
    norm = check_norm(norm)
    axes, sizes = axes_sizes(a)
    if not axes:
        if kind != "C2C":
            raise IndexError("%s needs at least one axis to transform" % name)
        return a.copy() if out is None else _copied_into(out, a)   # NumPy returns the values unchanged

    def numpy_call(h):
        return numpy_fn(h, sizes, axes, norm) if nd else numpy_fn(h, sizes[0], axes[0], norm)
    return transform(name, a, kind, axes, sizes, forward, SWAPPED_NORM[norm] if conj else norm, out, numpy_call,
                     conj_in=conj and kind == "C2R", conj_out=conj and kind == "R2C", plan=plan)


def _copied_into(out, a):
    copyto(out, a)
    return out
