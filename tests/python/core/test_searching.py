"""nonzero, argwhere, flatnonzero, where(condition), extract, compress, take,
take_along_axis, put, put_along_axis, place and the ndarray methods nonzero,
take, put, compress against NumPy on random data."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, random_array

AxisError = numpy.exceptions.AxisError


def _check(got, expected):
    got = got.get()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got, expected)


def _sparse(rng, shape, dtype):
    """Random values with about half of them zero."""
    host = random_array(rng, shape, dtype)
    return numpy.where(rng.random(shape) < 0.5, numpy.zeros((), dtype), host).astype(dtype)


def _layouts(host):
    big = kiln.zeros(tuple(2 * n for n in host.shape), dtype=host.dtype)
    strided = big[(slice(None, None, 2),) * host.ndim]
    strided[...] = kiln.asarray(host)
    return [kiln.asarray(host), kiln.asarray(numpy.asfortranarray(host)), strided,
            kiln.asarray(host[::-1].copy())[::-1]]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_nonzero_family_all_dtypes(rng, dtype):
    host = _sparse(rng, (7, 9), dtype)
    a = kiln.asarray(host)
    for got, expected in zip(kiln.nonzero(a), numpy.nonzero(host)):
        _check(got, expected)
    _check(kiln.argwhere(a), numpy.argwhere(host))
    _check(kiln.flatnonzero(a), numpy.flatnonzero(host))
    for got, expected in zip(kiln.where(a), numpy.where(host)):
        _check(got, expected)
    for got, expected in zip(a.nonzero(), host.nonzero()):
        _check(got, expected)


@pytest.mark.parametrize("shape", [(1000,), (3, 4, 5), (0,), (4, 0), (2, 1, 3, 1, 2)], ids=str)
def test_nonzero_shapes_and_layouts(rng, shape):
    host = _sparse(rng, shape, numpy.float32)
    for a in _layouts(host):
        for got, expected in zip(kiln.nonzero(a), numpy.nonzero(host)):
            _check(got, expected)
        _check(kiln.argwhere(a), numpy.argwhere(host))
        _check(kiln.flatnonzero(a), numpy.flatnonzero(host))


def test_nonzero_large_and_nan(rng):
    host = rng.random(300000) < 0.3
    _check(kiln.flatnonzero(kiln.asarray(host)), numpy.flatnonzero(host))
    special = numpy.array([0.0, -0.0, numpy.nan, numpy.inf, 1e-300])
    _check(kiln.flatnonzero(kiln.asarray(special)), numpy.flatnonzero(special))


def test_zero_d():
    for value in (0, 3):
        host = numpy.array(value)
        with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
            kiln.nonzero(kiln.asarray(host))
        _check(kiln.argwhere(kiln.asarray(host)), numpy.argwhere(host))
        _check(kiln.flatnonzero(kiln.asarray(host)), numpy.flatnonzero(host))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
def test_compress_and_extract(rng, axis):
    host = random_array(rng, (4, 5, 6), numpy.int32)
    n = host.size if axis is None else host.shape[axis]
    condition = rng.random(n) < 0.5
    for a in _layouts(host):
        _check(kiln.compress(condition, a, axis=axis), numpy.compress(condition, host, axis=axis))
        _check(a.compress(kiln.asarray(condition[:3]), axis=axis), host.compress(condition[:3], axis=axis))
    mask = rng.random(host.shape) < 0.4
    _check(kiln.extract(kiln.asarray(mask), kiln.asarray(host)), numpy.extract(mask, host))


def test_compress_errors_and_out():
    host = numpy.arange(5.0)
    a = kiln.asarray(host)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        kiln.compress([0, 1, 0, 0, 0, 1], a)
    _check(kiln.compress([0, 1, 0, 0, 0, 0], a), numpy.compress([0, 1, 0, 0, 0, 0], host))
    with pytest.raises(ValueError, match="condition must be a 1-d array"):
        kiln.compress([[1]], a)
    with pytest.raises(AxisError):
        kiln.compress([1], a, axis=1)
    out = kiln.zeros(2)
    assert kiln.compress([1, 0, 1], a, out=out) is out
    _check(out, numpy.array([0.0, 2.0]))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_take_dtypes(rng, dtype):
    host = random_array(rng, (6, 7), dtype)
    idx = rng.integers(-6, 6, size=(3, 2))
    _check(kiln.take(kiln.asarray(host), idx, axis=0), numpy.take(host, idx, axis=0))
    _check(kiln.asarray(host).take(kiln.asarray(idx)), host.take(idx))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take_axes_and_modes(rng, axis, mode):
    host = random_array(rng, (4, 5, 6), numpy.float64)
    n = host.size if axis is None else host.shape[axis]
    idx = rng.integers(-n, n, size=7) if mode == "raise" else rng.integers(-3 * n, 3 * n, size=(2, 7))
    expected = numpy.take(host, idx, axis=axis, mode=mode)
    for a in _layouts(host):
        _check(kiln.take(a, idx, axis=axis, mode=mode), expected)
        _check(kiln.take(a, kiln.asarray(idx), axis=axis, mode=mode), expected)
    _check(kiln.take(kiln.asarray(host), 2, axis=axis, mode=mode), numpy.take(host, 2, axis=axis, mode=mode))


def test_take_errors_and_out():
    host = numpy.arange(5)
    a = kiln.asarray(host)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        kiln.take(a, [5])
    with pytest.raises(IndexError, match="cannot do a non-empty take from an empty axes."):
        kiln.take(kiln.zeros(0), [0], mode="wrap")
    with pytest.raises(ValueError, match="clipmode"):
        kiln.take(a, [0], mode="bad")
    with pytest.raises(AxisError):
        kiln.take(a, [0], axis=1)
    out = kiln.zeros(3, dtype=numpy.int64)
    assert kiln.take(a, [4, 0, 2], out=out) is out
    _check(out, numpy.array([4, 0, 2]))
    _check(kiln.take(a, []), numpy.take(host, []))
    with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('float32'\\) to dtype\\('int64'\\)"):
        kiln.take(a, [0, 1], out=kiln.zeros(2, numpy.float32))


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("indices", [0, -1, [0], [0, -1]])
def test_take_from_0d(axis, indices):
    """NumPy reads a 0-d array as one element along axis 0 or -1; out= too."""
    host = numpy.array(5.5, numpy.float32)
    expected = numpy.take(host, indices, axis=axis)
    got = kiln.take(kiln.asarray(host), indices, axis=axis)
    _check(got, expected)
    out = kiln.zeros(numpy.shape(expected), numpy.float32)
    assert kiln.take(kiln.asarray(host), indices, axis=axis, out=out) is out
    _check(out, expected)
    with pytest.raises(AxisError, match="axis 1 is out of bounds for array of dimension 1"):
        kiln.take(kiln.asarray(host), indices, axis=1)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis_and_put_along_axis(rng, axis):
    host = random_array(rng, (5, 6), numpy.float32)
    order = numpy.argsort(host, axis=axis)
    for a in _layouts(host):
        _check(kiln.take_along_axis(a, kiln.asarray(order), axis=axis), numpy.take_along_axis(host, order, axis=axis))
        _check(kiln.take_along_axis(a, order, axis=axis), numpy.take_along_axis(host, order, axis=axis))
    if axis is None:                 # arr.flat at 1-d indices
        picks, values = numpy.array([3, 17, 0]), numpy.array([-1.0, -2.0, -3.0])
        expected = host.copy()
        numpy.put_along_axis(expected, picks, values, axis=None)
        for a in _layouts(host):
            kiln.put_along_axis(a, kiln.asarray(picks), kiln.asarray(values), axis=None)
            _check(a, expected)
        with pytest.raises(ValueError, match="must have a single dimension"):
            kiln.put_along_axis(a, picks[None], 1.0, axis=None)
        return
    picks = numpy.argmax(host, axis=axis)
    picks = numpy.expand_dims(picks, axis)
    expected = host.copy()
    numpy.put_along_axis(expected, picks, -1.0, axis=axis)
    for a in _layouts(host):
        kiln.put_along_axis(a, kiln.asarray(picks), -1.0, axis=axis)
        _check(a, expected)
    with pytest.raises(ValueError, match="same number of dimensions"):
        kiln.take_along_axis(kiln.asarray(host), kiln.zeros(5, dtype=numpy.int64), axis=0)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put(rng, mode):
    host = random_array(rng, (4, 5), numpy.int16)
    idx = rng.permutation(20)[:7] if mode == "raise" else rng.permutation(60)[:7] - 30
    values = random_array(rng, 3, numpy.int64)   # cycled over idx, cast
    expected = host.copy()
    numpy.put(expected, idx, values, mode=mode)
    # wrap and clip map several indices to one position: NumPy's last-wins
    # result needs the switch (the default stores one of them, as CuPy).
    with kiln.config.indexing(setitem_last_wins=True):
        for a in _layouts(host):
            kiln.put(a, idx, values, mode=mode)
            _check(a, expected)
            b = kiln.asarray(host)
            b.put(kiln.asarray(idx), kiln.asarray(values), mode=mode)
            _check(b, expected)


def test_put_errors():
    a = kiln.zeros(5)
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 5"):
        kiln.put(a, [9], 1.0)
    for idx, bad in (([2, -8, 3, 0], -8), ([2, -1, 3, 7], 7)):   # device indices are checked too (mode='raise')
        with pytest.raises(IndexError, match="index %d is out of bounds for axis 0 with size 7" % bad):
            kiln.put(kiln.zeros(7), kiln.asarray(idx), kiln.ones(4))
        with pytest.raises(IndexError):
            numpy.put(numpy.zeros(7), numpy.asarray(idx), numpy.ones(4))
    with pytest.raises(TypeError):
        kiln.put(numpy.zeros(5), [0], 1.0)


def test_place(rng):
    host = random_array(rng, (6, 7), numpy.complex64)
    mask = rng.random(host.shape) < 0.5
    values = random_array(rng, 4, numpy.complex64)
    expected = host.copy()
    numpy.place(expected, mask, values)
    for a in _layouts(host):
        kiln.place(a, kiln.asarray(mask), kiln.asarray(values))
        _check(a, expected)
    with pytest.raises(ValueError, match="Cannot insert from an empty array!"):
        kiln.place(kiln.asarray(host), kiln.asarray(mask), [])
    for xp in (numpy, kiln):   # a mask of another size
        with pytest.raises(ValueError, match="place: mask and data must be the same size"):
            xp.place(xp.zeros(7), xp.ones((3, 4), dtype=bool), xp.ones(1))
