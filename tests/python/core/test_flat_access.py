"""Flat positions against NumPy: a.flat (reads, writes, iteration), putmask,
fill_diagonal, resize and ndarray.byteswap over dtypes and layouts
(arraycore/flat_access.h), with NumPy's errors."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name, same_error

FLAT_KEYS = [5, -1, slice(None), slice(1, None, 3), slice(None, None, -2), slice(9, 2, -1), Ellipsis, (4,)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("key", FLAT_KEYS, ids=repr)
def test_flat_getitem(rng, layout, key):
    k, n = make(rng, layout, numpy.int32)
    if isinstance(key, int) or key == (4,):
        if not -n.size <= (key if isinstance(key, int) else key[0]) < n.size:
            same_error(lambda: k.flat[key], lambda: n.flat[key])
            return
        got = k.flat[key]
        assert got.shape == () and got.get() == n.flat[key]
        return
    assert_same_bits(k.flat[key].get(), n.flat[key])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", ["F", "negative"])
def test_flat_setitem_slice_repeats_values(rng, dtype, layout):
    k, n = make(rng, layout, dtype)
    n = n.copy()
    v = numpy.arange(3).astype(dtype)
    k.flat[1::2] = kiln.asarray(v)
    n.flat[1::2] = v
    k.flat[-1] = 7
    n.flat[-1] = 7
    assert_same_bits(k.get(), n)


def test_flat_setitem_casts_and_arrays(rng):
    k, n = make(rng, "F", numpy.float32)
    n = n.copy()
    k.flat[::5] = kiln.arange(4)               # int64 values into float32
    n.flat[::5] = numpy.arange(4)
    # distinct positions: which of duplicate targets wins is not defined by
    # default, as CuPy's (kiln.config's setitem_last_wins, docs/reductions.md)
    k.flat[[0, 3, 7]] = kiln.asarray([1.5, 2.5, 3.5])
    n.flat[[0, 3, 7]] = [1.5, 2.5, 3.5]
    mask = numpy.zeros(n.size, bool)
    mask[[2, 9]] = True
    k.flat[mask] = -1
    n.flat[mask] = -1
    assert_same_bits(k.get(), n)
    assert_same_bits(k.flat[[1, -2]].get(), n.flat[[1, -2]])


def test_flat_iteration_len_base_copy():
    n = numpy.arange(24).reshape(2, 3, 4).transpose(2, 0, 1)
    k = kiln.asarray(n)
    it = k.flat
    assert it.base is k and iter(it) is it and len(it) == 24 and len(k[::2].flat) == 12
    assert [int(v) for v in it] == n.ravel().tolist()
    assert_same_bits(k.flat.copy().get(), n.flat.copy())
    assert isinstance(k.flat, kiln.flatiter)


@pytest.mark.parametrize("key", [None, True, (0, 1), 1.5])
def test_flat_bad_keys(key):
    n = numpy.arange(6)
    k = kiln.asarray(n)
    with pytest.raises((IndexError, TypeError)):
        k.flat[key]


def test_flat_read_only():
    k = kiln.broadcast_to(kiln.arange(3), (2, 3))
    same_error(lambda: k.flat.__setitem__(0, 1), lambda: numpy.broadcast_to(numpy.arange(3), (2, 3)).flat.__setitem__(0, 1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", ["C", "F", "negative"])
def test_putmask(rng, dtype, layout):
    k, n = make(rng, layout, dtype)
    n = n.copy()
    mask = rng.integers(0, 2, n.shape).astype(bool)
    values = numpy.arange(5).astype(dtype)
    kiln.putmask(k, kiln.asarray(mask), kiln.asarray(values))
    numpy.putmask(n, mask, values)
    assert_same_bits(k.get(), n)


def test_putmask_mask_and_value_kinds(rng):
    k, n = make(rng, "F", numpy.int64)
    n = n.copy()
    mask = rng.integers(0, 3, n.size).astype(numpy.int8)   # any dtype, a's size, another shape
    kiln.putmask(k, kiln.asarray(mask), 1.5)                # a Python scalar casts unsafely
    numpy.putmask(n, mask, 1.5)
    kiln.putmask(k, kiln.asarray(mask.reshape(n.shape) == 0), [7, 8])
    numpy.putmask(n, mask.reshape(n.shape) == 0, [7, 8])
    kiln.putmask(k, kiln.asarray(mask == 1), kiln.asarray([], dtype=numpy.int64))   # empty values: nothing
    assert_same_bits(k.get(), n)


def test_putmask_errors():
    a = numpy.arange(6)
    same_error(lambda: kiln.putmask(kiln.asarray(a), kiln.ones(5, bool), 1),
               lambda: numpy.putmask(a, numpy.ones(5, bool), 1))
    same_error(lambda: kiln.putmask(kiln.asarray(a), kiln.asarray(a > 2), kiln.asarray([1.5])),
               lambda: numpy.putmask(a, a > 2, numpy.array([1.5])))
    same_error(lambda: kiln.putmask([1, 2], kiln.asarray([True, False]), 3),
               lambda: numpy.putmask([1, 2], numpy.array([True, False]), 3))


@pytest.mark.parametrize("shape,wrap", [((4, 4), False), ((7, 3), False), ((7, 3), True), ((3, 5), True),
                                        ((3, 3, 3), False), ((0, 2), False)])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex64, numpy.bool_], ids=name)
def test_fill_diagonal(shape, wrap, dtype):
    n = numpy.zeros(shape, dtype)
    k = kiln.asarray(n)
    numpy.fill_diagonal(n, numpy.array([5, 6]).astype(dtype), wrap)
    kiln.fill_diagonal(k, kiln.asarray(numpy.array([5, 6]).astype(dtype)), wrap)
    assert_same_bits(k.get(), n)


def test_fill_diagonal_column_slice_and_errors():
    n = numpy.zeros((4, 5))
    k = kiln.asarray(n)
    numpy.fill_diagonal(n[:, 1:], 3)
    kiln.fill_diagonal(k[:, 1:], 3)
    assert_same_bits(k.get(), n)
    same_error(lambda: kiln.fill_diagonal(kiln.zeros(3), 1), lambda: numpy.fill_diagonal(numpy.zeros(3), 1))
    same_error(lambda: kiln.fill_diagonal(kiln.zeros((2, 2, 3)), 1),
               lambda: numpy.fill_diagonal(numpy.zeros((2, 2, 3)), 1))


@pytest.mark.parametrize("layout", ["C", "negative", "0-d", "empty"])
@pytest.mark.parametrize("shape", [(5,), (3, 7), (0,), 4])
def test_resize(rng, layout, shape):
    k, n = make(rng, layout, numpy.int16)
    assert_same_bits(kiln.resize(k, shape).get(), numpy.resize(n, shape))
    same_error(lambda: kiln.resize(k, (-1, 2)), lambda: numpy.resize(n, (-1, 2)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", ["C", "strided", "0-d"])
def test_byteswap(rng, dtype, layout):
    k, n = make(rng, layout, dtype)
    assert_same_bits(k.byteswap().get(), n.byteswap())
    assert k.byteswap(inplace=True) is k
    assert_same_bits(k.get(), n.byteswap())
