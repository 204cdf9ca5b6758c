"""The poly1d family (kiln.polyval ... vander, kiln.poly1d) and kiln.polynomial
against NumPy: result dtypes and values over dtypes, layouts of the operands
(strided, negative strides, 0-d, empty where they apply), and NumPy's errors."""
import numpy
import pytest

import kiln
from conftest import assert_same_values, name, same_error

DTYPES = [numpy.bool_, numpy.int8, numpy.uint64, numpy.float16, numpy.float32, numpy.float64, numpy.complex64]


def pair(values, dtype, layout="C"):
    h = numpy.asarray(values).astype(dtype)
    if layout == "negative":
        return kiln.asarray(h[::-1].copy())[::-1], h
    if layout == "strided":
        wide = numpy.repeat(h, 2)
        return kiln.asarray(wide)[::2], wide[::2]
    return kiln.asarray(h), h


def check(got, expected, rtol=None):
    if isinstance(expected, numpy.poly1d):
        assert isinstance(got, kiln.poly1d) and got.variable == expected.variable
        got, expected = got.coeffs, expected.coeffs
    got = got.get() if isinstance(got, kiln.ndarray) else numpy.asarray(got)
    expected = numpy.asarray(expected)
    if rtol is None:
        assert_same_values(got, expected)
    else:
        assert got.dtype == expected.dtype and got.shape == expected.shape
        numpy.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", ["C", "strided", "negative"])
def test_arithmetic(dtype, layout):
    ka, ha = pair([0, 0, 1, 2, 0, 3], dtype, layout)
    kb, hb = pair([1, 1, 0], dtype)
    for f in ("polyadd", "polymul", "polyval"):
        check(getattr(kiln, f)(ka, kb), getattr(numpy, f)(ha, hb))
    check(kiln.polyval(ka, 3), numpy.polyval(ha, 3))
    check(kiln.polyval(ka, kb[0]), numpy.polyval(ha, hb[0]))
    if dtype != numpy.bool_:
        check(kiln.polysub(ka, kb), numpy.polysub(ha, hb))
        check(kiln.polyder(ka, 2), numpy.polyder(ha, 2))
        check(kiln.polyint(ka, 2, k=[1, 2]), numpy.polyint(ha, 2, k=[1, 2]))
        q, r = kiln.polydiv(ka, kb)
        hq, hr = numpy.polydiv(ha, hb)
        check(q, hq, 1e-3)
        check(r, hr, 1e-3)
    else:
        same_error(lambda: kiln.polysub(ka, kb), lambda: numpy.polysub(ha, hb))


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.complex128], ids=name)
def test_poly1d(dtype):
    k, h = pair([0, 0, 3, -1, 2], dtype)
    p, hp = kiln.poly1d(k, variable="z"), numpy.poly1d(h, variable="z")
    assert p.order == hp.order and len(p) == len(hp) and p.variable == "z"
    assert repr(p) == repr(hp) and str(p) == str(hp)
    check(p, hp)
    for f in (lambda a: -a, lambda a: a * a, lambda a: a + 2, lambda a: 2 - a, lambda a: a ** 3, lambda a: a * 2,
              lambda a: a.deriv(), lambda a: a.integ(2, 1), lambda a: a - a):
        check(f(p), f(hp))
    check(p(k), hp(h))
    for f in (lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a / b):
        check(f(k[2:], p), f(h[2:], hp))   # an ndarray operator: elementwise on the coefficients
    check(kiln.add(p, dtype(2)), numpy.add(hp, dtype(2)))
    check(kiln.subtract(p, p), numpy.subtract(hp, hp))
    check(p(p), hp(hp))
    check(kiln.polyval(k, p), numpy.polyval(h, hp))
    assert p[1] == hp[1] and p[7] == hp[7]
    assert (p == kiln.poly1d(k)) and not (p != kiln.poly1d(k))
    p[6] = 5
    hp[6] = 5
    check(p, hp)
    check(kiln.poly1d(kiln.zeros(3, dtype)), numpy.poly1d(numpy.zeros(3, dtype)))
    check(kiln.poly1d(kiln.asarray(dtype(4))), numpy.poly1d(numpy.asarray(dtype(4))))
    same_error(lambda: kiln.poly1d(kiln.zeros((2, 2))), lambda: numpy.poly1d(numpy.zeros((2, 2))))
    same_error(lambda: p ** 2.5, lambda: hp ** 2.5)
    with pytest.raises(ValueError, match="negative powers"):
        p[-1] = 3


