"""kiln.median, percentile, quantile and their nan* versions against NumPy:
results compared bit for bit (Note [Order statistics]: the same operations
in the same dtypes as NumPy), result dtypes for every q kind (Python scalar,
list, float32 array), axes (None, ints, tuples, negative), keepdims, out=,
layouts, NaNs, errors."""
import re
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
    with pytest.raises(ValueError, match="q must be a scalar or 1d"):   # NumPy's limit: 2-d q is fine
        kiln.percentile(k, numpy.full((1, 2, 3), 50), axis=-1)
    assert kiln.quantile(k, numpy.full((2, 2), 0.5), axis=-1).shape == (2, 2, 2)
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


def test_complex_median_sees_nans_as_numpy():
    host = numpy.array([[1, numpy.nan, 3, 4], [5, 6, 7, 8], [2, 9, complex(1, numpy.nan), 0]]) + 0j
    k = kiln.asarray(host)
    for axis in (None, 0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for kiln_fn, numpy_fn in ((kiln.median, numpy.median), (kiln.nanmedian, numpy.nanmedian)):
                got, want = kiln_fn(k, axis=axis).get(), numpy_fn(host, axis=axis)
                numpy.testing.assert_array_equal(numpy.atleast_1d(got).view(numpy.float64),
                                                 numpy.atleast_1d(want).view(numpy.float64))   # each part


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64], ids=name)
def test_interpolation_across_the_integer_range(dtype):
    # Elements a and b from both ends of the range: b - a wraps in NumPy's
    # integer arithmetic, and kiln's (unsigned, so no C++ overflow) wraps alike.
    info = numpy.iinfo(dtype)
    x = numpy.array([info.min + 5, info.max - 3, 0, info.min, info.max], dtype=dtype)
    for method in ("linear", "midpoint", "hazen", "averaged_inverted_cdf"):
        same(kiln.percentile(kiln.asarray(x), [10, 40, 60, 75, 99], method=method),
             numpy.percentile(x, [10, 40, 60, 75, 99], method=method))


# Weighted quantiles (method='inverted_cdf' only, Note [Weighted quantiles]).
IC = {"method": "inverted_cdf"}
WEIGHTED = [numpy.int8, numpy.int64, numpy.float32, numpy.float64]


def tied_data(rng, shape, dtype):
    """Few distinct values (ties), every 11th element NaN for floats."""
    x = rng.integers(-4, 5, shape).astype(dtype)
    if x.dtype.kind == "f":
        x.reshape(-1)[3::11] = numpy.nan
    return x


def weights_of(rng, shape, kind):
    """Non-negative weights: small integers (zeros and ties), floats with
    zeros, or tenths (whose sums round: their order matters)."""
    if kind == "int":
        return rng.integers(0, 4, shape)
    if kind == "float":
        w = rng.random(shape)
        w[rng.random(shape) < 0.2] = 0
        return w
    return numpy.full(shape, 0.1)


def same_or_same_error(kiln_call, numpy_call):
    """kiln's result bit for bit, or NumPy's exception type and message;
    True when there was a result."""
    try:
        expected = numpy_call()
    except Exception as e:   # noqa: BLE001 - whatever NumPy raises, kiln must raise too
        with pytest.raises(type(e), match="^%s$" % re.escape(str(e))):
            kiln_call()
        return False
    same(kiln_call(), expected)
    return True


@pytest.mark.parametrize("dtype", WEIGHTED, ids=name)
@pytest.mark.parametrize("kind", ["int", "float", "tenths"])
def test_weighted_quantiles(rng, dtype, kind):
    x = tied_data(rng, (5, 6, 7), dtype)
    k = kiln.asarray(x)
    w = weights_of(rng, x.shape, kind)
    kw = kiln.asarray(w)
    results = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # All-NaN slices: tested below
        for q in (0.3, 0, 1, [0.0, 0.1, 0.25, 0.5, 0.9, 1.0], numpy.array([0.1, 0.3, 0.75], numpy.float32)):
            for axis in (None, 1, -1, (0, 2)):
                for np_fn, kiln_fn in ((numpy.quantile, kiln.quantile), (numpy.nanquantile, kiln.nanquantile)):
                    results += same_or_same_error(lambda: kiln_fn(k, q, axis=axis, weights=kw, **IC),
                                                  lambda: np_fn(x, q, axis=axis, weights=w, **IC))
                if isinstance(axis, int):   # 1-d weights along the axis (host weights here)
                    w1 = weights_of(rng, (x.shape[axis],), kind)
                    results += same_or_same_error(lambda: kiln.quantile(k, q, axis=axis, weights=w1, **IC),
                                                  lambda: numpy.quantile(x, q, axis=axis, weights=w1, **IC))
        for axis in (0, (1, 2)):
            results += same_or_same_error(
                lambda: kiln.percentile(k, [5, 50, 95], axis=axis, weights=kw, keepdims=True, **IC),
                lambda: numpy.percentile(x, [5, 50, 95], axis=axis, weights=w, keepdims=True, **IC))
            results += same_or_same_error(
                lambda: kiln.nanpercentile(k, 37.5, axis=axis, weights=kw, keepdims=True, **IC),
                lambda: numpy.nanpercentile(x, 37.5, axis=axis, weights=w, keepdims=True, **IC))
    assert results >= 45   # of 54: a row left without weight raises (compared above), but few are


