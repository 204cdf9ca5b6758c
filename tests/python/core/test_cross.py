"""kiln.cross and kiln.linalg.cross against NumPy (exact: NumPy's steps)."""
import numpy
import pytest

import kiln
from conftest import assert_same_values, random_array, same_error


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint32, numpy.float32, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).name)
def test_cross(rng, dtype):
    a = random_array(rng, (4, 1, 3), dtype)
    b = random_array(rng, (5, 3), dtype)[::-1]
    assert_same_values(kiln.cross(kiln.asarray(a), kiln.asarray(b)).get(), numpy.cross(a, b))
    at = numpy.asfortranarray(a.transpose(2, 0, 1))
    got = kiln.cross(kiln.asarray(at), kiln.asarray(b), axisa=0, axisc=0).get()
    assert_same_values(got, numpy.cross(at, b, axisa=0, axisc=0))
    assert_same_values(kiln.linalg.cross(kiln.asarray(b), kiln.asarray(b[::-1])).get(), numpy.linalg.cross(b, b[::-1]))
    # 2-vectors: NumPy 2.5's ValueError (2.0 to 2.4 deprecated them; kiln follows 2.5)
    for x, y in ((a[..., :2], b), (a, b[:, 1:]), (a[..., :2], b[:, :2])):
        with pytest.raises(ValueError, match="must be \\(arrays of\\) 3-dimensional vectors, but they are %d and %d "
                           % (x.shape[-1], y.shape[-1])):
            kiln.cross(kiln.asarray(x), kiln.asarray(y))


def test_errors():
    k, a = kiln.ones((2, 3)), numpy.ones((2, 3))
    with pytest.raises(ValueError, match="^Both input arrays must be \\(arrays of\\) 3-dimensional vectors, but they "
                       "are 3 and 4 dimensional instead.$"):   # NumPy 2.5's message (2.4's differs)
        kiln.cross(k, kiln.ones(4))
    same_error(lambda: kiln.cross(k, kiln.asarray(1.0)), lambda: numpy.cross(a, numpy.float64(1.0)))
    same_error(lambda: kiln.cross(k, k, axisb=2), lambda: numpy.cross(a, a, axisb=2))
    same_error(lambda: kiln.cross(k, k, axisc=-3), lambda: numpy.cross(a, a, axisc=-3))
    same_error(lambda: kiln.cross(k, kiln.ones((3, 3))), lambda: numpy.cross(a, numpy.ones((3, 3))))
    same_error(lambda: kiln.linalg.cross(k[:, :2], k), lambda: numpy.linalg.cross(a[:, :2], a))
    b = numpy.ones(3, bool)
    same_error(lambda: kiln.cross(kiln.asarray(b), kiln.asarray(b)), lambda: numpy.cross(b, b))
