"""The scan engine (arraycore/scan.h, kiln._core._scan_rows) and
ufunc.accumulate on it, against NumPy: row lengths around the warp tile (128)
and the block tile (1024) and across two and three levels of tile totals,
many short rows, strided, negative-stride and in-place operands, integer
scans exact (wrapping included), bool and logical scans, empty operands.

Float sums are checked against an exact (long double) reference with the
bound of Note [Scan rounding] (arraycore/scan.h): prefix j within
min(j, 18 L) * u * sum_k<=j |x_k| (times 1.01 for second-order terms), L the
levels of tiles (1 up to 1024 elements, 2 up to 1024^2, 3 beyond), u the unit
roundoff of the accumulator's dtype.
"""
import math

import numpy
import pytest

import kiln
from kiln import _core
from conftest import assert_same_bits, random_array

from kiln import _ufunc_methods  # noqa: F401  (attaches the methods)

_INCLUDE = "#include <kiln/ufunc_math.h>\n"
LENGTHS = [1, 2, 31, 32, 33, 127, 128, 129, 1023, 1024, 1025, 4097]


def scan_rows(x, out, ufunc="add"):
    """out[r, j] = x[r, 0] op ... op x[r, j] through the engine directly."""
    _core._scan_rows(x, out, "test_scan_%s_%s" % (ufunc, out.dtype.name), "kiln::ufn::%s(a, b)" % ufunc,
                     _INCLUDE, _core._EXACT_FP_OPTIONS)
    return out