def test_weighted_nan_rows():
    # NaN elements are ignored with their weights by the nan* versions (a
    # NaN's weight may then be anything non-negative, NaN included); a NaN
    # makes the plain versions' result NaN.
    y = numpy.array([1.0, numpy.nan, 3.0, 2.0])
    k = kiln.asarray(y)
    q = [0.0, 0.5, 1.0]
    for w, expected in (([1, 1, 1, 1], [1.0, 2.0, 3.0]), ([1, 5, 1, 0], [1.0, 1.0, 3.0]),
                        ([0, numpy.nan, 1, 0], [3.0, 3.0, 3.0])):
        expected = numpy.array(expected)
        same(numpy.nanquantile(y, q, weights=w, **IC), expected)   # the rule, as NumPy has it
        same(kiln.nanquantile(k, q, weights=kiln.asarray(numpy.array(w, float)), **IC), expected)
        same(kiln.nanpercentile(k, [0, 50, 100], weights=w, **IC), expected)
        if not numpy.isnan(w).any():   # (the plain versions count a NaN weight: ValueError, tested below)
            same(numpy.quantile(y, q, weights=w, **IC), numpy.full(3, numpy.nan))
            same(kiln.quantile(k, q, weights=w, **IC), numpy.full(3, numpy.nan))
    # an all-NaN row: NaN and NumPy's warning, its (zero) weights not checked
    z = numpy.array([[numpy.nan, numpy.nan, numpy.nan], [1.0, numpy.nan, 2.0]])
    wz = numpy.array([[0, 0, 0], [0, 1, 1]])
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        expected = numpy.nanquantile(z, [0.0, 0.5], axis=1, weights=wz, **IC)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        same(kiln.nanquantile(kiln.asarray(z), [0.0, 0.5], axis=1, weights=wz, **IC), expected)
    same(expected, [[numpy.nan, 2.0], [numpy.nan, 2.0]])
    # 1-d weights of a 2-d array: NumPy 2.4's nan* versions raise IndexError
    # there (a NumPy bug); kiln reads them as the weights broadcast along axis.
    z = numpy.array([[4.0, numpy.nan, 1.0, 2.0], [numpy.nan, 3.0, 0.0, 5.0], [7.0, 6.0, 1.0, numpy.nan]])
    w1 = numpy.array([1, 2, 0, 3])
    for axis in (1, -1):
        same(kiln.nanquantile(kiln.asarray(z), [0.2, 0.6], axis=axis, weights=w1, **IC),
             numpy.nanquantile(z, [0.2, 0.6], axis=axis, weights=numpy.broadcast_to(w1, z.shape), **IC))
    w0 = numpy.array([2.5, 0.0, 1.0])
    same(kiln.nanpercentile(kiln.asarray(z), 40, axis=0, weights=w0, **IC),
         numpy.nanpercentile(z, 40, axis=0, weights=numpy.broadcast_to(w0[:, None], z.shape), **IC))