def test_roots_and_poly():
    for values in ([1, -3, 2], [0, 2, -1, -2, 0, 0], [5, 0], [0, 0], [3], [1, 0, 1]):
        for dtype in (numpy.int32, numpy.float32, numpy.float64, numpy.complex128):
            k, h = pair(values, dtype)
            got, expected = kiln.roots(k), numpy.roots(h)
            check(kiln.sort(got), numpy.sort(expected), 1e-5)
    for values, dtype in (([1, 2, 3], numpy.int8), ([1j, -1j, 2], numpy.complex64), ([2j, 1], numpy.complex128),
                          ([0.5], numpy.float32), ([], numpy.float64)):
        k, h = pair(values, dtype)
        check(kiln.poly(k), numpy.poly(h), 1e-6)
    sym = numpy.array([[6.0, 3, 1], [3, 0, 5], [1, 5, 6]])
    check(kiln.poly(kiln.asarray(sym)), numpy.poly(sym), 1e-6)
    check(kiln.poly1d(kiln.asarray([1.0, 2]), r=True), numpy.poly1d([1.0, 2], r=True))
    with pytest.raises(NotImplementedError):
        kiln.poly(kiln.arange(9.0).reshape(3, 3))
    for bad in (numpy.zeros((2, 3)), numpy.array(3.0)):
        same_error(lambda: kiln.poly(kiln.asarray(bad)), lambda: numpy.poly(bad))
        same_error(lambda: kiln.roots(kiln.asarray(bad)), lambda: numpy.roots(bad))


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.float32, numpy.float64, numpy.complex128], ids=name)
def test_polyfit(dtype):
    hx = numpy.array([0.0, 1.0, 2.0, 3.5, 5.0, 6.0]).astype(dtype)
    hy = numpy.stack([hx * hx - 2, 3 * hx + 1], axis=1).astype(dtype)
    kx, ky = kiln.asarray(hx), kiln.asarray(hy)
    rtol = 1e-4 if dtype == numpy.float32 else 1e-8
    check(kiln.polyfit(kx, ky, 2), numpy.polyfit(hx, hy, 2), rtol)
    check(kiln.polyfit(kx, ky[:, 0], 1, w=kx + 1), numpy.polyfit(hx, hy[:, 0], 1, w=hx + 1), rtol)
    got, expected = kiln.polyfit(kx, ky, 2, full=True), numpy.polyfit(hx, hy, 2, full=True)
    for g, e in zip(got[:2] + got[3:4], expected[:2] + expected[3:4]):
        check(g, e, rtol)
    assert got[2] == expected[2] and got[4] == expected[4]
    for cov in (True, "unscaled"):
        for g, e in zip(kiln.polyfit(kx, ky, 1, cov=cov), numpy.polyfit(hx, hy, 1, cov=cov)):
            check(g, e, 1e-3 if dtype == numpy.float32 else 1e-7)
    with pytest.warns(numpy.exceptions.RankWarning):
        kiln.polyfit(kx[:3], ky[:3], 4)
    for args in ((hx, hy, -1), (hx[:3], hy, 1), (hx.reshape(2, 3), hy, 1), (hx, hy[:, :, None], 1), (hx[:0], hy[:0], 1)):
        same_error(lambda: kiln.polyfit(*map(kiln.asarray, args[:2]), args[2]), lambda: numpy.polyfit(*args))
    same_error(lambda: kiln.polyfit(kx, ky, 1, w=kx[:2]), lambda: numpy.polyfit(hx, hy, 1, w=hx[:2]))


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.uint64, numpy.float32, numpy.complex64], ids=name)
def test_vander(dtype):
    k, h = pair([1, 0, 2, 3], dtype, "strided")
    for n, inc in ((None, False), (3, True), (0, False), (1, True)):
        check(kiln.vander(k, n, inc), numpy.vander(h, n, inc))
    check(kiln.vander(k[:0]), numpy.vander(h[:0]))
    same_error(lambda: kiln.vander(kiln.zeros((2, 2))), lambda: numpy.vander(numpy.zeros((2, 2))))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.float16, numpy.float64, numpy.complex128], ids=name)
def test_numpy_polynomial(dtype):
    kp, hp = kiln.polynomial, numpy.polynomial
    k, h = pair([3, -5, 0, 7, 0, 0], dtype, "negative")
    x = numpy.array([[0.5, -1.0], [2.0, 0.0]]).astype(dtype) if dtype != numpy.int8 else numpy.array([[1, -2]], dtype)
    check(kp.polynomial.polyvander(kiln.asarray(x), 3), hp.polynomial.polyvander(x, 3), 1e-3)
    check(kp.polynomial.polyvander(kiln.asarray(x[0, 0]), 2), hp.polynomial.polyvander(x[0, 0], 2), 1e-3)
    check(kp.polynomial.polycompanion(k), hp.polynomial.polycompanion(h), 1e-3)
    check(kp.polyutils.trimseq(k), hp.polyutils.trimseq(h))
    check(kp.polyutils.trimcoef(k, 4), hp.polyutils.trimcoef(h, 4))
    check(kp.polyutils.trimcoef(k, 100), hp.polyutils.trimcoef(h, 100))
    for g, e in zip(kp.polyutils.as_series([k, k[:2]], trim=False), hp.polyutils.as_series([h, h[:2]], trim=False)):
        check(g, e)
    z = kiln.zeros(4, dtype)
    assert kiln.shares_memory(kp.polyutils.trimseq(z), z)
    for f in (lambda m, a: m.polynomial.polyvander(a, 2.0), lambda m, a: m.polynomial.polyvander(a, -1),
              lambda m, a: m.polynomial.polycompanion(a[:1]), lambda m, a: m.polyutils.trimcoef(a, -1),
              lambda m, a: m.polyutils.as_series([a[:0]]), lambda m, a: m.polyutils.trimseq(a[:1].reshape(()))):
        same_error(lambda: f(kp, k), lambda: f(hp, h))
    same_error(lambda: kp.polyutils.as_series([kiln.zeros((2, 2))]), lambda: hp.polyutils.as_series([numpy.zeros((2, 2))]))
    same_error(lambda: kp.polyutils.as_series([kiln.ones(2, bool)]), lambda: hp.polyutils.as_series([numpy.ones(2, bool)]))
