"""kiln.fft: NumPy 2's numpy.fft for kiln arrays.

    import kiln
    x = kiln.arange(8, dtype=kiln.complex64)
    y = kiln.fft.fft(x)                         # complex64, like NumPy 2
    z = kiln.fft.irfftn(kiln.fft.rfftn(x.real), s=(8,), axes=(0,))

cuFFT computes on the cuda backend (plans cached per thread and device:
kiln.fft.config), numpy.fft on the host backend (Note [FFT on the host
backend] in _fft.py). float16, float32 and complex64 transform in single
precision, every other dtype in double; real results are float32/float64
accordingly. Each function takes NumPy 2's arguments (n or s, axis or axes,
norm, out). A plan made with kiln.scipy.fftpack.get_fft_plan and entered
with ``with plan:`` is used by the calls inside the block (ValueError when it
does not fit). docs/fft.md says what differs from NumPy.
"""
import numpy

from kiln._creation import _on_device, arange
from kiln._manipulation import _asarray, _axis, roll
from kiln.fft import config  # noqa: F401
from kiln.fft._plan import Plan, Plan1d, PlanNd  # noqa: F401
from kiln.fft._fft import call, cook_1d, cook_nd

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "config"]


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D discrete Fourier transform (numpy.fft.fft)."""
    return call("fft", "C2C", True, a, lambda a: cook_1d(a, n, axis), norm, out, numpy.fft.fft, False)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D inverse discrete Fourier transform (numpy.fft.ifft)."""
    return call("ifft", "C2C", False, a, lambda a: cook_1d(a, n, axis), norm, out, numpy.fft.ifft, False)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The n-D discrete Fourier transform (numpy.fft.fftn)."""
    return call("fftn", "C2C", True, a, lambda a: cook_nd(a, s, axes), norm, out, numpy.fft.fftn, True)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The n-D inverse discrete Fourier transform (numpy.fft.ifftn)."""
    return call("ifftn", "C2C", False, a, lambda a: cook_nd(a, s, axes), norm, out, numpy.fft.ifftn, True)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-D discrete Fourier transform (numpy.fft.fft2)."""
    return fftn(a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-D inverse discrete Fourier transform (numpy.fft.ifft2)."""
    return ifftn(a, s, axes, norm, out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D discrete Fourier transform of real input: the n // 2 + 1
    non-negative frequency terms (numpy.fft.rfft). Complex input raises
    TypeError."""
    return call("rfft", "R2C", True, a, lambda a: cook_1d(a, n, axis), norm, out, numpy.fft.rfft, False)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of rfft: n real points (default 2 * (m - 1)) from m
    non-negative frequency terms (numpy.fft.irfft)."""
    return _half_real(a, out, call("irfft", "C2R", False, a, lambda a: cook_1d(a, n, axis, halved_input=True), norm,
                                   out, numpy.fft.irfft, False))


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """The n-D discrete Fourier transform of real input (numpy.fft.rfftn):
    the last axis halved as in rfft."""
    return call("rfftn", "R2C", True, a, lambda a: cook_nd(a, s, axes), norm, out, numpy.fft.rfftn, True)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of rfftn (numpy.fft.irfftn)."""
    return call("irfftn", "C2R", False, a, lambda a: cook_nd(a, s, axes, halved_input=True), norm, out,
                 numpy.fft.irfftn, True)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """rfftn over two axes (numpy.fft.rfft2)."""
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """irfftn over two axes (numpy.fft.irfft2)."""
    return irfftn(a, s, axes, norm, out)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """The transform of a Hermitian-symmetric signal given by its first half:
    n real points (default 2 * (m - 1)) (numpy.fft.hfft)."""
    return _half_real(a, out, call("hfft", "C2R", False, a, lambda a: cook_1d(a, n, axis, halved_input=True), norm,
                                   out, numpy.fft.hfft, False, conj=True))


def _half_real(a, out, result):
    """NumPy's irfft and hfft of float16 input give float16 (computed in
    float32, as every single-precision transform); the n-D ones do not."""
    if out is None and getattr(a, "dtype", None) == numpy.float16:
        return result.astype(numpy.float16)
    return result


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of hfft: the first n // 2 + 1 terms of the inverse
    transform of real input (numpy.fft.ihfft)."""
    return call("ihfft", "R2C", True, a, lambda a: cook_1d(a, n, axis), norm, out, numpy.fft.ihfft, False,
                 conj=True)


def _frequency_scale(n, d):
    n = int(n)   # NumPy: TypeError for non-integers
    return n, 1.0 / (n * d)


def _frequencies(values, dtype):
    if dtype is None:
        return values
    dtype = numpy.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a real floating-point dtype, got {dtype}")
    return values.astype(dtype, copy=False)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point FFT with spacing d: [0, 1, ...,
    n // 2 - 1 or so, -(n // 2), ..., -1] / (n * d), float64 (numpy.fft.fftfreq);
    ``dtype=`` (a real floating dtype) and ``device=`` as the array API's."""
    n, scale = _frequency_scale(n, d)
    with _on_device(device):
        k = arange(n)
        positive = (n - 1) // 2 + 1
        return _frequencies((k - n * (k >= positive)) * scale, dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of rfft: [0, 1, ..., n // 2] / (n * d), float64
    (numpy.fft.rfftfreq); ``dtype=`` and ``device=`` as the array API's."""
    n, scale = _frequency_scale(n, d)
    with _on_device(device):
        return _frequencies(arange(n // 2 + 1) * scale, dtype)


def _shift(x, axes, sign):
    x = _asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif not isinstance(axes, (tuple, list)):
        axes = (axes,)
    axes = tuple(_axis(ax, x.ndim, "axes") for ax in axes)
    return roll(x, tuple(sign * (x.shape[ax] // 2) for ax in axes), axes)


def fftshift(x, axes=None):
    """Moves the zero frequency to the middle of the given axes (default all)
    (numpy.fft.fftshift)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of fftshift (numpy.fft.ifftshift)."""
    return _shift(x, axes, -1)

