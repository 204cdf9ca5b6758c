"""kiln.sort, argsort, lexsort, partition, argpartition, sort_complex and the
ndarray.sort/argsort methods against NumPy: every dtype, every axis, the
layouts of conftest.make, NaNs, stability, errors."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name, random_array

AxisError = numpy.exceptions.AxisError


def with_specials(x):
    x = x.copy()
    if x.dtype.kind in "fc" and x.size >= 4:
        flat = x.reshape(-1)
        flat[1], flat[2] = numpy.nan, -0.0
        if x.dtype.kind == "f":
            flat[3] = -numpy.inf
    return x


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_sort_and_argsort_layouts(rng, dtype, layout):
    k, x = make(rng, layout, dtype)
    for axis in ([None] + list(range(-x.ndim, x.ndim)) if x.ndim else [None]):
        assert_same_bits(kiln.sort(k, axis=axis).get(), numpy.sort(x, axis=axis, kind="stable"))
        numpy.testing.assert_array_equal(kiln.argsort(k, axis=axis).get(),
                                         numpy.argsort(x, axis=axis, kind="stable"))
    if x.ndim == 0:   # NumPy reads a 0-d array as one element: array([0]) for axis -1 and 0
        for axis in (-1, 0):
            got = kiln.argsort(k, axis=axis).get()
            assert got.shape == (1,) and got.tolist() == numpy.argsort(x, axis=axis).tolist() == [0]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.complex64,
                                   numpy.complex128], ids=name)
def test_nans_and_signed_zeros(rng, dtype):
    x = with_specials(random_array(rng, (5, 9, 4), dtype))
    k = kiln.asarray(x)
    for axis in (0, 1, 2, None):
        assert_same_bits(kiln.sort(k, axis=axis).get(), numpy.sort(x, axis=axis, kind="stable"))
        numpy.testing.assert_array_equal(kiln.argsort(k, axis=axis, kind="stable").get(),
                                         numpy.argsort(x, axis=axis, kind="stable"))


def test_every_kind_is_stable(rng):
    x = rng.integers(0, 4, (3, 500)).astype(numpy.int32)
    k = kiln.asarray(x)
    for kind in (None, "quicksort", "mergesort", "heapsort", "stable"):
        numpy.testing.assert_array_equal(kiln.argsort(k, kind=kind).get(), numpy.argsort(x, kind="stable"))
    numpy.testing.assert_array_equal(kiln.argsort(k, stable=True).get(), numpy.argsort(x, kind="stable"))


def test_ndarray_methods_in_place(rng):
    x = random_array(rng, (6, 7, 5), numpy.float64)
    for axis in (0, 1, -1):
        k = kiln.asarray(x)
        assert k.sort(axis=axis) is None
        assert_same_bits(k.get(), numpy.sort(x, axis=axis))
    k = kiln.asarray(x)
    view = k[:, ::-2]             # a strided view sorted in place writes through
    view.sort(axis=0)
    expected = x.copy()
    expected[:, ::-2] = numpy.sort(x[:, ::-2], axis=0)
    assert_same_bits(k.get(), expected)
    numpy.testing.assert_array_equal(kiln.asarray(x).argsort(axis=1).get(), numpy.argsort(x, axis=1, kind="stable"))


def test_sort_returns_copy_and_dtype(rng):
    x = random_array(rng, (4, 4), numpy.uint16)
    k = kiln.asarray(x)
    s = kiln.sort(k)
    assert s.dtype == numpy.uint16 and kiln.argsort(k).dtype == numpy.int64
    assert_same_bits(k.get(), x)   # input untouched
    assert_same_bits(kiln.sort(k, axis=None).get(), numpy.sort(x, axis=None))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.float32, numpy.complex128], ids=name)
def test_lexsort(rng, dtype):
    a = random_array(rng, (4, 30), dtype) % 3 if dtype != numpy.complex128 else random_array(rng, (4, 30), dtype)
    b = rng.integers(0, 3, (4, 30)).astype(numpy.uint8)
    c = rng.integers(0, 2, (4, 30)).astype(numpy.bool_)
    keys = (a, b, c)
    ks = tuple(kiln.asarray(v) for v in keys)
    for axis in (-1, 0):
        numpy.testing.assert_array_equal(kiln.lexsort(ks, axis=axis).get(), numpy.lexsort(keys, axis=axis))
    stacked = numpy.stack([b.astype(numpy.int64), c.astype(numpy.int64)])
    numpy.testing.assert_array_equal(kiln.lexsort(kiln.asarray(stacked)).get(), numpy.lexsort(stacked))
    numpy.testing.assert_array_equal(kiln.lexsort([kiln.asarray(b[0])]).get(), numpy.lexsort([b[0]]))


def partitioned(x, part, kth, axis):
    """NumPy's contract: each kth element in its sorted place, no larger ones
    before it and no smaller ones after (the values are a permutation)."""
    s = numpy.sort(x, axis=axis)
    for k in numpy.atleast_1d(kth):
        k = k % x.shape[axis]
        at = numpy.take(part, [k], axis=axis)
        numpy.testing.assert_array_equal(at, numpy.take(s, [k], axis=axis))
        before = numpy.take(part, range(k), axis=axis)
        after = numpy.take(part, range(k + 1, x.shape[axis]), axis=axis)
        assert numpy.all(before <= at) and numpy.all(after >= at)
    numpy.testing.assert_array_equal(numpy.sort(part, axis=axis), s)


@pytest.mark.parametrize("kth", [0, 3, -1, [1, 4]])
def test_partition_and_argpartition(rng, kth):
    x = random_array(rng, (5, 8), numpy.int16)
    k = kiln.asarray(x)
    for axis in (0, 1, None):
        ref = x.reshape(-1) if axis is None else x
        ax = 0 if axis is None else axis
        partitioned(ref, kiln.partition(k, kth, axis=axis).get(), kth, ax)
        idx = kiln.argpartition(k, kth, axis=axis).get()
        partitioned(ref, numpy.take_along_axis(ref, idx, axis=ax), kth, ax)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int32, numpy.float16, numpy.float32,
                                   numpy.complex64], ids=name)
def test_sort_complex(rng, dtype):
    x = random_array(rng, (3, 6), dtype)
    got, expected = kiln.sort_complex(kiln.asarray(x)).get(), numpy.sort_complex(x)
    assert got.dtype == expected.dtype
    assert_same_bits(got, expected)


def test_errors():
    k = kiln.zeros((3, 4), numpy.float32)
    with pytest.raises(AxisError):
        kiln.sort(k, axis=2)
    with pytest.raises(AxisError, match="axis 1 is out of bounds for array of dimension 1"):
        kiln.argsort(kiln.zeros((), numpy.float32), axis=1)
    with pytest.raises(AxisError):
        k.sort(axis=-3)
    with pytest.raises(ValueError, match="sort kind must be one of"):
        kiln.sort(k, kind="bogo")
    with pytest.raises(ValueError, match="can't be provided at the same time"):
        kiln.argsort(k, kind="quicksort", stable=True)
    with pytest.raises(ValueError, match="no fields"):
        kiln.sort(k, order="f0")
    with pytest.raises(ValueError, match=r"kth\(=4\) out of bounds \(4\)"):
        kiln.partition(k, 4)
    with pytest.raises(TypeError, match="Partition index must be integer"):
        kiln.argpartition(k, 1.5)
    with pytest.raises(ValueError, match="select kind must be 'introselect'"):
        kiln.partition(k, 1, kind="quick")
    with pytest.raises(AxisError):
        kiln.argpartition(kiln.zeros((), numpy.float32), 0)
    with pytest.raises(TypeError, match="need sequence of keys"):
        kiln.lexsort([])
    with pytest.raises(ValueError, match="same shape"):
        kiln.lexsort([kiln.zeros(3), kiln.zeros(4)])
