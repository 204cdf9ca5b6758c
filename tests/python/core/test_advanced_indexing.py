"""Advanced indexing against NumPy: integer arrays (kiln, NumPy, lists,
nested lists, tuples), boolean masks, their mixes with integers, slices,
Ellipsis and None (the cases of NumPy's indexing guide), assignment with
broadcasting and casting, NumPy's errors, and kiln.config's switches."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, random_array

SHAPE = (4, 5, 6)
_B = numpy.random.default_rng(7).integers(0, 2, size=SHAPE).astype(bool)

# Keys for a (4, 5, 6) array, covering NumPy's guide: integer arrays alone
# and together (broadcast), with slices, Ellipsis and None between or around
# them (adjacent: in place; separated: first), integers among arrays, boolean
# masks of every rank, 0-d booleans, empty and negative indices.
KEYS = [
    [3, 3, 1, 0],
    [3, 3, -3, 0],
    [[1, 1], [2, 3]],
    ([0, 2, 3], [0, 1, 2]),
    ([0, 2, 3], 1),
    ([0, 2, 3], slice(1, 3)),
    (slice(None), [4, 0, -1]),
    (slice(None), [[0], [2]], [1, 5, 0]),
    ([[0], [2]], slice(None), [1, 5, 0]),
    (0, slice(None), [0, 1]),
    (slice(None), 0, [0, 1]),
    (Ellipsis, [1, 2]),
    ([1, 2], Ellipsis, None),
    ([0], Ellipsis, [0]),
    ([0], None, [0]),
    ([1], Ellipsis, [2, 0], slice(None)),
    (None, [[1], [3]], Ellipsis, [], slice(None)),
    (Ellipsis, [0], [1]),
    ([0], [1], Ellipsis),
    (None, [1, 3], slice(None, None, -2), [[0], [5]]),
    ((0, 1),),
    ((0, 1), (2, 3)),
    [],
    ([], slice(1, 3)),
    True,
    False,
    ([0, 1], True),
    (True, [0, 1]),
    _B,
    (_B[:, :, 1], slice(None, None, 2)),
    _B[:, :, 0],
    (slice(None), _B[0]),
    (_B[:, 0, 0], 2),
    (_B[:, 0, 0], slice(None), [1, 2]),
    (1, _B[1, :, 0], slice(2, None)),
    _B[:, 0, 0].tolist(),
    numpy.zeros(SHAPE, bool),
    numpy.empty(0, bool),                                   # boolean axes of length 0 select nothing
    (slice(None), numpy.empty((0, 6), bool)),
    (numpy.empty((0, 5), bool), numpy.empty(0, bool)),
]


def _key_id(key):
    if isinstance(key, numpy.ndarray):
        return "%s%s" % (key.dtype, key.shape)
    if isinstance(key, tuple):
        return "(%s)" % ", ".join(_key_id(k) for k in key)
    return repr(key)


def _device_key(key):
    """The same key with every array (list, NumPy array) on the device."""
    def one(k):
        if isinstance(k, (list, numpy.ndarray)):
            host = numpy.asarray(k)
            return kiln.asarray(host.astype(numpy.int64) if host.dtype.kind == "f" else host)
        return k
    if isinstance(key, tuple):
        return tuple(one(k) for k in key)
    return one(key)


def _check(kiln_result, numpy_result):
    got = kiln_result.get()
    assert got.shape == numpy_result.shape and got.dtype == numpy_result.dtype
    numpy.testing.assert_array_equal(got, numpy_result)


def _layouts(host):
    """host's values as kiln arrays in several layouts: C, Fortran, strided,
    negative strides."""
    c = kiln.asarray(host)
    f = kiln.asarray(numpy.asfortranarray(host))
    big = kiln.zeros(tuple(2 * n for n in host.shape), dtype=host.dtype)
    strided = big[::2, ::2, ::2]
    strided[...] = c
    reversed_ = kiln.asarray(host[::-1, :, ::-1].copy())[::-1, :, ::-1]
    return {"C": c, "F": f, "strided": strided, "negative": reversed_}


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
@pytest.mark.parametrize("key", KEYS, ids=_key_id)
def test_getitem_matches_numpy(rng, key, layout):
    host = random_array(rng, SHAPE, numpy.int64)
    a = _layouts(host)[layout]
    expected = host[key]
    _check(a[key], expected)
    _check(a[_device_key(key)], expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_getitem_all_dtypes(rng, dtype):
    host = random_array(rng, SHAPE, dtype)
    a = kiln.asarray(host)
    for key in ([3, 0, -1], (slice(None), [[1], [4]], [0, 5]), _B, ([0, 2], 1, slice(None, None, -1))):
        _check(a[key], host[key])


@pytest.mark.parametrize("index_dtype", [numpy.int8, numpy.uint8, numpy.int16, numpy.int32, numpy.uint32,
                                         numpy.int64, numpy.uint64])
def test_index_array_dtypes(rng, index_dtype):
    host = random_array(rng, SHAPE, numpy.float32)
    idx = numpy.array([[3, 0], [1, 2]], dtype=index_dtype)
    _check(kiln.asarray(host)[idx], host[idx])
    _check(kiln.asarray(host)[:, kiln.asarray(idx)], host[:, idx])


def test_result_is_a_copy(rng):
    host = random_array(rng, SHAPE, numpy.float64)
    a = kiln.asarray(host)
    r = a[[0, 1]]
    r[...] = 0
    numpy.testing.assert_array_equal(a.get(), host)
    assert r.base is None


def test_zero_d_and_empty_arrays(rng):
    host = numpy.array(5.0)
    a = kiln.asarray(host)
    for key in (True, False, (None, True), numpy.bool_(True)):
        _check(a[key], host[key])
    empty = numpy.zeros((0, 3), numpy.int32)
    e = kiln.asarray(empty)
    for key in ([], (slice(None), [0, 2]), numpy.zeros((0, 3), bool), ([], [])):
        _check(e[key], empty[key])


@pytest.mark.parametrize("key", KEYS, ids=_key_id)
def test_setitem_scalar_matches_numpy(rng, key):
    host = random_array(rng, SHAPE, numpy.int32)
    a = kiln.asarray(host)
    expected = host.copy()
    expected[key] = -7
    a[key] = -7
    _check(a, expected)
    b = kiln.asarray(host)
    b[_device_key(key)] = -7
    _check(b, expected)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
@pytest.mark.parametrize("key", [([0, 2, 3], [0, 1, 2]), (slice(None), [[0], [2]], [1, 5, 0]),
                                 ([[0], [2]], slice(None), [1, 5, 0]), _B, (_B[:, 0, 0], slice(None), [1, 2]),
                                 (0, slice(None), [0, 1])], ids=_key_id)
def test_setitem_broadcast_values(rng, key, layout):
    host = random_array(rng, SHAPE, numpy.float64)
    a = _layouts(host)[layout]
    shape = host[key].shape
    value = random_array(rng, shape[1:], numpy.float32)   # broadcast along the first axis, cast
    expected = host.copy()
    expected[key] = value
    a[key] = kiln.asarray(value)
    _check(a, expected)
    full = random_array(rng, shape, numpy.int64)
    expected[key] = full
    a[_device_key(key)] = full
    _check(a, expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_setitem_all_dtypes(rng, dtype):
    host = random_array(rng, SHAPE, dtype)
    a = kiln.asarray(host)
    value = random_array(rng, (3, 2, 6), dtype)
    key = ([[0], [3], [1]], [4, 2])   # no duplicates: any order gives NumPy's result
    expected = host.copy()
    expected[key] = value
    a[kiln.asarray(numpy.array([[0], [3], [1]]))[:, :], [4, 2]] = kiln.asarray(value)
    _check(a, expected)
    expected[_B] = host[_B][::-1]
    a[kiln.asarray(_B)] = kiln.asarray(host[_B][::-1])
    _check(a, expected)


def test_setitem_overlapping_value_and_index(rng):
    host = numpy.arange(10, dtype=numpy.int64)[::-1].copy()
    a = kiln.asarray(host)
    expected = host.copy()
    expected[[1, 3, 5]] = expected[::-1][:3]
    a[[1, 3, 5]] = a[::-1][:3]
    _check(a, expected)
    perm = numpy.array([3, 1, 2, 0, 4, 9, 8, 7, 6, 5])
    p = kiln.asarray(perm)
    expected = perm.copy()
    expected[perm] = numpy.arange(10)
    p[p] = kiln.arange(10)   # the index is the target itself
    _check(p, expected)


def _same_error(kind, numpy_call, kiln_call):
    with pytest.raises(kind) as expected:
        numpy_call()
    with pytest.raises(kind) as got:
        kiln_call()
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("key", [[4], [-5], ([0], [5]), (slice(None), [0, 7]), (1, 2, [6]), ([0, 1], 9),
                                 numpy.array([[0, 4]]), (None, [4]), ((0, 4),)], ids=_key_id)
def test_host_out_of_bounds_raise_numpy_errors(key):
    host = numpy.zeros(SHAPE)
    a = kiln.zeros(SHAPE)
    _same_error(IndexError, lambda: host[key], lambda: a[key])

    def store(x):
        x[key] = 1
    _same_error(IndexError, lambda: store(host), lambda: store(a))
    numpy.testing.assert_array_equal(a.get(), host)


@pytest.mark.parametrize("key", [numpy.ones(3, bool), (slice(None), numpy.ones((5, 7), bool)),
                                 ([0, 1], [0, 1, 2]), ([[0, 1]], [0, 1, 2]), numpy.array([0.5]),
                                 (0, 0, 0, [0]), (_B, 0), "x", [0, slice(None)], numpy.array([], float),
                                 (slice(None), numpy.empty((0, 2), bool)),
                                 numpy.array([1], object)], ids=_key_id)
def test_bad_keys_raise_numpy_errors(key):
    host = numpy.zeros(SHAPE)
    a = kiln.zeros(SHAPE)
    _same_error(IndexError, lambda: host[key], lambda: a[key])


def test_setitem_shape_mismatch_is_numpy_value_error():
    host = numpy.zeros(SHAPE)
    a = kiln.zeros(SHAPE)

    def store(x, key, value):
        x[key] = value
    _same_error(ValueError, lambda: store(host, [0, 1, 0], numpy.zeros((2, 5, 6))),
                lambda: store(a, [0, 1, 0], kiln.zeros((2, 5, 6))))
    _same_error(ValueError, lambda: store(host, _B, numpy.zeros(3)), lambda: store(a, _B, numpy.zeros(3)))
    _same_error(ValueError, lambda: store(host, (Ellipsis, _B), numpy.zeros(3)),
                lambda: store(a, (Ellipsis, _B), kiln.zeros(3)))
    _same_error(ValueError, lambda: store(host, _B[:, :, 0], numpy.zeros(3)),
                lambda: store(a, _B[:, :, 0], numpy.zeros(3)))
    _same_error(TypeError, lambda: store(host, _B, numpy.zeros((1, 3))), lambda: store(a, _B, kiln.zeros((1, 3))))


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.float16, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).name)
def test_whole_array_mask_assignment(rng, dtype):
    host = random_array(rng, SHAPE, dtype)
    a = kiln.asarray(host)
    mask = host != host.flat[0]
    expected = host.copy()
    expected[mask] = 3
    a[kiln.asarray(mask)] = 3
    _check(a, expected)
    values = random_array(rng, (int(mask.sum()),), dtype)
    expected[mask] = values
    a[mask] = kiln.asarray(values)
    _check(a, expected)


def test_device_out_of_bounds_wrap_by_default():
    assert not kiln.config.check_index_bounds
    host = numpy.arange(5) * 10
    idx = numpy.array([7, -6, 2, -13])
    a = kiln.asarray(host)
    _check(a[kiln.asarray(idx)], host[idx % 5])
    a[kiln.asarray(numpy.array([5, -9]))] = -1
    expected = host.copy()
    expected[[0, 1]] = -1
    _check(a, expected)


def test_check_index_bounds_raises_numpy_error_and_writes_nothing():
    host = numpy.zeros(SHAPE)
    a = kiln.asarray(host)
    bad = numpy.array([[0, 2], [9, 1]])
    with kiln.config.indexing(check_index_bounds=True):
        assert kiln.config.check_index_bounds
        _same_error(IndexError, lambda: host[:, :, bad], lambda: a[:, :, kiln.asarray(bad)])
        _same_error(IndexError, lambda: host[:, -6], lambda: a[:, kiln.asarray(numpy.array(-6))])

        def store(x, key):
            x[key] = 1
        _same_error(IndexError, lambda: store(host, (bad, 0)), lambda: store(a, (kiln.asarray(bad), 0)))
        numpy.testing.assert_array_equal(a.get(), host)
        good = numpy.array([3, -4, 0])
        _check(a[kiln.asarray(good), 1], host[good, 1])
    assert not kiln.config.check_index_bounds


def test_setitem_last_wins():
    target = numpy.zeros(2)
    i = numpy.arange(10000) % 2
    v = numpy.arange(10000).astype(numpy.float32)
    target[i] = v
    a = kiln.zeros(2)
    kiln.config.setitem_last_wins = True
    try:
        a[kiln.asarray(i)] = kiln.asarray(v)
    finally:
        kiln.config.setitem_last_wins = False
    _check(a, target)
    host = numpy.zeros((3, 4), numpy.int16)[:, ::-1]
    rows = numpy.random.default_rng(3).integers(0, 3, size=(50, 1))
    values = numpy.arange(200, dtype=numpy.int16).reshape(50, 4)
    host[rows, [[0, 1, 2, 3]]] = values
    b = kiln.zeros((3, 4), numpy.int16)[:, ::-1]
    with kiln.config.indexing(setitem_last_wins=True):
        b[kiln.asarray(rows), [[0, 1, 2, 3]]] = values
    _check(b, host)


def test_basic_keys_still_make_views():
    a = kiln.zeros(SHAPE)
    v = a[1, ::2, None]
    v[...] = 3
    assert a[1, 0, 0].get() == 3 and v.base is a


def _random_key(rng, ndim):
    """A random mix of integers, slices, None, Ellipsis, booleans, lists, NumPy and kiln index arrays and
    boolean masks, possibly invalid (NumPy's error is then the reference)."""
    key, axis = [], 0
    for _ in range(rng.integers(1, 5)):
        n = SHAPE[min(axis, ndim - 1)]
        r = rng.random()
        if r < 0.15:
            item = slice(rng.choice([None, 1, -2]), rng.choice([None, 3]), rng.choice([None, -1, 2]))
        elif r < 0.25:
            item = None
        elif r < 0.35:
            item = int(rng.integers(-n, n))
        elif r < 0.6:
            item = rng.integers(-n, n, size=[(2,), (1,), (2, 1), (0,)][rng.integers(4)]).tolist()
        elif r < 0.7:
            item = bool(rng.random() < 0.5)
        elif r < 0.85:
            item = kiln.asarray(rng.integers(-n, n, size=2))
        else:
            item = rng.random(n) < 0.5
        key.append(item)
        axis += item is not None and not isinstance(item, bool)
    if rng.random() < 0.25:
        key.insert(rng.integers(len(key) + 1), Ellipsis)
    return tuple(key)


def test_random_keys_match_numpy(rng):
    host = random_array(rng, SHAPE, numpy.int32)
    for _ in range(150):
        key = _random_key(rng, len(SHAPE))
        host_key = tuple(k.get() if isinstance(k, kiln.ndarray) else k for k in key)
        try:
            expected = host[host_key]
        except (IndexError, ValueError) as e:
            with pytest.raises(type(e)):
                kiln.asarray(host)[key]
            continue
        _check(kiln.asarray(host)[key], expected)
        value = random_array(rng, expected.shape[1:], numpy.int32)
        stored = host.copy()
        stored[host_key] = value
        a = kiln.asarray(host)
        with kiln.config.indexing(setitem_last_wins=True):   # keys may repeat targets
            a[key] = value
        _check(a, stored)