def levels(n):
    return 1 if n <= 1024 else 1 + levels(-(-n // 1024))


def check_float_sum(x, got):
    """got (rows of float prefix sums of x) within Note [Scan rounding]'s bound."""
    n = x.shape[-1]
    exact = numpy.cumsum(x.astype(numpy.longdouble), axis=-1)
    mag = numpy.cumsum(numpy.abs(x).astype(numpy.longdouble), axis=-1)
    depth = numpy.minimum(numpy.arange(n), 18 * levels(n)).astype(numpy.longdouble)
    u = numpy.finfo(got.dtype).eps / 2
    err = numpy.abs(got.astype(numpy.longdouble) - exact)
    bound = 1.01 * depth * u * mag
    assert numpy.all(err <= bound), (err.max(), bound.max())


@pytest.mark.parametrize("n", LENGTHS)
def test_lengths_int_exact(rng, n):
    x = random_array(rng, (3, n), numpy.int64)
    for uf in ("add", "maximum", "bitwise_xor", "multiply"):
        got = getattr(kiln, uf).accumulate(kiln.asarray(x), axis=1).get()
        assert_same_bits(got, getattr(numpy, uf).accumulate(x, axis=1))


@pytest.mark.parametrize("n", LENGTHS)
def test_lengths_float32(rng, n):
    x = rng.standard_normal((2, n)).astype(numpy.float32)
    got = kiln.add.accumulate(kiln.asarray(x), axis=1).get()
    assert got.dtype == numpy.float32
    check_float_sum(x, got)


@pytest.mark.parametrize("n", [1_000_000, 1024 * 1024 + 1])
def test_long_rows(rng, n):
    # Two levels of tiles (1e6), three (1024^2 + 1: 1025 tile totals).
    x = rng.integers(-1000, 1000, size=n).astype(numpy.int32)
    k = kiln.asarray(x)
    assert_same_bits(kiln.add.accumulate(k).get(), numpy.add.accumulate(x))
    assert_same_bits(kiln.add.accumulate(k, dtype=numpy.int32).get(), numpy.add.accumulate(x, dtype=numpy.int32))
    f = rng.standard_normal(n).astype(numpy.float32)
    check_float_sum(f[None], kiln.add.accumulate(kiln.asarray(f)).get()[None])


@pytest.mark.parametrize("shape", [(1000, 5), (37, 129), (9, 3), (300, 1), (5, 1100)])
def test_many_rows(rng, shape):
    x = random_array(rng, shape, numpy.int16)
    for axis in (0, 1):
        for uf in ("add", "minimum", "bitwise_or"):
            kf, nf = getattr(kiln, uf), getattr(numpy, uf)
            assert_same_bits(kf.accumulate(kiln.asarray(x), axis=axis).get(), nf.accumulate(x, axis=axis))


def test_wrapping(rng):
    x = rng.integers(0, 127, size=(4, 3000)).astype(numpy.int8)
    for dtype in (numpy.int8, numpy.uint8, numpy.int16):
        for uf in ("add", "multiply"):
            got = getattr(kiln, uf).accumulate(kiln.asarray(x), axis=1, dtype=dtype).get()
            assert_same_bits(got, getattr(numpy, uf).accumulate(x, axis=1, dtype=dtype))
    u = numpy.full(2000, numpy.iinfo(numpy.uint64).max - 3, dtype=numpy.uint64)
    assert_same_bits(kiln.add.accumulate(kiln.asarray(u)).get(), numpy.add.accumulate(u))


@pytest.mark.parametrize("n", [1, 40, 1030])
def test_strided_and_negative_strides(rng, n):
    base = random_array(rng, (6, 2 * n), numpy.int32)
    x = base[::2, ::2]
    k = kiln.asarray(base)[::2, ::2]
    out = kiln.zeros((3, 3 * n), numpy.int64)[:, ::3]
    scan_rows(k, out)
    assert_same_bits(out.get(), numpy.cumsum(x, axis=1, dtype=numpy.int64))
    # Negative strides on both operands, and a conversion on load (int32 -> int64).
    out = kiln.zeros((3, n), numpy.int64)[::-1, ::-1]
    scan_rows(kiln.asarray(base)[::-2, ::-2], out)
    assert_same_bits(out.get(), numpy.cumsum(base[::-2, ::-2], axis=1, dtype=numpy.int64))
    # Through accumulate, with the scanned axis first and reversed.
    y = base[::-1, ::-1]
    assert_same_bits(kiln.add.accumulate(kiln.asarray(base)[::-1, ::-1], axis=0).get(),
                     numpy.add.accumulate(y, axis=0))


def test_in_place(rng):
    x = random_array(rng, (4, 2500), numpy.int64)
    k = kiln.asarray(x)
    scan_rows(k, k)
    assert_same_bits(k.get(), numpy.cumsum(x, axis=1))


def test_float32_against_float64(rng):
    # A float32 scan within the bound of the float64 (NumPy) one.
    x = rng.uniform(-1, 1, size=(3, 5000)).astype(numpy.float32)
    got = kiln.add.accumulate(kiln.asarray(x), axis=1).get()
    ref = numpy.add.accumulate(x.astype(numpy.float64), axis=1)
    mag = numpy.cumsum(numpy.abs(x.astype(numpy.float64)), axis=1)
    depth = numpy.minimum(numpy.arange(5000), 18 * levels(5000))
    u = numpy.finfo(numpy.float32).eps / 2
    assert numpy.all(numpy.abs(got - ref) <= 1.01 * depth * u * mag + 5000 * 2.0 ** -53 * mag)


@pytest.mark.parametrize("n", [3, 129, 1500])
def test_bool_and_logical(rng, n):
    x = rng.integers(0, 2, size=(4, n)).astype(bool)
    x[1] = True
    x[2, n // 2:] = False
    k = kiln.asarray(x)
    for uf in ("logical_and", "logical_or", "logical_xor", "maximum", "minimum", "bitwise_xor", "add"):
        kf, nf = getattr(kiln, uf), getattr(numpy, uf)
        assert_same_bits(kf.accumulate(k, axis=1).get(), nf.accumulate(x, axis=1))
    out = kiln.zeros((4, n), numpy.bool_)
    scan_rows(k, out, "logical_or")
    assert_same_bits(out.get(), numpy.logical_or.accumulate(x, axis=1))
    # int8 -> bool conversion on load (nonzero is True).
    i = rng.integers(-2, 3, size=(4, n)).astype(numpy.int8)
    scan_rows(kiln.asarray(i), out, "logical_and")
    assert_same_bits(out.get(), numpy.logical_and.accumulate(i.astype(bool), axis=1))


def test_nan_order_and_complex(rng):
    x = rng.standard_normal((2, 2000))
    x[0, 700] = numpy.nan
    x[1, 1500] = -numpy.nan
    for uf in ("maximum", "minimum", "fmax", "fmin"):
        assert_same_bits(getattr(kiln, uf).accumulate(kiln.asarray(x), axis=1).get(),
                         getattr(numpy, uf).accumulate(x, axis=1))
    c = (rng.integers(-50, 50, size=(3, 1300)) + 1j * rng.integers(-50, 50, size=(3, 1300))).astype(numpy.complex64)
    assert_same_bits(kiln.add.accumulate(kiln.asarray(c), axis=1).get(), numpy.add.accumulate(c, axis=1))


def test_empty_and_errors():
    for shape in [(0, 5), (5, 0), (0, 0)]:
        x = numpy.ones(shape, numpy.float32)
        for axis in (0, 1):
            got = kiln.add.accumulate(kiln.asarray(x), axis=axis).get()
            assert_same_bits(got, numpy.add.accumulate(x, axis=axis))
    scan_rows(kiln.zeros((0, 3), numpy.int64), kiln.zeros((0, 3), numpy.int64))
    with pytest.raises(ValueError, match="2-D arrays of one shape"):
        _core._scan_rows(kiln.zeros((2, 3), numpy.int64), kiln.zeros((3, 2), numpy.int64), "t", "a", "")
    with pytest.raises(ValueError, match="2-D arrays of one shape"):
        _core._scan_rows(kiln.zeros(6, numpy.int64), kiln.zeros(6, numpy.int64), "t", "a", "")


def test_sequential_ufuncs_keep_numpy_order(rng):
    x = random_array(rng, (3, 300), numpy.float64)
    for uf in ("subtract", "divide"):
        assert_same_bits(getattr(kiln, uf).accumulate(kiln.asarray(x), axis=1).get(),
                         getattr(numpy, uf).accumulate(x, axis=1))


def test_three_dims_every_axis(rng):
    # axis -1 (and 0 of a C array's transpose) scan in place in the result's
    # layout; axis 1 of 3 takes the copy into (m, n) rows.
    x = random_array(rng, (3, 4, 300), numpy.int32)
    for k, h in ((kiln.asarray(x), x), (kiln.asarray(x)[:, ::-1, ::2], x[:, ::-1, ::2]),
                 (kiln.asarray(x).transpose(2, 0, 1), x.transpose(2, 0, 1))):
        for axis in (0, 1, 2, -1):
            for uf in ("add", "maximum"):
                got = getattr(kiln, uf).accumulate(k, axis=axis)
                assert got.flags.c_contiguous
                assert_same_bits(got.get(), getattr(numpy, uf).accumulate(h, axis=axis))
            f = k.astype(numpy.float32)
            assert_same_bits(kiln.add.accumulate(f, axis=axis, dtype=numpy.int32).get(),
                             numpy.add.accumulate(h.astype(numpy.float32), axis=axis, dtype=numpy.int32))
