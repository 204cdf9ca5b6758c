"""cumsum, cumprod, nancumsum, nancumprod, cumulative_sum/prod, diff, ediff1d
and the ndarray methods against NumPy over dtypes, axes and layouts.

Integer, bool and complex-integer-valued results are exact. Float sums are
checked against an exact (long double) reference with the scan engine's
bound (Note [Scan rounding], arraycore/scan.h): prefix j within
min(j, 18) * u * sum_k<=j |x_k| (times 1.01 for second-order terms) for
these rows of at most 1024 elements, u the unit roundoff of the result
dtype. A float product of j + 1 factors is, in any bracketing, j roundings:
within ((1 + c u)^j - 1) |exact|, c = 1 for real and sqrt(5) for complex
multiplication (no FMA); the values are kept in [0.5, 2) so nothing
overflows or underflows.
"""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, assert_same_values, make, name

AxisError = numpy.exceptions.AxisError
FLOATS = [numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]


def _rows_of(v, axis):
    """v as rows along which the scan ran (one row of all elements for None)."""
    if axis is None or v.ndim == 0:
        return v.reshape(1, -1)
    v = numpy.moveaxis(v, axis, -1)
    return v.reshape(int(numpy.prod(v.shape[:-1])), v.shape[-1])


def check_scan(got, expected, x, op, axis):
    """got (kiln) against NumPy's `expected` for the scan of host x: exact
    for integers and bool, within the bounds of the module docstring for
    floats."""
    got = got.get()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind not in "fc":
        numpy.testing.assert_array_equal(got, expected)
        return
    g = _rows_of(got, axis)
    xs = _rows_of(x.astype(expected.dtype), axis)
    assert numpy.isnan(g).sum() == 0
    part = numpy.longdouble(numpy.finfo(expected.dtype).eps) / 2
    n = xs.shape[-1]
    j = numpy.arange(n, dtype=numpy.longdouble)
    wide = numpy.clongdouble if expected.dtype.kind == "c" else numpy.longdouble
    if op == "sum":
        depth = numpy.minimum(j, 18)
        for comp in ((numpy.real, numpy.imag) if expected.dtype.kind == "c" else (lambda v: v,)):
            exact = numpy.cumsum(comp(xs).astype(numpy.longdouble), axis=-1)
            mag = numpy.cumsum(numpy.abs(comp(xs)).astype(numpy.longdouble), axis=-1)
            err = numpy.abs(comp(g).astype(numpy.longdouble) - exact)
            assert numpy.all(err <= 1.01 * depth * part * mag), (err.max(), g, exact)
    else:
        c = numpy.sqrt(5) if expected.dtype.kind == "c" else 1
        exact = numpy.cumprod(xs.astype(wide), axis=-1)
        err = numpy.abs(g.astype(wide) - exact)
        assert numpy.all(err <= 1.01 * ((1 + c * part) ** j - 1) * numpy.abs(exact)), err.max()


def _product_base(rng, dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(0.5, 1.4, (6, 8)) * numpy.exp(1j * rng.uniform(0, 6.3, (6, 8)))).astype(dtype)
    if dtype.kind == "f":
        return rng.uniform(0.5, 2, (6, 8)).astype(dtype)
    return None


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cumsum_cumprod(rng, dtype, layout):
    k, h = make(rng, layout, dtype)
    for axis in [None, 0, -1] if h.ndim else [None, 0]:
        check_scan(kiln.cumsum(k, axis=axis), numpy.cumsum(h, axis=axis), h, "sum", axis)
        check_scan(k.cumsum(axis), h.cumsum(axis), h, "sum", axis)
    k, h = make(rng, layout, dtype, _product_base(rng, dtype))
    for axis in [None, 1] if h.ndim else [None]:
        check_scan(kiln.cumprod(k, axis=axis), numpy.cumprod(h, axis=axis), h, "prod", axis)
        check_scan(k.cumprod(axis=axis), h.cumprod(axis=axis), h, "prod", axis)


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint16, numpy.int32, numpy.float32], ids=name)
def test_dtype_and_out(rng, dtype):
    k, h = make(rng, "C", dtype)
    for res in [numpy.int8, numpy.float64, numpy.uint64]:
        check_scan(kiln.cumsum(k, axis=1, dtype=res), numpy.cumsum(h, axis=1, dtype=res), h.astype(res), "sum", 1)
    out = kiln.empty((6, 8), numpy.float64)
    assert kiln.cumsum(k, axis=0, out=out) is out
    check_scan(out, numpy.cumsum(h, axis=0, out=numpy.empty((6, 8))), h, "sum", 0)
    flat = kiln.empty((48,), numpy.int64)
    assert kiln.cumprod(k, out=flat) is flat
    if h.dtype.kind != "f":   # float products of many factors round differently: checked above
        assert_same_bits(flat.get(), numpy.cumprod(h, out=numpy.empty(48, numpy.int64)))


def test_3d_axes(rng):
    h = rng.integers(-50, 50, (3, 4, 5)).astype(numpy.int16)
    k = kiln.asarray(h)
    for axis in (0, 1, 2, -2):
        assert_same_bits(kiln.cumsum(k, axis).get(), numpy.cumsum(h, axis))
        assert_same_bits(kiln.cumprod(k[:, ::-1, 1::2], axis).get(), numpy.cumprod(h[:, ::-1, 1::2], axis))


def test_long_row_float32(rng):
    h = rng.standard_normal(5000).astype(numpy.float32)
    got = kiln.cumsum(kiln.asarray(h)).get()
    exact = numpy.cumsum(h.astype(numpy.longdouble))
    mag = numpy.cumsum(numpy.abs(h).astype(numpy.longdouble))
    depth = numpy.minimum(numpy.arange(h.size), 18 * 2)   # two levels of tiles
    assert numpy.all(numpy.abs(got - exact) <= 1.01 * depth * 2.0 ** -24 * mag)


