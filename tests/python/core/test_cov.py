"""kiln.cov and kiln.corrcoef against NumPy (sums in another order: close,
not equal), trapezoid and unwrap (NumPy's steps) too."""
import warnings

import numpy
import pytest

import kiln
from conftest import random_array, same_error


def close(got, expected):
    got = got.get()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_allclose(got, expected, rtol=1e-5 if expected.dtype in (numpy.float32, numpy.complex64)
                                  else 1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float32, numpy.complex128], ids=lambda d: numpy.dtype(d).name)
def test_cov_corrcoef(rng, dtype):
    m = random_array(rng, (3, 7), dtype)
    y = random_array(rng, (7, 2), dtype)
    km, ky = kiln.asarray(m), kiln.asarray(y)
    close(kiln.cov(km), numpy.cov(m))
    close(kiln.cov(km[:, ::-2], bias=True), numpy.cov(m[:, ::-2], bias=True))
    close(kiln.cov(km.T, ky, rowvar=False, ddof=2), numpy.cov(m.T, y, rowvar=False, ddof=2))
    f, w = numpy.array([1, 4, 1, 2, 0, 3, 1]), numpy.linspace(0.5, 2, 7)
    close(kiln.cov(km, fweights=kiln.asarray(f), aweights=kiln.asarray(w)), numpy.cov(m, fweights=f, aweights=w))
    close(kiln.cov(km[0], dtype=numpy.float32), numpy.cov(m[0], dtype=numpy.float32))
    close(kiln.corrcoef(km), numpy.corrcoef(m))
    close(kiln.corrcoef(km[0], km[1]), numpy.corrcoef(m[0], m[1]))
    close(kiln.corrcoef(km[:1]), numpy.corrcoef(m[:1]))


def test_cov_edges():
    m = numpy.arange(6.0).reshape(2, 3)
    assert kiln.cov(kiln.ones((0, 2))).shape == numpy.cov(numpy.ones((0, 2))).shape
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = kiln.cov(kiln.asarray(m), ddof=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        numpy.testing.assert_array_equal(got.get(), numpy.cov(m, ddof=3))
    km = kiln.asarray(m)
    same_error(lambda: kiln.cov(km, ddof=1.5), lambda: numpy.cov(m, ddof=1.5))
    same_error(lambda: kiln.cov(kiln.ones((2, 2, 2))), lambda: numpy.cov(numpy.ones((2, 2, 2))))
    same_error(lambda: kiln.cov(km, fweights=kiln.asarray([1, -1, 1])), lambda: numpy.cov(m, fweights=[1, -1, 1]))
    same_error(lambda: kiln.cov(km, aweights=kiln.ones(2)), lambda: numpy.cov(m, aweights=numpy.ones(2)))
    same_error(lambda: kiln.cov(km, fweights=kiln.asarray([1.5, 1, 1])), lambda: numpy.cov(m, fweights=[1.5, 1, 1]))


def test_trapezoid(rng):
    y = random_array(rng, (4, 6), numpy.float64)
    x = numpy.cumsum(rng.random(6))
    ky = kiln.asarray(y)
    close(kiln.trapezoid(ky), numpy.trapezoid(y))
    close(kiln.trapezoid(ky, kiln.asarray(x)), numpy.trapezoid(y, x))
    close(kiln.trapezoid(ky[::-1], dx=0.5, axis=0), numpy.trapezoid(y[::-1], dx=0.5, axis=0))
    close(kiln.trapezoid(ky, ky, axis=0), numpy.trapezoid(y, y, axis=0))
    close(kiln.trapezoid(kiln.asarray(y.astype(numpy.int16))), numpy.trapezoid(y.astype(numpy.int16)))


def test_unwrap(rng):
    p = numpy.cumsum(rng.standard_normal((3, 12)) * 3, axis=1)
    kp = kiln.asarray(p)
    close(kiln.unwrap(kp), numpy.unwrap(p))
    close(kiln.unwrap(kp.T, axis=0, discont=4.0), numpy.unwrap(p.T, axis=0, discont=4.0))
    close(kiln.unwrap(kp.astype(numpy.float32), period=5), numpy.unwrap(p.astype(numpy.float32), period=5))
    i = numpy.array([0, 1, 2, 6, 7, 9, 3, 12])
    numpy.testing.assert_array_equal(kiln.unwrap(kiln.asarray(i), period=4).get(), numpy.unwrap(i, period=4))