def test_weighted_edges():
    x = numpy.arange(10.0)
    k = kiln.asarray(x)
    lead = numpy.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1.0])
    cases = [  # (q, weights, NumPy's answer)
        (0.0, lead, 2.0),                              # q = 0 skips leading zero weights
        (0, lead, 2.0),
        ([0, 1], lead, [2.0, 9.0]),                    # integer q
        (1.0, lead[::-1], 7.0),                        # q = 1 stops before trailing zero weights
        (0.5, numpy.ones(10), 4.0),                    # cumulative weight exactly q times the total
        (numpy.float32(0.1), numpy.ones(10), 0.0),     # cumulative / total cast to q's dtype ...
        (0.1, numpy.ones(10), 0.0),
        (float(numpy.float32(0.1)), numpy.ones(10), 1.0),   # ... and compared in float64
        (numpy.array([0.3, 0.7], numpy.float16), numpy.ones(10), [2.0, 6.0]),
        (numpy.float64(numpy.float16(0.3)), numpy.ones(10), 3.0),
        (numpy.float32(0), numpy.array([1e-320] + [1.0] * 9), 1.0),   # 1e-320 / 10 is 0 in float32
        (0.0, numpy.array([1e-320] + [1.0] * 9), 0.0),
        ([0.3, 0.6, 0.9], numpy.full(10, 0.1), [2.0, 5.0, 8.0]),  # float64 sums of tenths, in order
    ]
    for q, w, expected in cases:
        expected = numpy.asarray(expected)
        same(numpy.quantile(x, q, weights=w, **IC), expected)
        same(kiln.quantile(k, q, weights=w, **IC), expected)
        same(kiln.quantile(k, q, weights=kiln.asarray(w), **IC), expected)
    # ties: the sort is stable, so of 0.0 and -0.0 the first in a's order
    zeros = numpy.array([0.0, -0.0, -0.0])
    got = kiln.quantile(kiln.asarray(zeros), [0.2, 0.5, 0.9], weights=[1, 1, 1], **IC).get()
    assert numpy.signbit(got).tolist() == [False, True, True]
    # a 0-d array, bool data and bool weights, and out=
    same(kiln.quantile(kiln.asarray(5.0), 0.5, weights=2.0, **IC), numpy.quantile(5.0, 0.5, weights=2.0, **IC))
    b = numpy.array([True, False, True, False])
    same(kiln.quantile(kiln.asarray(b), [0.3, 0.7], weights=[1, 2, 0, 1], **IC),
         numpy.quantile(b, [0.3, 0.7], weights=[1, 2, 0, 1], **IC))
    same(kiln.quantile(kiln.asarray([1, 2, 3]), 0.5, weights=numpy.array([True, False, True]), **IC),
         numpy.quantile([1, 2, 3], 0.5, weights=numpy.array([True, False, True]), **IC))
    a = numpy.array([[3.0, 1.0, 2.0, 5.0], [4.0, 4.0, 0.0, 7.0]])
    out = kiln.empty((2,), numpy.float32)
    assert kiln.quantile(kiln.asarray(a), 0.5, axis=1, weights=[1, 2, 0, 1], out=out, **IC) is out
    same(out, numpy.quantile(a, 0.5, axis=1, weights=[1, 2, 0, 1], **IC).astype(numpy.float32))
    same(kiln.quantile(kiln.zeros((0, 3)), 0.5, axis=1, weights=[1, 1, 1], **IC),
         numpy.quantile(numpy.zeros((0, 3)), 0.5, axis=1, weights=[1, 1, 1], **IC))