@pytest.mark.parametrize("dtype", FLOATS + [numpy.int32], ids=name)
def test_nancumsum_nancumprod(rng, dtype):
    base = _product_base(rng, dtype)
    if base is not None:
        base.reshape(-1)[[0, 5, 17, 40]] = numpy.nan
        if base.dtype.kind == "c":
            base.reshape(-1)[9] = complex(1, numpy.nan)
    for layout in ["C", "negative", "0-d"]:
        k, h = make(rng, layout, dtype, base)
        for axis in [None, 0] if h.ndim else [None]:
            check_scan(kiln.nancumsum(k, axis=axis), numpy.nancumsum(h, axis=axis), numpy.where(numpy.isnan(h), 0, h),
                       "sum", axis)
            check_scan(kiln.nancumprod(k, axis=axis), numpy.nancumprod(h, axis=axis), numpy.where(numpy.isnan(h), 1, h),
                       "prod", axis)


@pytest.mark.parametrize("fn", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint32, numpy.int64], ids=name)
def test_cumulative(rng, fn, dtype):
    k, h = make(rng, "F", dtype)
    for axis in (0, 1, -1):
        for initial in (False, True):
            got = getattr(kiln, fn)(k, axis=axis, include_initial=initial)
            assert_same_bits(got.get(), getattr(numpy, fn)(h, axis=axis, include_initial=initial))
    assert_same_bits(getattr(kiln, fn)(k[0], include_initial=True, dtype=numpy.int16).get(),
                     getattr(numpy, fn)(h[0], include_initial=True, dtype=numpy.int16))
    assert_same_bits(getattr(kiln, fn)(k[0, 0]).get(), getattr(numpy, fn)(h[0, 0]))
    empty = getattr(kiln, fn)(k[:, :0], axis=1, include_initial=True)
    assert_same_bits(empty.get(), getattr(numpy, fn)(h[:, :0], axis=1, include_initial=True))
    out = kiln.empty((6, 9), numpy.int64)
    assert getattr(kiln, fn)(k, axis=1, include_initial=True, out=out) is out
    assert_same_bits(out.get(), getattr(numpy, fn)(h, axis=1, include_initial=True,
                                                   out=numpy.empty((6, 9), numpy.int64)))
    with pytest.raises(ValueError, match="``axis`` argument is required"):
        getattr(kiln, fn)(k)
    with pytest.raises(AxisError):
        getattr(kiln, fn)(k, axis=2)


def test_scan_errors():
    k = kiln.ones((2, 3))
    with pytest.raises(AxisError):
        kiln.cumsum(k, axis=2)
    with pytest.raises(AxisError):
        k.cumprod(axis=-3)
    with pytest.raises(ValueError):
        kiln.cumsum(k, axis=1, out=kiln.empty((3, 2)))
    with pytest.raises(TypeError, match="kiln.asarray"):
        kiln.cumsum(numpy.ones(3))
    with pytest.raises(TypeError):
        kiln.nancumsum([1.0, 2.0])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diff(rng, dtype, layout):
    k, h = make(rng, layout, dtype)
    if h.ndim == 0:
        with pytest.raises(ValueError, match="at least one dimensional"):
            kiln.diff(k)
        return
    for n, axis in [(1, -1), (2, 0), (3, 1), (0, 0), (9, 1)]:
        assert_same_values(kiln.diff(k, n=n, axis=axis).get(), numpy.diff(h, n=n, axis=axis))


def test_diff_prepend_append(rng):
    h = rng.integers(0, 100, (4, 5)).astype(numpy.int8)
    k = kiln.asarray(h)
    assert_same_bits(kiln.diff(k, prepend=0).get(), numpy.diff(h, prepend=0))
    assert_same_bits(kiln.diff(k, axis=0, append=2.5).get(), numpy.diff(h, axis=0, append=2.5))
    col = numpy.arange(4, dtype=numpy.int8).reshape(4, 1)
    assert_same_bits(kiln.diff(k, n=2, prepend=kiln.asarray(col), append=kiln.asarray(col)).get(),
                     numpy.diff(h, n=2, prepend=col, append=col))
    b = h > 50
    assert_same_bits(kiln.diff(kiln.asarray(b), n=2).get(), numpy.diff(b, n=2))
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        kiln.diff(k, n=-1)
    with pytest.raises(AxisError):
        kiln.diff(k, axis=2)
    with pytest.raises(ValueError):
        kiln.diff(k, prepend=kiln.zeros((3, 1)))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint8, numpy.int64, numpy.float32, numpy.complex128], ids=name)
def test_ediff1d(rng, dtype):
    for layout in ["C", "negative", "0-d", "empty"]:
        k, h = make(rng, layout, dtype)
        assert_same_values(kiln.ediff1d(k).get(), numpy.ediff1d(h))
        assert_same_values(kiln.ediff1d(k, to_begin=kiln.asarray(numpy.array(3, dtype)),
                                        to_end=kiln.asarray(numpy.array([1, 2], dtype))).get(),
                           numpy.ediff1d(h, to_begin=numpy.array(3, dtype), to_end=numpy.array([1, 2], dtype)))
    k, h = make(rng, "C", dtype)
    if dtype == numpy.int8:
        assert_same_bits(kiln.ediff1d(k, to_begin=300).get(), numpy.ediff1d(h, to_begin=300))
        with pytest.raises(TypeError, match="same_kind"):
            kiln.ediff1d(k, to_end=1.5)
    with pytest.raises(TypeError):
        kiln.ediff1d(kiln.asarray(numpy.array([True, False])))
