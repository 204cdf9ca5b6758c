"""kiln.interp against numpy.interp: NumPy's formulas (Note [interp] in
arraycore/interpolation.h) give NumPy's values, NaN and inf cases included."""
import numpy
import pytest

import kiln
from conftest import assert_same_values, same_error

XP = numpy.array([1.0, 3.0, 5.0, 7.0, 9.0])
X = numpy.array([0, 1, 2, 4, 6, 8, 9, 10, numpy.nan, numpy.inf, -numpy.inf])


@pytest.mark.parametrize("fp_dtype", [numpy.float32, numpy.int16, numpy.complex64], ids=lambda d: numpy.dtype(d).name)
def test_interp(fp_dtype):
    fp = (numpy.sin(XP) * 10).astype(fp_dtype)
    x = X.astype(numpy.float32)[::-1]
    k = [kiln.asarray(v) for v in (x, XP, fp)]
    assert_same_values(kiln.interp(*k).get(), numpy.interp(x, XP, fp))
    assert_same_values(kiln.interp(*k, left=-1, right=2.5).get(), numpy.interp(x, XP, fp, left=-1, right=2.5))
    xs = x.reshape(1, 11)[:, 1::2]
    assert_same_values(kiln.interp(kiln.asarray(xs), k[1], k[2], period=4).get(), numpy.interp(xs, XP, fp, period=4))
    assert_same_values(kiln.interp(k[0], k[1][2:3], k[2][2:3]).get(), numpy.interp(x, XP[2:3], fp[2:3]))


def test_non_finite_points():
    fp = numpy.array([1.0, 2.0, numpy.inf, 4.0, numpy.nan])
    xp = numpy.array([-numpy.inf, 2.0, 3.0, 4.0, numpy.nan])
    x = numpy.array([0.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0])
    for a, b in ((xp, fp), (XP, fp)):
        assert_same_values(kiln.interp(kiln.asarray(x), kiln.asarray(a), kiln.asarray(b)).get(), numpy.interp(x, a, b))
    assert_same_values(kiln.interp(kiln.asarray(numpy.float64(4.5)), kiln.asarray(XP), kiln.asarray(fp)).get(),
                       numpy.asarray(numpy.interp(numpy.float64(4.5), XP, fp)))


def test_errors():
    k, a = kiln.ones(3), numpy.ones(3)
    same_error(lambda: kiln.interp(k, kiln.ones(0), kiln.ones(0)),
               lambda: numpy.interp(a, numpy.ones(0), numpy.ones(0)))
    same_error(lambda: kiln.interp(k, k, kiln.ones(2)), lambda: numpy.interp(a, a, numpy.ones(2)))
    same_error(lambda: kiln.interp(k, k, k, period=0), lambda: numpy.interp(a, a, a, period=0))
    same_error(lambda: kiln.interp(k, kiln.ones((1, 3)), k, period=1),
               lambda: numpy.interp(a, numpy.ones((1, 3)), a, period=1))
