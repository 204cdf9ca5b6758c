"""Basic indexing: views from integers, slices, Ellipsis and None; assignment
through them with broadcasting, casting and overlap."""
import numpy
import pytest

import kiln
from conftest import random_array

KEYS = [
    0, -1, 2, slice(None), slice(1, None), slice(None, None, -1), slice(5, 1, -2),
    slice(-100, 100), slice(3, 3), (1, 2), (-1, slice(None, None, 2)), (Ellipsis, 1),
    (slice(None), None, 1), (None, Ellipsis, None), (1, Ellipsis), Ellipsis, (),
    (slice(None, None, -1), slice(None, None, -3), 0), (numpy.int64(2), slice(1, 4)),
    (slice(0, 4, 3), Ellipsis, slice(None, None, -1)),
]
DTYPES = [numpy.int16, numpy.float32, numpy.float64, numpy.bool_, numpy.uint64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy(rng, key, dtype):
    host = random_array(rng, (5, 6, 4), dtype)
    a = kiln.asarray(host)
    view = a[key]
    expected = host[key]
    assert view.shape == expected.shape and view.dtype == expected.dtype
    assert view.strides == expected.strides
    numpy.testing.assert_array_equal(view.get(), expected)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_scalar_and_broadcast_array(rng, key):
    host = random_array(rng, (5, 6, 4), numpy.float64)
    a = kiln.asarray(host)
    a[key] = 7.25
    host[key] = 7.25
    numpy.testing.assert_array_equal(a.get(), host)
    target_shape = host[key].shape
    value = random_array(rng, target_shape[-1:] if target_shape else (), numpy.int32)
    a[key] = kiln.asarray(value)                     # broadcast + cast int32 -> float64
    host[key] = value
    numpy.testing.assert_array_equal(a.get(), host)
    value = random_array(rng, (1, 1) + target_shape, numpy.float64)   # extra leading length-1 axes
    a[key] = kiln.asarray(value)
    host[key] = value
    numpy.testing.assert_array_equal(a.get(), host)


def test_views_share_memory():
    a = kiln.zeros((4, 5), dtype=kiln.int32)
    row = a[2]
    row[1:4] = 9
    col = a[:, -1]
    col[...] = kiln.arange(4, dtype=kiln.int32)
    expected = numpy.zeros((4, 5), numpy.int32)
    expected[2, 1:4] = 9
    expected[:, -1] = numpy.arange(4)
    numpy.testing.assert_array_equal(a.get(), expected)
    assert a[1, 1].shape == () and a[1, 1].data.ptr == a.data.ptr + (5 + 1) * 4


def test_overlapping_assignment_behaves_like_numpy(rng):
    host = random_array(rng, (50,), numpy.int64)
    a = kiln.asarray(host)
    a[1:] = a[:-1]
    host[1:] = host[:-1].copy()
    numpy.testing.assert_array_equal(a.get(), host)
    a[::-1] = a
    host[::-1] = host.copy()
    numpy.testing.assert_array_equal(a.get(), host)


def test_setitem_from_host_values_casts_unsafely(rng):
    a = kiln.zeros((3, 4), dtype=kiln.int16)
    a[0] = [1.9, -2.5, 3, 4]
    a[1:] = numpy.full((2, 4), 70000)
    host = numpy.zeros((3, 4), numpy.int16)
    host[0] = numpy.asarray([1.9, -2.5, 3, 4]).astype(numpy.int16)
    host[1:] = numpy.full((2, 4), 70000).astype(numpy.int16)
    numpy.testing.assert_array_equal(a.get(), host)


def test_index_errors_match_numpy():
    a = kiln.zeros((3, 4))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        a[3]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        a[0, -5]
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, but 3 were indexed"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        a[..., ...]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        a[::0]
    with pytest.raises(IndexError, match="only integers, slices"):
        a["x"]
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) into shape \(3,4\)$"):
        a[...] = kiln.zeros(3)


def test_setitem_python_scalars_as_numpy2():
    # Note [Assigned host values]
    a = kiln.zeros(3, kiln.int8)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        a[0] = 300
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        kiln.zeros(3, kiln.uint8)[:] = -1
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        kiln.zeros(3, kiln.int64)[kiln.asarray([0])] = float("nan")
    with pytest.raises(TypeError, match="not 'complex'"):
        kiln.zeros(3)[0] = 1j
    a[:] = numpy.array([300, 1, 2])   # a NumPy array is cast unsafely, as NumPy does
    assert a.tolist() == [44, 1, 2]


def test_views_of_read_only_arrays_are_read_only():
    b = kiln.broadcast_to(kiln.ones(3), (2, 3))
    for view in (b[0], b[:, 1:], b.T, b[None], b.view(kiln.int64)):
        assert not view.flags.writeable
        with pytest.raises(ValueError, match="assignment destination is read-only"):
            view[...] = 0
