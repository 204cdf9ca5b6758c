"""kiln.unique (and the array API's unique_*), isin, intersect1d, union1d,
setdiff1d and setxor1d against NumPy: dtypes, layouts, NaNs (equal_nan),
axis=, the optional outputs and their shapes."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name

AxisError = numpy.exceptions.AxisError


def small_values(rng, shape, dtype):
    """Values with many repeats (and, for floats, NaNs and both zeros)."""
    dtype = numpy.dtype(dtype)
    x = rng.integers(0, 5, shape).astype(dtype)
    if dtype.kind in "fc" and x.size > 4:
        flat = x.reshape(-1)
        flat[::7] = numpy.nan
        flat[1::9] = -0.0
        if dtype.kind == "c":
            flat[2::11] = complex(1, numpy.nan)
    return x


def check_all(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        g = g.get()
        assert g.shape == e.shape and g.dtype == e.dtype
        if e.dtype.kind in "fc":
            numpy.testing.assert_array_equal(g, e)   # NaNs match NaNs; -0.0 == 0.0
        else:
            assert_same_bits(g, e)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_unique_flat(rng, dtype):
    x = small_values(rng, (6, 9), dtype)
    k = kiln.asarray(x)
    for equal_nan in ([True, False] if x.dtype.kind in "fc" else [True]):
        check_all(kiln.unique(k, True, True, True, equal_nan=equal_nan),
                  numpy.unique(x, True, True, True, equal_nan=equal_nan))
    check_all([kiln.unique(k)], [numpy.unique(x)])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_unique_layouts(rng, layout):
    k, x = make(rng, layout, numpy.int32, rng.integers(0, 6, (6, 8)).astype(numpy.int32))
    check_all(kiln.unique(k, return_index=True, return_inverse=True, return_counts=True),
              numpy.unique(x, return_index=True, return_inverse=True, return_counts=True))


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_unique_axis(rng, axis):
    x = rng.integers(0, 2, (4, 3, 2)).astype(numpy.float32)
    check_all(kiln.unique(kiln.asarray(x), True, True, True, axis=axis), numpy.unique(x, True, True, True, axis=axis))
    with pytest.raises(AxisError):
        kiln.unique(kiln.asarray(x), axis=3)
    x[1] = x[2] = numpy.nan                      # subarrays with NaNs stay distinct, equal_nan or not
    for equal_nan in (True, False):
        check_all(kiln.unique(kiln.asarray(x), True, True, True, axis=axis, equal_nan=equal_nan),
                  numpy.unique(x, True, True, True, axis=axis, equal_nan=equal_nan))


def test_array_api_unique(rng):
    x = small_values(rng, (5, 6), numpy.float64)
    k = kiln.asarray(x)
    check_all([kiln.unique_values(k)], [numpy.unique_values(x)])
    r, e = kiln.unique_counts(k), numpy.unique_counts(x)
    assert r._fields == e._fields
    check_all(r, e)
    # NumPy sorts unstably here, so its NaNs (each distinct) may come in
    # another order: the inverse must rebuild x.
    r, e = kiln.unique_inverse(k), numpy.unique_inverse(x)
    assert r._fields == e._fields
    check_all(r[:1], e[:1])
    assert r.inverse_indices.shape == x.shape and r.inverse_indices.dtype == numpy.int64
    numpy.testing.assert_array_equal(r.values.get()[r.inverse_indices.get()], x)
    r, e = kiln.unique_all(k), numpy.unique_all(x)
    assert r._fields == e._fields
    check_all(r, e)


@pytest.mark.parametrize("dtypes", [(numpy.int64, numpy.int64), (numpy.int8, numpy.float32),
                                    (numpy.float64, numpy.float64), (numpy.complex64, numpy.complex64),
                                    (numpy.bool_, numpy.int16)], ids=str)
def test_isin(rng, dtypes):
    a, b = small_values(rng, (4, 6), dtypes[0]), small_values(rng, 5, dtypes[1])
    ka, kb = kiln.asarray(a), kiln.asarray(b)
    for invert in (False, True):
        check_all([kiln.isin(ka, kb, invert=invert)], [numpy.isin(a, b, invert=invert)])
    check_all([kiln.isin(ka, kiln.asarray(b[:0]))], [numpy.isin(a, b[:0])])


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float64, numpy.complex128], ids=name)
@pytest.mark.parametrize("assume_unique", [False, True])
def test_set_operations(rng, dtype, assume_unique):
    a = rng.integers(0, 12, 15).astype(dtype)
    b = rng.integers(6, 20, (3, 4)).astype(dtype)
    if assume_unique:
        a, b = numpy.unique(a)[::-1].copy(), numpy.unique(b)
    ka, kb = kiln.asarray(a), kiln.asarray(b)
    check_all(kiln.intersect1d(ka, kb, assume_unique, True), numpy.intersect1d(a, b, assume_unique, True))
    check_all([kiln.intersect1d(ka, kb, assume_unique)], [numpy.intersect1d(a, b, assume_unique)])
    check_all([kiln.setdiff1d(ka, kb, assume_unique)], [numpy.setdiff1d(a, b, assume_unique)])
    check_all([kiln.setxor1d(ka, kb, assume_unique)], [numpy.setxor1d(a, b, assume_unique)])
    check_all([kiln.union1d(ka, kb)], [numpy.union1d(a, b)])


def test_empty_and_nan_operands():
    e, n = numpy.zeros(0), numpy.array([numpy.nan, 1.0, numpy.nan])
    ke, kn = kiln.asarray(e), kiln.asarray(n)
    check_all(kiln.unique(ke, True, True, True), numpy.unique(e, True, True, True))
    check_all(kiln.intersect1d(ke, kn, return_indices=True), numpy.intersect1d(e, n, return_indices=True))
    for f in ("union1d", "setdiff1d", "setxor1d", "intersect1d"):
        check_all([getattr(kiln, f)(kn, kn)], [getattr(numpy, f)(n, n)])
        check_all([getattr(kiln, f)(ke, kn)], [getattr(numpy, f)(e, n)])
