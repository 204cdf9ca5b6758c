"""kiln's window functions against NumPy's (float64, NumPy's steps in one
kernel; cos and i0 may differ from NumPy's in the last bits)."""
import numpy
import pytest

import kiln


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows(name):
    for m in (-2, 0, 1, 2, 7, 6.5, 64):
        got, expected = getattr(kiln, name)(m).get(), getattr(numpy, name)(m)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        numpy.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15)


def test_kaiser():
    for m, beta in [(-1, 2.0), (0, 1.5), (1, 5.0), (10, -3.4), (31, 0.0), (64, 8.6)]:
        got, expected = kiln.kaiser(m, beta).get(), numpy.kaiser(m, beta)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        numpy.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
