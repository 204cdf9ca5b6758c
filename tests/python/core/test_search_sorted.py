"""searchsorted (function and method) and digitize against NumPy: every
dtype, both sides, sorter, NaNs (and complex NaNs of each kind) sorting
last, mixed dtypes compared in their common type, layouts of a and v,
increasing and decreasing bins, and NumPy's errors. Results are exact."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name, random_array


def sorted_values(rng, dtype, n=40):
    """A sorted host array of dtype with repeated values and, for floats,
    NaNs (NumPy's sort puts them last; for complex, NaN parts of each kind)."""
    x = random_array(rng, n, dtype)
    x[n // 2:n // 2 + 5] = x[3]   # repeats
    if numpy.dtype(dtype).kind == "f":
        x[-3:] = numpy.nan
        x[5] = numpy.inf
    if numpy.dtype(dtype).kind == "c":
        x[-4:] = [complex(numpy.nan, 1), complex(2, numpy.nan), complex(numpy.nan, numpy.nan), complex(numpy.inf, 0)]
    return numpy.sort(x)


def probes(rng, a, dtype, layout):
    """(kiln, host) values to search: a's own elements (ties) and random ones."""
    base = random_array(rng, (6, 8), dtype)
    base.reshape(-1)[:20] = numpy.resize(a, 20)
    return make(rng, layout, dtype, base)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_searchsorted(rng, dtype, layout):
    a = sorted_values(rng, dtype)
    ka = kiln.asarray(a)
    kv, v = probes(rng, a, dtype, layout)
    for side in ("left", "right"):
        got = kiln.searchsorted(ka, kv, side=side)
        assert_same_bits(got.get(), numpy.asarray(numpy.searchsorted(a, v, side=side)).astype(numpy.int64))
        assert_same_bits(ka.searchsorted(kv, side).get(), numpy.asarray(a.searchsorted(v, side)).astype(numpy.int64))


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.complex64], ids=name)
def test_sorter_and_strided_a(rng, dtype):
    a = sorted_values(rng, dtype)
    perm = rng.permutation(a.size)
    shuffled = a[perm]
    sorter = numpy.argsort(shuffled, kind="stable")
    kv, v = probes(rng, a, dtype, "strided")
    for side in ("left", "right"):
        got = kiln.searchsorted(kiln.asarray(shuffled), kv, side, sorter=kiln.asarray(sorter.astype(numpy.int32)))
        assert_same_bits(got.get(), numpy.searchsorted(shuffled, v, side, sorter=sorter).astype(numpy.int64))
        # a as a negative-stride view of a descending array, and strided
        desc = kiln.asarray(a[::-1].copy())[::-1]
        assert_same_bits(kiln.searchsorted(desc, kv, side).get(), numpy.searchsorted(a, v, side).astype(numpy.int64))
        wide = kiln.asarray(numpy.repeat(a, 2))[::2]
        assert_same_bits(kiln.searchsorted(wide, kv, side).get(), numpy.searchsorted(a, v, side).astype(numpy.int64))


def test_mixed_dtypes_and_scalars():
    f = numpy.array([0.1, 0.5, 2.0], numpy.float32)
    for v in (0.1, numpy.float32(0.1), 0.5, 7):
        for side in ("left", "right"):
            got = kiln.searchsorted(kiln.asarray(f), v, side=side)
            assert got.shape == () and got.dtype == numpy.int64
            assert got.get() == numpy.searchsorted(f, v, side=side)
    i8 = numpy.array([-5, 1, 2, 100], numpy.int8)
    for v in (1000, -1000, 1.5, numpy.float16(1.5)):
        assert kiln.searchsorted(kiln.asarray(i8), v).get() == numpy.searchsorted(i8, v)
    u = numpy.array([1, 2, 2 ** 63], numpy.uint64)
    assert kiln.searchsorted(kiln.asarray(u), -1, side="right").get() == numpy.searchsorted(u, -1, side="right")
    h = numpy.array([0.5, 1.5, 2.5], numpy.float16)
    vi = numpy.arange(-1, 4, dtype=numpy.int32)
    assert_same_bits(kiln.searchsorted(kiln.asarray(h), kiln.asarray(vi)).get(),
                     numpy.searchsorted(h, vi).astype(numpy.int64))
    e = kiln.searchsorted(kiln.asarray(f[:0]), kiln.asarray(vi))
    assert_same_bits(e.get(), numpy.searchsorted(f[:0], vi))


def test_searchsorted_errors():
    a = kiln.asarray(numpy.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="object too deep"):
        kiln.searchsorted(kiln.zeros((2, 2)), 1)
    with pytest.raises(ValueError, match="too small depth"):
        kiln.searchsorted(kiln.asarray(numpy.float64(1)), 1)
    with pytest.raises(ValueError, match=r"search side must be 'left' or 'right' \(got 'x'\)"):
        kiln.searchsorted(a, 1, side="x")
    with pytest.raises(ValueError, match="sorter.size must equal a.size"):
        kiln.searchsorted(a, 1, sorter=kiln.asarray(numpy.array([0, 1])))
    with pytest.raises(ValueError, match="Sorter index out of range"):
        kiln.searchsorted(a, 2.5, sorter=kiln.asarray(numpy.array([0, 1, 7])))
    with pytest.raises(TypeError, match="sorter must only contain integers"):
        kiln.searchsorted(a, 1, sorter=kiln.asarray(numpy.array([0.0, 1, 2])))
    with pytest.raises(TypeError, match="kiln.asarray"):
        kiln.searchsorted(numpy.array([1.0]), 1)
    with pytest.raises(TypeError, match="kiln.asarray"):
        kiln.searchsorted(a, numpy.array([1.0]))


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.uint8, numpy.float32, numpy.float64], ids=name)
def test_digitize(rng, dtype):
    bins = numpy.unique(random_array(rng, 12, dtype))
    if numpy.dtype(dtype).kind == "f":
        bins = numpy.concatenate([bins, [numpy.nan]]).astype(dtype)
    for layout in ["C", "negative", "0-d", "empty"]:
        k, x = probes(rng, bins, dtype, layout)
        for b in (bins, bins[::-1]):
            for right in (False, True):
                assert_same_bits(kiln.digitize(k, kiln.asarray(b), right=right).get(),
                                 numpy.asarray(numpy.digitize(x, b, right=right)).astype(numpy.int64))


def test_digitize_bins_rules():
    x = numpy.array([0.5, 1.0, 1.5, 2.0, 3.0, numpy.nan])
    kx = kiln.asarray(x)
    for b in ([1.0, 1.0, 2.0], [2.0, 2.0, 1.0], [1.0, 1.0], [5.0], [], [1.0, numpy.nan], [numpy.nan, 1.0],
              [3.0, 2.0, numpy.nan], numpy.array([1, 2, 3], numpy.int8)):
        for right in (False, True):
            assert_same_bits(kiln.digitize(kx, b, right=right).get(),
                             numpy.digitize(x, b, right=right).astype(numpy.int64))
    assert kiln.digitize(1.5, [1, 2]).get() == 1
    for b in ([1, 3, 2], [1.0, numpy.nan, 2.0, 3.0]):
        with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
            kiln.digitize(kx, b)
    with pytest.raises(TypeError, match="x may not be complex"):
        kiln.digitize(kiln.asarray(numpy.array([1j])), [1, 2])
    with pytest.raises(ValueError, match="object too deep"):
        kiln.digitize(kx, [[1, 2]])
    with pytest.raises(ValueError, match="too small depth"):
        kiln.digitize(kx, 5)
