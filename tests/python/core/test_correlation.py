"""kiln.convolve and kiln.correlate against NumPy.

Integer and bool results are exact (64-bit wrapping sums: NumPy's modular
results); floating results of the direct method differ from NumPy's
dot-based sums by the summation order only, and those of the FFT route
(Note [Correlation by FFT] in arraycore/convolution.h) by the transforms'
rounding, relative to the largest output.
"""
import numpy
import pytest

import kiln
from conftest import random_array, same_error

MODES = ["valid", "same", "full"]


def close(got, expected, rtol):
    got = got.get()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind in "biu":
        numpy.testing.assert_array_equal(got, expected)
    else:
        scale = numpy.abs(expected).max() if expected.size else 0
        numpy.testing.assert_allclose(got, expected, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint16, numpy.int64, numpy.float16,
                                   numpy.float32, numpy.complex128], ids=lambda d: numpy.dtype(d).name)
def test_direct(rng, dtype):
    rtol = {numpy.float16: 1e-2, numpy.float32: 1e-5}.get(dtype, 1e-12)
    a = random_array(rng, (23,), dtype)
    v = random_array(rng, (12,), dtype)
    if dtype == numpy.int8:
        a, v = a * 7, v * 9    # products and sums that wrap, as NumPy's do
    if dtype == numpy.float16:
        a, v = a / 64, v / 64  # sums within float16's range
    ka, kv = kiln.asarray(a), kiln.asarray(v)
    for mode in MODES:
        for x, y, kx, ky in ((a, v, ka, kv), (v[::-1], a[1::2], kv[::-1], ka[1::2]), (a[:1], v, ka[:1], kv)):
            close(kiln.correlate(kx, ky, mode), numpy.correlate(x, y, mode), rtol)
            close(kiln.convolve(kx, ky, mode), numpy.convolve(x, y, mode), rtol)


def test_mixed_dtypes_and_0d(rng):
    a = random_array(rng, (9,), numpy.int32)
    v = random_array(rng, (4,), numpy.complex64)
    close(kiln.correlate(kiln.asarray(a), kiln.asarray(v), "full"), numpy.correlate(a, v, "full"), 1e-6)
    close(kiln.convolve(kiln.asarray(v), kiln.asarray(a), 1), numpy.convolve(v, a, 1), 1e-6)
    s = numpy.float64(3.0)
    close(kiln.convolve(kiln.asarray(s), kiln.asarray(a)), numpy.convolve(s, a), 1e-12)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex64], ids=lambda d: numpy.dtype(d).name)
def test_fft_route(rng, dtype):
    a = random_array(rng, (700,), dtype)
    v = random_array(rng, (300,), dtype)
    rtol = 1e-5 if dtype == numpy.complex64 else 1e-12
    for mode in MODES:
        close(kiln.correlate(kiln.asarray(a[::-2]), kiln.asarray(v), mode), numpy.correlate(a[::-2], v, mode), rtol)
        close(kiln.convolve(kiln.asarray(v), kiln.asarray(a), mode), numpy.convolve(v, a, mode), rtol)


def test_errors():
    k, a = kiln.ones(3), numpy.ones(3)
    e, n = kiln.ones(0), numpy.ones(0)
    for f in ("convolve", "correlate"):
        kf, nf = getattr(kiln, f), getattr(numpy, f)
        same_error(lambda: kf(e, k), lambda: nf(n, a))
        same_error(lambda: kf(k, e), lambda: nf(a, n))
        same_error(lambda: kf(k, kiln.ones((2, 2))), lambda: nf(a, numpy.ones((2, 2))))
        for mode in ("bad", "Same", 3):
            same_error(lambda: kf(k, k, mode), lambda: nf(a, a, mode))
    same_error(lambda: kiln.correlate(kiln.asarray(1.0), k), lambda: numpy.correlate(numpy.float64(1.0), a))
