"""kiln.scipy.fftpack: scipy.fftpack's transforms for kiln arrays, with
cuFFT plans given explicitly (CuPy's cupyx.scipy.fftpack).

    import kiln.scipy.fftpack as fftpack
    plan = fftpack.get_fft_plan(a, axes=(1, 2))    # a cuFFT plan for a's transform (a descriptor off cuda)
    b = fftpack.fftn(a, axes=(1, 2), plan=plan)     # uses it
    with plan:                                      # kiln.fft calls inside use it too
        c = kiln.fft.fftn(a, axes=(1, 2))

fft, ifft, fft2, ifft2, fftn, ifftn as scipy.fftpack has them (no norm:
inverse transforms divide by n; shape pads or truncates as s does; with
shape given and axes None, the last len(shape) axes), rfft and irfft in
fftpack's packed real format ([y0, Re y1, Im y1, ..., Re y(n/2)] for even
n; the last Im term is present for odd n), and get_fft_plan. overwrite_x
is accepted and ignored: inputs are never overwritten. The transforms run
through kiln.fft (docs/fft.md), in the precision it uses: float16, float32
and complex64 single, everything else double.
"""
import numpy

from kiln._creation import empty, zeros
from kiln._manipulation import _asarray, _axis, moveaxis
from kiln.fft import irfft as _irfft
from kiln.fft._fft import _SINGLE, call, cook_1d, cook_nd, plan_passes
from kiln.fft._plan import make_plan

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "get_fft_plan"]


def _nd(x, shape, axes):
    """cook_nd for fftpack's shape: with axes None, shape covers the last axes."""
    if axes is None and shape is not None:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        axes = range(-len(shape), 0)
    return cook_nd(x, shape, axes)


def fft(x, n=None, axis=-1, overwrite_x=False, plan=None):
    """The 1-D discrete Fourier transform (scipy.fftpack.fft); plan: a
    get_fft_plan plan for it."""
    return call("fft", "C2C", True, x, lambda a: cook_1d(a, n, axis), None, None, numpy.fft.fft, False, plan=plan)


def ifft(x, n=None, axis=-1, overwrite_x=False, plan=None):
    """The 1-D inverse transform, divided by n (scipy.fftpack.ifft)."""
    return call("ifft", "C2C", False, x, lambda a: cook_1d(a, n, axis), None, None, numpy.fft.ifft, False,
                plan=plan)


def fftn(x, shape=None, axes=None, overwrite_x=False, plan=None):
    """The n-D discrete Fourier transform (scipy.fftpack.fftn)."""
    return call("fftn", "C2C", True, x, lambda a: _nd(a, shape, axes), None, None, numpy.fft.fftn, True, plan=plan)


def ifftn(x, shape=None, axes=None, overwrite_x=False, plan=None):
    """The n-D inverse transform, divided by the number of points (scipy.fftpack.ifftn)."""
    return call("ifftn", "C2C", False, x, lambda a: _nd(a, shape, axes), None, None, numpy.fft.ifftn, True,
                plan=plan)


def fft2(x, shape=None, axes=(-2, -1), overwrite_x=False, plan=None):
    """fftn over two axes (scipy.fftpack.fft2)."""
    return fftn(x, shape, axes, overwrite_x, plan)


def ifft2(x, shape=None, axes=(-2, -1), overwrite_x=False, plan=None):
    """ifftn over two axes (scipy.fftpack.ifft2)."""
    return ifftn(x, shape, axes, overwrite_x, plan)


def rfft(x, n=None, axis=-1, overwrite_x=False, plan=None):
    """The 1-D transform of real input in fftpack's packed real format
    (scipy.fftpack.rfft): n reals [y0, Re y1, Im y1, Re y2, ...]. plan: an
    'R2C' get_fft_plan plan."""
    x = _asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("fftpack.rfft takes a real sequence, got an array of %s" % x.dtype)
    y = call("rfft", "R2C", True, x, lambda a: cook_1d(a, n, axis), None, None, numpy.fft.rfft, False, plan=plan)
    axis = _axis(axis, x.ndim, "axis")
    size = x.shape[axis] if n is None else n
    ym = moveaxis(y, axis, -1)
    out = empty(ym.shape[:-1] + (size,), ym.real.dtype)
    out[..., 0] = ym[..., 0].real
    out[..., 1::2] = ym[..., 1:1 + size // 2].real
    out[..., 2::2] = ym[..., 1:1 + (size - 1) // 2].imag
    return moveaxis(out, -1, axis)


def irfft(x, n=None, axis=-1, overwrite_x=False):
    """The inverse of rfft (scipy.fftpack.irfft): n reals (default x's
    length along axis) from fftpack's packed format, truncated or padded
    with zeros to n first."""
    x = _asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("fftpack.irfft takes a real sequence, got an array of %s" % x.dtype)
    if x.ndim == 0:
        raise IndexError("an FFT needs an array of at least one dimension, got a 0-d array")
    axis = _axis(axis, x.ndim, "axis")
    (_,), (n,) = cook_1d(x, n, axis)
    xm = moveaxis(x, axis, -1)
    m = min(n, xm.shape[-1])
    cdtype = numpy.complex64 if x.dtype in _SINGLE else numpy.complex128
    spectrum = zeros(xm.shape[:-1] + (n // 2 + 1,), cdtype)
    spectrum[..., 0] = xm[..., 0]
    spectrum.real[..., 1:1 + len(range(1, m, 2))] = xm[..., 1:m:2]
    spectrum.imag[..., 1:1 + len(range(2, m, 2))] = xm[..., 2:m:2]
    return moveaxis(_irfft(spectrum, n, -1), -1, axis)


_VALUE_TYPES = ("C2C", "R2C", "C2R")


def get_fft_plan(a, shape=None, axes=None, value_type="C2C"):
    """A plan for the transform of `a` over `axes` (default all; 1 to 3
    distinct axes) with transform shape `shape` (default a's extents there;
    for 'C2R', the real output's, 2 * (m - 1) on the last axis by default),
    of value_type 'C2C', 'R2C' (real a) or 'C2R', in a's precision. Pass it
    as plan= here or enter it (``with plan:``) around kiln.fft calls; a call
    it does not fit raises ValueError. Made anew, not cached."""
    a = _asarray(a)
    if value_type not in _VALUE_TYPES:
        raise ValueError("value_type must be 'C2C', 'R2C' or 'C2R', got %r" % (value_type,))
    if value_type == "R2C" and a.dtype.kind == "c":
        raise TypeError("an R2C plan transforms real input, got an array of %s" % a.dtype)
    if isinstance(axes, int):
        axes = (axes,)
    if isinstance(shape, int):
        shape = (shape,)
    axes, sizes = _nd(a, shape, axes) if shape is not None else cook_nd(a, None, axes, value_type == "C2R")
    passes = plan_passes(value_type, axes, sizes)
    if not axes or len(passes) != 1:
        raise ValueError("a cuFFT plan covers 1 to 3 distinct axes, got axes %s" % (tuple(axes),))
    batch = 1
    for i, e in enumerate(a.shape):
        if i not in axes:
            batch *= e
    return make_plan(value_type, a.dtype not in _SINGLE, sizes, batch)