def test_weighted_errors():
    a = numpy.arange(8.0).reshape(2, 4)
    k = kiln.asarray(a)
    only = "Only method 'inverted_cdf' supports weights. Got: %s."
    cases = [  # (function name, q, keywords, exception, message)
        ("quantile", 0.5, {"axis": 1, "weights": [1, 1, 1, 1]}, ValueError, only % "linear"),
        ("percentile", 50, {"axis": 1, "weights": [1, 1, 1, 1], "method": "lower"}, ValueError, only % "lower"),
        ("nanquantile", 0.5, {"axis": 1, "weights": [1, 1, 1, 1], "method": "hazen"}, ValueError, only % "hazen"),
        ("nanpercentile", 50, {"axis": 1, "weights": [1, 1, 1, 1], "method": "bogus"}, ValueError, only % "bogus"),
        ("quantile", 1.5, {"axis": 1, "weights": [1, 1, 1, 1], "method": "linear"}, ValueError,
         "Quantiles must be in the range [0, 1]"),
        ("quantile", 0.5, {"weights": [1, 1, 1, 1], **IC}, TypeError,
         "Axis must be specified when shapes of a and weights differ."),
        ("quantile", 0.5, {"axis": 1, "weights": [1, 1, 1], **IC}, ValueError,
         "Shape of weights must be consistent with shape of a along specified axis."),
        ("quantile", 0.5, {"axis": 1, "weights": [[1, 1, 1, 1]], **IC}, ValueError,
         "Shape of weights must be consistent with shape of a along specified axis."),
        ("quantile", 0.5, {"axis": (0, 1), "weights": numpy.ones(8), **IC}, ValueError,
         "Shape of weights must be consistent with shape of a along specified axis."),
        ("quantile", 0.5, {"axis": 0, "weights": numpy.ones((2, 4, 1)), **IC}, ValueError,
         "Shape of weights must be consistent with shape of a along specified axis."),
        ("quantile", 0.5, {"axis": 1, "weights": [[1, 1, 1, 1], [1, -1, 1, 1]], **IC}, ValueError,
         "Weights must be non-negative."),
        ("quantile", 0.5, {"axis": 1, "weights": -numpy.ones(3), **IC}, ValueError,
         "Shape of weights must be consistent with shape of a along specified axis."),
        ("quantile", 0.5, {"axis": 1, "weights": [[1, 1, 1, 1], [0, 0, 0, 0]], **IC}, ValueError,
         "Weights included NaN, inf or were all zero."),
        ("nanquantile", 0.5, {"axis": 1, "weights": [1, numpy.nan, 1, 1], **IC}, ValueError,
         "Weights included NaN, inf or were all zero."),
        ("quantile", 0.5, {"axis": 0, "weights": [numpy.inf, 1], **IC}, ValueError,
         "Weights included NaN, inf or were all zero."),
        ("quantile", 0.5, {"axis": 0, "weights": [1e308, 1e308], **IC}, ValueError,   # the sum overflows
         "Weights included NaN, inf or were all zero."),
    ]
    for fn, q, kw, exc, message in cases:
        for mod, arr in ((numpy, a), (kiln, k)):
            with numpy.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                with pytest.raises(exc, match="^%s$" % re.escape(message)):
                    getattr(mod, fn)(arr, q, **kw)
    with pytest.raises(AxisError):
        kiln.quantile(k, 0.5, axis=2, weights=[1, 1, 1, 1], **IC)
    with pytest.raises(TypeError, match="array of real numbers"):
        kiln.quantile(kiln.zeros(3, numpy.complex64), 0.5, weights=[1, 1, 1], **IC)
    # the nan* versions check every weight's sign, a NaN's too, and only the
    # weights of the elements they use for zero totals
    y = numpy.array([1.0, numpy.nan, 3.0, 2.0])
    with pytest.raises(ValueError, match="Weights must be non-negative."):
        kiln.nanquantile(kiln.asarray(y), 0.5, weights=[0, -1, 1, 0], **IC)
    with pytest.raises(ValueError, match="Weights included NaN, inf or were all zero."):
        kiln.nanquantile(kiln.asarray(y), 0.5, weights=[0, 5, 0, 0], **IC)
    with pytest.raises(ValueError, match="Weights included NaN, inf or were all zero."):
        kiln.quantile(kiln.asarray(y), 0.5, weights=[0, numpy.nan, 1, 0], **IC)
    with pytest.raises(ValueError, match="Weights must be non-negative."):
        kiln.quantile(kiln.zeros((0, 3)), 0.5, axis=1, weights=[1, -1, 1], **IC)


def test_nan_functions_of_empty_arrays():
    # NumPy's nanquantile/nanpercentile answer an empty array with nanmean's
    # result: NaN per kept position, q's shape dropped, "Mean of empty slice";
    # quantile raises.
    for x, fn, q, kwargs in ((numpy.zeros((2, 0)), "nanquantile", 0.5, {"axis": 1}),
                             (numpy.zeros((2, 0)), "nanpercentile", [10, 90], {"axis": 1, "keepdims": True}),
                             (numpy.zeros((0, 3), numpy.float32), "nanquantile", [0.1], {"axis": 0}),
                             (numpy.zeros((2, 0), numpy.int64), "nanquantile", 0.5, {"axis": 1})):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            got = getattr(kiln, fn)(kiln.asarray(x), q, **kwargs)
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            same(got, getattr(numpy, fn)(x, q, **kwargs))
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with size 0"):
        kiln.quantile(kiln.zeros((2, 0)), 0.5, axis=1)


