"""ndarray views and conversions: T, transpose, swapaxes, squeeze, ravel,
flatten, flags, item, tolist, fill and the scalar protocols, against NumPy."""
import numpy
import pytest

import kiln
from conftest import LAYOUTS, make, random_array


AXIS_CASES = [((), None), ((1, 0, 2), None), ((2, 0, 1), None), ((-1, 0, 1), None)]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_transpose_family_matches_numpy(rng, layout):
    k, host = make(rng, layout, numpy.float32)
    for got, want in [(k.T, host.T), (k.transpose(), host.transpose())]:
        assert got.shape == want.shape and got.strides == want.strides
        numpy.testing.assert_array_equal(got.get(), want)
    if host.ndim == 2:
        numpy.testing.assert_array_equal(k.swapaxes(0, -1).get(), host.swapaxes(0, -1))
        numpy.testing.assert_array_equal(k.mT.get(), host.mT)
        numpy.testing.assert_array_equal(k.transpose(1, 0).get(), host.transpose(1, 0))
    numpy.testing.assert_array_equal(k.ravel().get(), host.ravel())
    numpy.testing.assert_array_equal(k.ravel("F").get(), host.ravel("F"))
    numpy.testing.assert_array_equal(k.flatten().get(), host.flatten())
    assert k.flags.c_contiguous == host.flags.c_contiguous
    assert k.flags["F_CONTIGUOUS"] == host.flags.f_contiguous
    numpy.testing.assert_array_equal(k.tolist(), host.tolist())


def test_transpose_3d_and_errors(rng):
    host = random_array(rng, (2, 3, 4), numpy.int32)
    k = kiln.asarray(host)
    for axes in [(1, 0, 2), (2, 0, 1), (-1, 0, 1)]:
        numpy.testing.assert_array_equal(k.transpose(axes).get(), host.transpose(axes))
        numpy.testing.assert_array_equal(k.transpose(*axes).get(), host.transpose(*axes))
    with pytest.raises(numpy.exceptions.AxisError):
        k.transpose(0, 1, 3)
    with pytest.raises(ValueError, match="repeated axis"):
        k.transpose(0, 0, 1)
    with pytest.raises(ValueError, match="axes don't match"):
        k.transpose(0, 1)
    with pytest.raises(ValueError, match="ndim < 2"):
        kiln.zeros(3).mT


def test_ravel_of_contiguous_is_a_view():
    k = kiln.arange(12, dtype=kiln.int32).reshape(3, 4)
    assert k.ravel().data.ptr == k.data.ptr
    assert k.flatten().data.ptr != k.data.ptr
    assert k.T.ravel().data.ptr != k.data.ptr


def test_squeeze(rng):
    host = random_array(rng, (1, 3, 1, 2), numpy.float64)
    k = kiln.asarray(host)
    for axis in [None, 0, 2, (0, 2), -2]:
        got, want = k.squeeze(axis), host.squeeze(axis)
        assert got.shape == want.shape
        numpy.testing.assert_array_equal(got.get(), want)
    with pytest.raises(ValueError, match="size not equal to one"):
        k.squeeze(1)
    with pytest.raises(numpy.exceptions.AxisError):
        k.squeeze(4)


def test_scalar_conversions_and_item():
    one = kiln.asarray(numpy.array([[2.5]], dtype=numpy.float32))
    assert float(one) == 2.5 and int(one) == 2 and complex(one) == 2.5 + 0j and bool(one)
    assert one.item() == 2.5 and isinstance(one.item(), float)
    many = kiln.arange(6, dtype=kiln.int64).reshape(2, 3)
    assert many.item(4) == 4 and many.item(1, 2) == 5
    assert [0, 1, 2][kiln.asarray(numpy.array(1, dtype=numpy.int16))] == 1
    with pytest.raises(ValueError, match="more than one element is ambiguous"):
        bool(many)
    with pytest.raises(ValueError, match="empty array is ambiguous"):
        bool(kiln.zeros(0))
    with pytest.raises(TypeError, match="only length-1 arrays"):
        float(many)
    with pytest.raises(ValueError, match="size 1"):
        many.item()
    with pytest.raises(TypeError, match="integer scalar arrays"):
        [0, 1][kiln.zeros((), dtype=kiln.float32)]


def test_fill():
    k = kiln.zeros((3, 2), dtype=kiln.int8)
    k.fill(-3)
    assert k.tolist() == [[-3, -3]] * 3
    k.T[0].fill(5)
    assert k.tolist() == [[5, -3]] * 3
    for value in (kiln.asarray(7), numpy.array(7.0), kiln.ones((), kiln.int8)[()] * 2):   # 0-d arrays
        k.fill(value)
        assert k.tolist() == [[int(value)] * 2] * 3
    b = kiln.zeros(3, bool)
    b.fill(kiln.asarray(2j))   # complex -> bool: nonzero, no ComplexWarning (as NumPy)
    assert b.tolist() == [True] * 3
    with pytest.warns(numpy.exceptions.ComplexWarning):
        k.fill(kiln.asarray(1 + 2j))
    for bad in (kiln.ones(1), numpy.ones((2, 1))):
        with pytest.raises(ValueError, match="FillWithScalar is not a scalar"):
            k.fill(bad)
