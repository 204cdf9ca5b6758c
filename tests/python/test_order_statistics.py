"""kiln.median, percentile, quantile and their nan* versions against NumPy:
results compared bit for bit (Note [Order statistics]: the same operations
in the same dtypes as NumPy), result dtypes for every q kind (Python scalar,
list, float32 array), axes (None, ints, tuples, negative), keepdims, out=,
layouts, NaNs, errors."""
import warnings

import numpy
import pytest

import kiln
from conftest import LAYOUTS, make, name

AxisError = numpy.exceptions.AxisError
METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased", "normal_unbiased"]
REAL = [numpy.int8, numpy.uint16, numpy.int64, numpy.float16, numpy.float32, numpy.float64]


def data(rng, shape, dtype, nans=True):
    x = (rng.standard_normal(shape) * 40).astype(dtype) if numpy.dtype(dtype).kind == "f" \
        else rng.integers(-50 if numpy.dtype(dtype).kind == "i" else 0, 50, shape).astype(dtype)
    if nans and x.dtype.kind == "f":
        x.reshape(-1)[3::11] = numpy.nan
    return x


def same(got, expected):
    got = got.get() if isinstance(got, kiln.ndarray) else got
    expected = numpy.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, expected.dtype, got.shape)
    numpy.testing.assert_array_equal(got, expected)   # NaN matches NaN


@pytest.mark.parametrize("dtype", REAL, ids=name)
@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods_and_q_kinds(rng, dtype, method):
    x = data(rng, (5, 6, 7), dtype)
    k = kiln.asarray(x)
    for q in (0.3, 1, [0.0, 0.25, 0.5, 0.9, 1.0], numpy.array([0.1, 0.75], numpy.float32)):
        for axis in (None, 1, (0, 2)):
            same(kiln.quantile(k, q, axis=axis, method=method), numpy.quantile(x, q, axis=axis, method=method))
            same(kiln.nanquantile(k, q, axis=axis, method=method), numpy.nanquantile(x, q, axis=axis, method=method))
    same(kiln.percentile(k, 37.5, axis=-1, method=method), numpy.percentile(x, 37.5, axis=-1, method=method))
    same(kiln.nanpercentile(k, [5, 95], axis=0, method=method), numpy.nanpercentile(x, [5, 95], axis=0, method=method))


@pytest.mark.parametrize("dtype", REAL + [numpy.complex64], ids=name)
def test_median(rng, dtype):
    x = data(rng, (4, 6, 5), dtype, nans=numpy.dtype(dtype).kind != "c")
    if x.dtype.kind == "c":
        x = x + 1j * data(rng, x.shape, numpy.float32, nans=False)
    k = kiln.asarray(x)
    for axis in (None, 0, 1, -1, (0, 2)):
        same(kiln.median(k, axis=axis), numpy.median(x, axis=axis))
        if x.dtype.kind != "c":
            same(kiln.nanmedian(k, axis=axis), numpy.nanmedian(x, axis=axis))
        same(kiln.median(k, axis=axis, keepdims=True), numpy.median(x, axis=axis, keepdims=True))


@pytest.mark.parametrize("layout", LAYOUTS[:4])
def test_layouts(rng, layout):
    k, x = make(rng, layout, numpy.float32)
    same(kiln.median(k, axis=0), numpy.median(x, axis=0))
    same(kiln.quantile(k, [0.2, 0.8], axis=1, keepdims=True), numpy.quantile(x, [0.2, 0.8], axis=1, keepdims=True))


def test_all_nan_rows_and_out(rng):
    x = numpy.array([[numpy.nan, numpy.nan, numpy.nan], [1.0, numpy.nan, 3.0]])
    k = kiln.asarray(x)
    with numpy.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = numpy.nanmedian(x, axis=1)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        same(kiln.nanmedian(k, axis=1), expected)
    for fn, q in ((kiln.nanquantile, 0.3), (kiln.nanpercentile, [10, 90])):
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            got = fn(k, q, axis=1, method="hazen")
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            same(got, getattr(numpy, fn.__name__)(x, q, axis=1, method="hazen"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no warning where every row has a number
        same(kiln.nanmedian(k[1:], axis=1), numpy.nanmedian(x[1:], axis=1))
        same(kiln.nanquantile(k[1:], 0.5, axis=1), numpy.nanquantile(x[1:], 0.5, axis=1))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = kiln.median(kiln.zeros((2, 0)), axis=1)
    with numpy.errstate(all="ignore"), pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        same(got, numpy.median(numpy.zeros((2, 0)), axis=1))
    same(kiln.median(k, axis=1), numpy.median(x, axis=1))
    out = kiln.empty((2,), numpy.float64)
    assert kiln.quantile(k, 0.5, axis=1, out=out) is out
    same(out, numpy.quantile(x, 0.5, axis=1))
    out32 = kiln.empty((3,), numpy.float32)
    kiln.percentile(k, 50, axis=0, out=out32)
    same(out32, numpy.percentile(x, 50, axis=0).astype(numpy.float32))


def test_errors():
    k = kiln.asarray(numpy.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        kiln.quantile(k, 1.5)
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        kiln.percentile(k, [10, 101])
    with pytest.raises(ValueError, match="is not a valid method"):
        kiln.quantile(k, 0.5, method="bogus")
    with pytest.raises(TypeError, match="array of real numbers"):
        kiln.quantile(kiln.zeros(3, numpy.complex64), 0.5)
    with pytest.raises(AxisError):
        kiln.median(k, axis=2)
    with pytest.raises(AxisError):
        kiln.quantile(k, 0.5, axis=(0, -3))
    with pytest.raises(ValueError, match="repeated axis"):
        kiln.median(k, axis=(0, 0))
    with pytest.raises(TypeError, match="boolean subtract"):
        kiln.quantile(kiln.zeros(3, numpy.bool_), 0.5)


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64], ids=name)
def test_interpolation_across_the_integer_range(dtype):
    # Elements a and b from both ends of the range: b - a wraps in NumPy's
    # integer arithmetic, and kiln's (unsigned, so no C++ overflow) wraps alike.
    info = numpy.iinfo(dtype)
    x = numpy.array([info.min + 5, info.max - 3, 0, info.min, info.max], dtype=dtype)
    for method in ("linear", "midpoint", "hazen", "averaged_inverted_cdf"):
        same(kiln.percentile(kiln.asarray(x), [10, 40, 60, 75, 99], method=method),
             numpy.percentile(x, [10, 40, 60, 75, 99], method=method))