def test_q_kinds_and_arguments(rng):
    # q in float16 and float32 (percentile divides by 100 in q's dtype), as
    # a kiln array, a NumPy scalar; axis as a list; interpolation=, the
    # deprecated name of method=.
    x = data(rng, (4, 9), numpy.float64)
    k = kiln.asarray(x)
    for q in (numpy.array([3.0, 33.0, 97.5], numpy.float16), numpy.array([12.5, 70.0], numpy.float32),
              numpy.float32(41.0), numpy.array([[5, 50], [95, 100]]), True):
        same(kiln.percentile(k, q, axis=1), numpy.percentile(x, q, axis=1))
        same(kiln.nanpercentile(k, q, axis=0, method="weibull"), numpy.nanpercentile(x, q, axis=0, method="weibull"))
    q = numpy.array([0.1, 0.5, 0.95], numpy.float16)
    same(kiln.quantile(k, kiln.asarray(q), axis=1), numpy.quantile(x, q, axis=1))
    same(kiln.nanquantile(k, q, axis=[0, 1], method="hazen"), numpy.nanquantile(x, q, axis=(0, 1), method="hazen"))
    same(kiln.nanmedian(k, axis=[1]), numpy.nanmedian(x, axis=1))
    same(kiln.quantile(k, 0.4, axis=1, interpolation="nearest"), numpy.quantile(x, 0.4, axis=1, method="nearest"))
    with pytest.raises(TypeError, match="You shall not pass both"):
        kiln.quantile(k, 0.4, method="lower", interpolation="nearest")
    with pytest.raises(ValueError, match=r"^5 is not a valid method. Use one of: \('inverted_cdf', "):
        kiln.quantile(k, 0.5, method=5)
    with pytest.raises(ValueError, match="repeated axis in `axis` argument"):
        kiln.quantile(k, 0.5, axis=(1, -1))


def test_out_broadcasts_and_casts(rng):
    # out= takes the result as numpy.copyto does: broadcast to out's shape,
    # leading ones dropped, complex to real with NumPy's ComplexWarning.
    x = data(rng, (3, 5), numpy.float32, nans=False)
    k = kiln.asarray(x)
    out = kiln.empty((2, 3), numpy.float64)
    assert kiln.median(k, axis=1, out=out) is out
    same(out, numpy.broadcast_to(numpy.median(x, axis=1).astype(numpy.float64), (2, 3)))
    out = kiln.empty((3,), numpy.float32)
    assert kiln.quantile(k, [0.5], axis=1, out=out) is out
    same(out, numpy.quantile(x, [0.5], axis=1)[0].astype(numpy.float32))
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) into shape \(4,\)"):
        kiln.median(k, axis=1, out=kiln.empty((4,), numpy.float32))
    c = x + 1j * x[::-1]
    out = kiln.empty((5,), numpy.float32)
    with pytest.warns(numpy.exceptions.ComplexWarning):
        kiln.median(kiln.asarray(c.astype(numpy.complex64)), axis=0, out=out)
    same(out, numpy.median(c.astype(numpy.complex64), axis=0).real)


@pytest.mark.parametrize("fn, q", [("median", None), ("quantile", [0.2, 0.7]), ("percentile", 40.0),
                                   ("nanquantile", 0.5), ("nanmedian", None)])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_overwrite_input(rng, fn, q, axis):
    """overwrite_input=True lets the function change a (NumPy partitions it in
    place; kiln leaves the reduced axes sorted): the result is unchanged, and
    each reduced row of a holds the same values, sorted."""
    x = rng.standard_normal((4, 5, 6)).astype(numpy.float32)
    args = () if q is None else (q,)
    want = getattr(numpy, fn)(x[:, ::-1].copy(), *args, axis=axis)
    k = kiln.asarray(x)[:, ::-1]           # a view (negative strides): written through to its base
    base = k.base
    got = getattr(kiln, fn)(k, *args, axis=axis, overwrite_input=True)
    numpy.testing.assert_allclose(got.get(), want, rtol=1e-6)
    axes = tuple(range(3)) if axis is None else (axis,) if isinstance(axis, int) else axis
    kept = [d for d in range(3) if d not in axes]
    rows = numpy.transpose(x[:, ::-1], kept + list(axes)).reshape(-1 if kept else 1, int(numpy.prod([x.shape[d] for d in axes])))
    now = numpy.transpose(k.get(), kept + list(axes)).reshape(rows.shape)
    numpy.testing.assert_array_equal(now, numpy.sort(rows, axis=1))
    assert not numpy.array_equal(base.get(), x)
    unchanged = kiln.asarray(x)
    getattr(kiln, fn)(unchanged, *args, axis=axis)
    numpy.testing.assert_array_equal(unchanged.get(), x)
