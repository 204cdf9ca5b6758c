"""kiln's index tricks against NumPy's: r_, c_, mgrid, ogrid, ix_,
unravel_index, ravel_multi_index, broadcast, s_, index_exp, ndindex, with
NumPy's errors and messages (r_/c_ refuse slices and directives, as CuPy's)."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, assert_same_values, name, same_error

INT_DTYPES = [d for d in ALL_DTYPES if numpy.dtype(d).kind in "iu"]


def check_tuple(got, expected):
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
        assert isinstance(g, kiln.ndarray)
        assert_same_values(g.get(), e)


# --- r_ / c_ ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_r_concatenates_arrays_and_scalars(dtype):
    a = numpy.arange(3).astype(dtype)
    b = numpy.arange(8).reshape(2, 4).astype(dtype)
    assert_same_values(kiln.r_[kiln.asarray(a), 0, 1, kiln.asarray(a)].get(), numpy.r_[a, 0, 1, a])
    assert_same_values(kiln.r_[kiln.asarray(b), kiln.asarray(b[::-1])].get(), numpy.r_[b, b[::-1]])
    assert_same_values(kiln.c_[kiln.asarray(b), kiln.asarray(b)].get(), numpy.c_[b, b])


@pytest.mark.parametrize("items", [(0, 0.5, -1, 0.3), (1, 2), (True, 2), ([1, 2], 3.5), (numpy.float32(1), 2)])
def test_r_scalar_and_list_types(items):
    kiln_items = tuple(kiln.asarray(i) if isinstance(i, list) else i for i in items)
    assert_same_values(kiln.r_[kiln_items].get(), numpy.r_[items])


def test_c_makes_1d_arrays_columns():
    x, y = numpy.array([1, 2, 3]), numpy.array([4.0, 5, 6])
    got = kiln.c_[kiln.asarray(x), kiln.asarray(y)]
    assert_same_values(got.get(), numpy.c_[x, y])
    assert got.shape == (3, 2)
    assert len(kiln.r_) == 0 and len(kiln.c_) == 0


def test_r_c_errors():
    with pytest.raises(NotImplementedError, match="slices"):
        kiln.r_[-1:1:6j, [0] * 3, 5, 6]
    with pytest.raises(NotImplementedError, match="directives"):
        kiln.r_["0,2", [1, 2, 3], [4, 5, 6]]
    with pytest.raises(ValueError, match="special directives must be the first entry"):
        kiln.r_[kiln.arange(2), "r"]
    a, b = numpy.ones((3, 4)), numpy.ones((2, 5))
    same_error(lambda: kiln.r_[kiln.asarray(a), kiln.asarray(b)], lambda: numpy.r_[a, b])
    same_error(lambda: kiln.c_[kiln.asarray(a), kiln.asarray(b)], lambda: numpy.c_[a, b])


# --- mgrid / ogrid ---------------------------------------------------------------------------------------

GRID_KEYS = [
    slice(0, 5), slice(-1, 1, 0.25), slice(-1, 1, 5j), slice(3, None), slice(5, 1, -1), slice(2, 2), slice(0, 1, 1j),
    (slice(0, 3), slice(0, 4)), (slice(0, 3, 0.5), slice(1, 2)), (slice(-1, 1, 4j), slice(0, 5, 2)),
    (slice(0, 2), slice(0, 3), slice(1, 3)), (slice(0, 0), slice(0, 3)),
]


@pytest.mark.parametrize("key", GRID_KEYS, ids=repr)
def test_mgrid_and_ogrid(key):
    assert_same_values(kiln.mgrid[key].get(), numpy.mgrid[key])
    got, expected = kiln.ogrid[key], numpy.ogrid[key]
    if isinstance(expected, tuple):
        check_tuple(got, expected)
    else:
        assert_same_values(got.get(), numpy.asarray(expected))


def test_grids_with_array_bounds():
    x, y = numpy.zeros(4)[:, None], numpy.ones(4)[:, None]
    kx, ky = kiln.asarray(x), kiln.asarray(y)
    assert_same_values(kiln.mgrid[kx:ky:5j].get(), numpy.mgrid[x:y:5j])
    assert_same_values(kiln.mgrid[kx:ky:4j, kx:ky:4j].get(), numpy.mgrid[x:y:4j, x:y:4j])
    check_tuple(kiln.ogrid[kx:ky:5j, kx:ky:3j], numpy.ogrid[x:y:5j, x:y:3j])
    with pytest.raises(ValueError):
        numpy.mgrid[x:y:5j, x:y:3j]
    with pytest.raises(ValueError):
        kiln.mgrid[kx:ky:5j, kx:ky:3j]


# --- ix_ -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INT_DTYPES + [numpy.bool_], ids=name)
def test_ix_arrays(dtype):
    a, b = numpy.array([0, 1, 1], dtype), numpy.array([2, 3], dtype)
    check_tuple(kiln.ix_(kiln.asarray(a), kiln.asarray(b)), numpy.ix_(a, b))


def test_ix_lists_empty_and_errors():
    check_tuple(kiln.ix_([0, 1], [2, 4], [True, False, True]), numpy.ix_([0, 1], [2, 4], [True, False, True]))
    check_tuple(kiln.ix_([]), numpy.ix_([]))
    check_tuple(kiln.ix_(kiln.asarray(numpy.array([]))), numpy.ix_(numpy.array([])))
    assert kiln.ix_() == ()
    same_error(lambda: kiln.ix_(kiln.ones((2, 2))), lambda: numpy.ix_(numpy.ones((2, 2))))
    x = kiln.arange(20).reshape(4, 5)
    assert_same_values(x[kiln.ix_([0, 3], [1, 4])].get(), numpy.arange(20).reshape(4, 5)[numpy.ix_([0, 3], [1, 4])])


# --- unravel_index ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F", None])
@pytest.mark.parametrize("dtype", INT_DTYPES + [numpy.bool_], ids=name)
def test_unravel_index(dtype, order):
    idx = numpy.minimum(numpy.arange(24).reshape(4, 3, 2), 23).astype(dtype)
    check_tuple(kiln.unravel_index(kiln.asarray(idx), (6, 4), order=order),
                numpy.unravel_index(idx, (6, 4), order=order))


def test_unravel_index_layouts_scalars_and_empty():
    idx = numpy.arange(40)[::-3]
    check_tuple(kiln.unravel_index(kiln.asarray(numpy.arange(40))[::-3], (2, 4, 5)),
                numpy.unravel_index(idx, (2, 4, 5)))
    check_tuple(kiln.unravel_index(kiln.asarray(numpy.array(7)), (3, 4)), numpy.unravel_index(numpy.array(7), (3, 4)))
    check_tuple(kiln.unravel_index(kiln.zeros((0,), kiln.int64), (3, 4)),
                numpy.unravel_index(numpy.zeros((0,), numpy.int64), (3, 4)))
    check_tuple(kiln.unravel_index(kiln.arange(5), 5), numpy.unravel_index(numpy.arange(5), 5))
    assert kiln.unravel_index(7, (3, 4)) == numpy.unravel_index(7, (3, 4))


def test_unravel_index_errors():
    idx = numpy.arange(24).reshape(4, 3, 2)
    for bad in (idx, idx - 1):   # NumPy names the first index out of bounds
        same_error(lambda: kiln.unravel_index(kiln.asarray(bad), (5, 4)), lambda: numpy.unravel_index(bad, (5, 4)))
    same_error(lambda: kiln.unravel_index(kiln.asarray(idx), (6, 4), order="V"),
               lambda: numpy.unravel_index(idx, (6, 4), order="V"))
    same_error(lambda: kiln.unravel_index(kiln.asarray(idx * 1.0), (6, 4)),
               lambda: numpy.unravel_index(idx * 1.0, (6, 4)))


# --- ravel_multi_index -----------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F", None])
@pytest.mark.parametrize("mode", ["wrap", "clip", ("clip", "wrap", "clip")])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_ravel_multi_index_modes(dtype, mode, order):
    dims = (8, 4, 2)
    coords = [numpy.arange(8).astype(dtype)] * 3
    got = kiln.ravel_multi_index([kiln.asarray(c) for c in coords], dims, mode=mode, order=order)
    assert_same_values(got.get(), numpy.ravel_multi_index(coords, dims, mode=mode, order=order))


@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_multi_index_broadcasting_bool_and_scalars(order):
    x, y = numpy.meshgrid(numpy.arange(3), numpy.arange(5), sparse=True, indexing="ij")
    got = kiln.ravel_multi_index((kiln.asarray(x), kiln.asarray(y)), (3, 5), order=order)
    assert_same_values(got.get(), numpy.ravel_multi_index((x, y), (3, 5), order=order))
    ones = numpy.ones(5, bool)
    got = kiln.ravel_multi_index([kiln.asarray(ones)] * 2, (8, 4), order=order)
    assert_same_values(got.get(), numpy.ravel_multi_index([ones] * 2, (8, 4), order=order))
    got = kiln.ravel_multi_index(kiln.asarray(numpy.array([[1, 2], [3, 0]])), (4, 4), order=order)
    assert_same_values(got.get(), numpy.ravel_multi_index(numpy.array([[1, 2], [3, 0]]), (4, 4), order=order))
    assert kiln.ravel_multi_index((1, 2), (3, 4), order=order) == numpy.ravel_multi_index((1, 2), (3, 4), order=order)
    flat = kiln.ravel_multi_index((kiln.arange(3), 1), (3, 4))   # an int broadcasts against the arrays
    assert kiln.unravel_index(flat, (3, 4))[0].get().tolist() == [0, 1, 2]


def test_ravel_multi_index_errors():
    a = numpy.arange(8)
    cases = [
        (lambda xp, c: xp.ravel_multi_index(c, (8, 4, 2))),                       # out of bounds, mode='raise'
        (lambda xp, c: xp.ravel_multi_index(c[:2], (8, 4), mode="invalid")),
        (lambda xp, c: xp.ravel_multi_index(c[:2], (8, 4), order="V")),
        (lambda xp, c: xp.ravel_multi_index(c[:2], (numpy.iinfo(numpy.int64).max, 4))),
        (lambda xp, c: xp.ravel_multi_index(c, (8, 4))),                          # wrong length
        (lambda xp, c: xp.ravel_multi_index(c[:2], (8., 4))),
    ]
    for case in cases:
        same_error(lambda: case(kiln, [kiln.asarray(a)] * 3), lambda: case(numpy, [a] * 3))
    f = numpy.ones((3, 5))
    same_error(lambda: kiln.ravel_multi_index(kiln.asarray(f), (2, 4, 8)),
               lambda: numpy.ravel_multi_index(f, (2, 4, 8)))


# --- broadcast, s_, index_exp, ndindex -------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [[(2, 3)], [(3, 1), (4,)], [(0, 1, 1, 3), (2, 1, 0, 0, 3)], [(), (2,)], []],
                         ids=repr)
def test_broadcast(shapes):
    got = kiln.broadcast(*[kiln.zeros(s) for s in shapes])
    expected = numpy.broadcast(*[numpy.zeros(s) for s in shapes])
    assert (got.shape, got.size, got.nd, got.ndim, got.numiter) == (
        expected.shape, expected.size, expected.nd, expected.ndim, expected.numiter)
    assert all(v.shape == expected.shape for v in got.values)


def test_broadcast_errors_and_array_likes():
    same_error(lambda: kiln.broadcast(kiln.ones(3), kiln.ones(2)),
               lambda: numpy.broadcast(numpy.ones(3), numpy.ones(2)))
    assert kiln.broadcast([1, 2, 3], 5).shape == (3,)


def test_host_index_builders_are_numpys():
    assert kiln.s_ is numpy.s_ and kiln.index_exp is numpy.index_exp and kiln.ndindex is numpy.ndindex
    x = kiln.arange(10)
    assert x[kiln.s_[2::3]].get().tolist() == [2, 5, 8]
    assert list(kiln.ndindex(2, 2)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
