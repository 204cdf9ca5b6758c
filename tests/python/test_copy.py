"""The copy/cast kernel: astype, copy, ascontiguousarray and strided downloads,
against NumPy over dtype pairs and layouts."""
import numpy
import pytest

import kiln
from conftest import random_array

# float16 and complex conversions arrive with the half and complex device headers.
PLAIN = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
         numpy.uint16, numpy.uint32, numpy.uint64, numpy.float32, numpy.float64]
LAYOUTS = ["C", "F", "strided", "negative", "0-d", "empty"]


def make(rng, layout, dtype):
    """(kiln array, the NumPy array it equals) in the given layout."""
    dtype = numpy.dtype(dtype)
    if numpy.issubdtype(dtype, numpy.floating):
        base = (rng.random((6, 8)) * 100).astype(dtype)   # in range for every integer type
    else:
        base = random_array(rng, (6, 8), dtype)
    k = kiln.asarray(base)
    isz = dtype.itemsize
    if layout == "C":
        return k, base
    if layout == "F":
        return k.astype(dtype, order="F"), numpy.asfortranarray(base)
    if layout == "strided":
        return kiln._core._as_strided(k, (3, 3), (16 * isz, 3 * isz), isz), base[::2, 1::3]
    if layout == "negative":
        return kiln._core._as_strided(k, (6, 4), (-8 * isz, -2 * isz), 47 * isz), base[::-1, ::-2]
    if layout == "0-d":
        return kiln._core._as_strided(k, (), (), 13 * isz), base.reshape(-1)[13].reshape(())
    return kiln._core._as_strided(k, (0, 3), (8 * isz, isz), 0), base[:0, :3]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dst", PLAIN, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("src", PLAIN, ids=lambda d: numpy.dtype(d).name)
def test_astype_matches_numpy(rng, src, dst, layout):
    k, host = make(rng, layout, src)
    got = k.astype(dst)
    expected = host.astype(dst)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_array_equal(got.get(), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", PLAIN, ids=lambda d: numpy.dtype(d).name)
def test_download_and_copy_any_layout(rng, dtype, layout):
    k, host = make(rng, layout, dtype)
    numpy.testing.assert_array_equal(kiln.asnumpy(k), host)
    c = k.copy()
    assert c._c_contiguous and c.data.ptr != k.data.ptr
    numpy.testing.assert_array_equal(c.get(), host)
    f = k.copy(order="F")
    assert f._f_contiguous
    numpy.testing.assert_array_equal(f.get(), host)
    a = kiln.ascontiguousarray(k)
    assert a._c_contiguous and a.ndim == max(host.ndim, 1)
    numpy.testing.assert_array_equal(a.get(), numpy.ascontiguousarray(host))


def test_copy_is_independent_and_astype_copy_false_returns_self(rng):
    k, host = make(rng, "C", numpy.int32)
    assert k.astype(numpy.int32, copy=False) is k
    c = k.astype(numpy.int32)
    assert c is not k and c.data.ptr != k.data.ptr
    assert kiln.ascontiguousarray(k) is k
    numpy.testing.assert_array_equal(kiln.asarray(k, dtype=numpy.float64).get(), host.astype(numpy.float64))


def test_casting_rule_is_enforced():
    a = kiln.arange(4, dtype=kiln.float64)
    with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('float64'\\) to dtype\\('int32'\\) according to the rule 'safe'"):
        a.astype(numpy.int32, casting="safe")
    assert a.astype(numpy.float32, casting="same_kind").dtype == numpy.float32


def test_half_and_complex_are_not_yet_converted():
    with pytest.raises(NotImplementedError, match="float16"):
        kiln.zeros(3, dtype=numpy.float32).astype(numpy.float16)
    with pytest.raises(NotImplementedError, match="complex"):
        kiln.zeros(3, dtype=numpy.complex64).astype(numpy.complex128)


def test_views_out_of_bounds_are_refused():
    a = kiln.zeros(10, dtype=kiln.int32)
    with pytest.raises(ValueError, match="outside the array's memory"):
        kiln._core._as_strided(a, (11,), (4,), 0)
    with pytest.raises(ValueError, match="outside the array's memory"):
        kiln._core._as_strided(a, (2,), (-4,), 0)
