"""bincount, histogram and histogram2d against NumPy.

Counts are exact. Weights are integer-valued floats (or integers, or
complex with integer-valued parts), so every weight sum is exact whatever
the order of the atomic adds (Note [Atomic bin sums] in
pyfrontend/kiln/_counting.py) and must equal NumPy's bit for bit; two tests
take random float (complex) weights and check each bin's sum (each part's)
against the bound of that Note (assert_within_atomic_sum_bound). Bin
placement is checked with values on and next to the bin edges (Note
[Histogram edges]), NaNs and values outside the range. The
bin-width estimators ('auto', 'fd', ...) are compared with NumPy's on
random, skewed, narrow-integer and all-equal data (Note [Bin estimators]).
"""
import math
import re
import warnings

import numpy
import pytest

import kiln
from conftest import assert_same_bits, assert_same_values, make, name


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.uint8, numpy.int16, numpy.int32, numpy.int64, numpy.uint64],
                         ids=name)
def test_bincount(rng, dtype):
    x = rng.integers(0, 2 if dtype == numpy.bool_ else 50, 300).astype(dtype)
    kx = kiln.asarray(x)
    assert_same_bits(kiln.bincount(kx).get(), numpy.bincount(x))
    assert_same_bits(kiln.bincount(kx[::-3], minlength=70).get(), numpy.bincount(x[::-3], minlength=70))
    w = rng.integers(-9, 9, 300)
    for wd in (numpy.float32, numpy.int8, numpy.float64, numpy.bool_):
        got = kiln.bincount(kx, weights=kiln.asarray(w.astype(wd)))
        assert_same_bits(got.get(), numpy.bincount(x, weights=w.astype(wd)))


def assert_within_atomic_sum_bound(got, w, bin_of, nbins):
    """Each got[b] is a sum of the real weights w[bin_of == b] by float64
    atomics in some order, rounded once to got's dtype: within (k - 1) u
    sum|w| (k the bin's count, u = 2^-53) of the exact sum, plus half an
    ulp of got's dtype (Note [Atomic bin sums]); 1.01 covers the longdouble
    reference's own rounding."""
    exact = numpy.array([numpy.sum(w[bin_of == b].astype(numpy.longdouble)) for b in range(nbins)])
    mag = numpy.array([numpy.sum(numpy.abs(w[bin_of == b]).astype(numpy.longdouble)) for b in range(nbins)])
    k = numpy.bincount(bin_of[(bin_of >= 0) & (bin_of < nbins)], minlength=nbins)
    bound = numpy.maximum(k - 1, 0) * 2.0 ** -53 * mag + numpy.finfo(got.dtype).eps / 2 * numpy.abs(got)
    assert numpy.all(numpy.abs(got - exact) <= 1.01 * bound)


def test_bincount_float_weights_bound(rng):
    # Non-integer weights: each bin's atomic sum is some order of its k weights.
    x = rng.integers(0, 7, 5000)
    w = rng.standard_normal(5000)
    got = kiln.bincount(kiln.asarray(x), weights=kiln.asarray(w)).get()
    assert got.dtype == numpy.float64
    assert_within_atomic_sum_bound(got, w, x, 7)


def test_bincount_edges_and_errors():
    assert_same_bits(kiln.bincount(kiln.zeros((0,), numpy.int64)).get(), numpy.bincount(numpy.zeros(0, numpy.int64)))
    assert_same_bits(kiln.bincount(kiln.zeros((0,), numpy.int8), minlength=3).get(),
                     numpy.bincount(numpy.zeros(0, numpy.int8), minlength=3))
    assert_same_bits(kiln.bincount(kiln.zeros((0,), numpy.int8), weights=kiln.zeros((0,))).get(),
                     numpy.bincount(numpy.zeros(0, numpy.int8), weights=numpy.zeros(0)))
    x = kiln.asarray(numpy.array([1, 3, 3]))
    with pytest.raises(ValueError, match="must have no negative elements"):
        kiln.bincount(kiln.asarray(numpy.array([1, -1])))
    with pytest.raises(ValueError, match="object too deep"):
        kiln.bincount(kiln.zeros((2, 2), numpy.int64))
    with pytest.raises(ValueError, match="too small depth"):
        kiln.bincount(kiln.zeros((), numpy.int64))
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        kiln.bincount(kiln.zeros((3,)))
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        kiln.bincount(x, minlength=-1)
    with pytest.raises(TypeError, match="use 0 instead of None"):
        kiln.bincount(x, minlength=None)
    with pytest.raises(ValueError, match="same length"):
        kiln.bincount(x, weights=kiln.ones((2,)))
    with pytest.raises(TypeError, match="kiln.asarray"):
        kiln.bincount(numpy.array([1, 2]))


def assert_same_error(kiln_call, numpy_call):
    """numpy_call raises; kiln_call raises the same exception type and message."""
    with pytest.raises(Exception) as expected:
        numpy_call()
    with pytest.raises(expected.type, match="^" + re.escape(str(expected.value)) + "$"):
        kiln_call()


@pytest.mark.parametrize("wd", [numpy.complex64, numpy.complex128], ids=name)
def test_bincount_complex_weights(wd):
    # NumPy casts the weights to float64 safely: complex raises TypeError,
    # after the values' check and before the length check; no values, no check.
    x, w = numpy.array([1, 3, 3]), numpy.array([1 + 2j, 3, -1j], wd)
    for xs, ws in [(x, w), (x, w[:2]), (x[::-1], w[::-1]), (numpy.array([1, -1, 2]), w)]:
        assert_same_error(lambda: kiln.bincount(kiln.asarray(xs), weights=kiln.asarray(ws)),
                          lambda: numpy.bincount(xs, weights=ws))
    for ws in (w, w[:0]):
        got = kiln.bincount(kiln.zeros((0,), numpy.int64), weights=kiln.asarray(ws), minlength=2)
        assert_same_bits(got.get(), numpy.bincount(numpy.zeros(0, numpy.int64), weights=ws, minlength=2))


def edge_values(rng, dtype, lo, hi, nbins):
    """Values on every uniform edge of [lo, hi] and one step either side of
    it, random ones inside, and some outside."""
    dtype = numpy.dtype(dtype)
    edges = numpy.linspace(lo, hi, nbins + 1)
    vals = [edges, rng.uniform(lo - 1, hi + 1, 200)]
    if dtype.kind == "f":
        e = edges.astype(dtype)
        vals += [numpy.nextafter(e, numpy.inf), numpy.nextafter(e, -numpy.inf)]
    return numpy.concatenate(vals).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int64, numpy.uint16, numpy.float16, numpy.float32,
                                   numpy.float64], ids=name)
def test_histogram_uniform(rng, dtype):
    a = edge_values(rng, dtype, 0, 100, 7) if numpy.dtype(dtype).kind != "u" else \
        rng.integers(0, 200, 300).astype(dtype)
    ka = kiln.asarray(a)
    for bins, rng_ in [(10, None), (7, (0, 100)), (3, (10.5, 60.25)), (13, (numpy.float32(3), 90))]:
        n, e = kiln.histogram(ka, bins=bins, range=rng_)
        en, ee = numpy.histogram(a, bins=bins, range=rng_)
        assert_same_bits(e.get(), ee)
        assert_same_bits(n.get(), en)
    w = rng.integers(-5, 5, a.size)
    for wd in (numpy.float32, numpy.int64):
        n, _ = kiln.histogram(ka, bins=9, weights=kiln.asarray(w.astype(wd)))
        assert_same_bits(n.get(), numpy.histogram(a, bins=9, weights=w.astype(wd))[0])
    n, e = kiln.histogram(ka, bins=6, density=True)
    en, ee = numpy.histogram(a, bins=6, density=True)
    numpy.testing.assert_allclose(n.get(), en, rtol=4 * numpy.finfo(numpy.float64).eps)
    assert n.dtype == en.dtype


def test_histogram_layouts_nan_and_special(rng):
    k, h = make(rng, "negative", numpy.float32)
    assert_same_bits(kiln.histogram(k, 5)[0].get(), numpy.histogram(h, 5)[0])
    k, h = make(rng, "F", numpy.int16)
    assert_same_bits(kiln.histogram(k, 4, range=(-100, 300))[0].get(), numpy.histogram(h, 4, range=(-100, 300))[0])
    k, h = make(rng, "empty", numpy.float64)
    for got, exp in zip(kiln.histogram(k, 3), numpy.histogram(h, 3)):
        assert_same_bits(got.get(), exp)
    k, h = make(rng, "0-d", numpy.float64)
    for got, exp in zip(kiln.histogram(k, 3), numpy.histogram(h, 3)):
        assert_same_bits(got.get(), exp)
    a = numpy.array([1.0, numpy.nan, 2.0, 5.0, numpy.inf])
    n, e = kiln.histogram(kiln.asarray(a), bins=4, range=(0, 5))
    assert_same_bits(n.get(), numpy.histogram(a, bins=4, range=(0, 5))[0])
    with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
        kiln.histogram(kiln.asarray(numpy.array([1.0, numpy.nan])))
    with pytest.raises(ValueError, match="max must be larger than min"):
        kiln.histogram(kiln.asarray(a), range=(3, 1))
    with pytest.raises(ValueError, match="supplied range of"):
        kiln.histogram(kiln.asarray(a), range=(0, numpy.inf))
    with pytest.raises(ValueError, match="`bins` must be positive"):
        kiln.histogram(kiln.asarray(a), bins=0)
    with pytest.raises(TypeError, match="`bins` must be an integer"):
        kiln.histogram(kiln.asarray(a), bins=2.5)
    with pytest.raises(ValueError, match="weights should have the same shape"):
        kiln.histogram(kiln.asarray(a), weights=kiln.ones((2,)))
    with pytest.raises(ValueError, match="Too many bins"):
        kiln.histogram(kiln.asarray(numpy.array([1.0, 1.0 + 2 ** -50])), bins=1000)
    with pytest.raises(TypeError, match="kiln.asarray"):
        kiln.histogram(a)


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float32, numpy.float64], ids=name)
def test_histogram_edges(rng, dtype):
    a = edge_values(rng, dtype, -20, 20, 8)
    a[::17] = numpy.nan if numpy.dtype(dtype).kind == "f" else a[::17]
    ka = kiln.asarray(a)
    for edges in ([-20, -3, 0, 0.5, 7, 20], numpy.array([-5, 0, 5], numpy.int64), [1.0], [2.0, 2.0, 3.0]):
        for got, exp in zip(kiln.histogram(ka, bins=edges), numpy.histogram(a, bins=edges)):
            assert_same_bits(got.get(), exp)
    w = rng.integers(0, 4, a.size).astype(numpy.float64)
    n, _ = kiln.histogram(ka, bins=kiln.asarray(numpy.array([-20.0, 0, 20])), weights=kiln.asarray(w))
    assert_same_bits(n.get(), numpy.histogram(a, bins=[-20.0, 0, 20], weights=w)[0])
    n, _ = kiln.histogram(ka, bins=[-20, -1, 0, 20], density=True)
    numpy.testing.assert_allclose(n.get(), numpy.histogram(a, bins=[-20, -1, 0, 20], density=True)[0],
                                  rtol=4 * numpy.finfo(numpy.float64).eps)
    with pytest.raises(ValueError, match="must increase monotonically"):
        kiln.histogram(ka, bins=[1, 3, 2])
    with pytest.raises(ValueError, match="must be 1d"):
        kiln.histogram(ka, bins=[[1, 2]])


COMPLEX_WEIGHT_CASES = [dict(bins=9), dict(bins=7, range=(-20, 20)), dict(bins=5, range=(-3.5, 11.25)),
                        dict(bins=[-20, -3, 0, 0.5, 7, 20]), dict(bins=numpy.array([-5, 0, 5], numpy.int64)),
                        dict(bins=[1.0]), dict(bins=4, range=(50, 60))]


@pytest.mark.parametrize("wd", [numpy.complex64, numpy.complex128], ids=name)
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int64, numpy.float16, numpy.float32,
                                   numpy.float64], ids=name)
def test_histogram_complex_weights(rng, dtype, wd):
    # Integer-valued parts: every sum is exact, so the counts (weights'
    # dtype) equal NumPy's bit for bit, uniform bins and edges alike; the
    # density is complex128, n / widths / n.sum() as NumPy's: within 8 ulps
    # of float64 (relative to |density|), as the float densities above, for
    # kiln's complex division may round other than NumPy's.
    a = edge_values(rng, dtype, -20, 20, 8) if numpy.dtype(dtype).kind != "u" else \
        rng.integers(0, 40, 300).astype(dtype)
    w = (rng.integers(-9, 9, a.size) + 1j * rng.integers(-9, 9, a.size)).astype(wd)
    ka, kw = kiln.asarray(a), kiln.asarray(w)
    for kw_ in COMPLEX_WEIGHT_CASES:
        for density in (None, False, True):
            n, e = kiln.histogram(ka, weights=kw, density=density, **kw_)
            with numpy.errstate(invalid="ignore"):   # no values in range: NumPy's density is 0 / 0
                en, ee = numpy.histogram(a, weights=w, density=density, **kw_)
            assert n.dtype == en.dtype == (numpy.complex128 if density else wd)
            assert_same_bits(e.get(), ee)
            if density:
                numpy.testing.assert_allclose(n.get(), en, rtol=8 * numpy.finfo(numpy.float64).eps)
            else:
                assert_same_bits(n.get(), en)
    n, _ = kiln.histogram(ka[::-2], weights=kw[::-2], bins=[-20.0, 0, 20])   # strided values and weights
    assert_same_bits(n.get(), numpy.histogram(a[::-2], weights=w[::-2], bins=[-20.0, 0, 20])[0])
    n, _ = kiln.histogram(ka[:200].reshape(20, 10), weights=kw[:200].reshape(20, 10), bins=6)   # flattened
    assert_same_bits(n.get(), numpy.histogram(a[:200].reshape(20, 10), weights=w[:200].reshape(20, 10), bins=6)[0])
    for bins in (3, [0, 1, 2]):   # no values: zeros of the weights' dtype
        for got, exp in zip(kiln.histogram(kiln.zeros((0,), dtype), bins, weights=kiln.zeros((0,), wd)),
                            numpy.histogram(numpy.zeros(0, dtype), bins, weights=numpy.zeros(0, wd))):
            assert_same_bits(got.get(), exp)


@pytest.mark.parametrize("wd", [numpy.complex64, numpy.complex128], ids=name)
def test_histogram_complex_weights_bound(rng, wd):
    # Non-integer weights: each part of each bin is a float64 atomic sum,
    # rounded once to the part's dtype (Note [Atomic bin sums]): within
    # (k - 1) 2^-53 sum|part| of the exact sum, plus half an ulp of the part.
    a = rng.uniform(-1, 13, 5000)
    w = (rng.standard_normal(a.size) + 1j * rng.standard_normal(a.size)).astype(wd)
    ka, kw = kiln.asarray(a), kiln.asarray(w)
    for kw_ in (dict(bins=10, range=(0, 12)), dict(bins=[0, 2.5, 3, 9])):
        n, e = kiln.histogram(ka, weights=kw, **kw_)
        n, e = n.get(), e.get()
        bin_of = numpy.digitize(a, e) - 1   # no value lies on an edge
        assert n.dtype == wd and n.size == e.size - 1 and numpy.all(numpy.bincount(bin_of + 1)[1:e.size] > 100)
        for part in (numpy.real, numpy.imag):
            assert_within_atomic_sum_bound(part(n), part(w).astype(numpy.float64), bin_of, n.size)


@pytest.mark.parametrize("dtypes", [(numpy.float64, numpy.float64), (numpy.int32, numpy.float32),
                                    (numpy.float32, numpy.float32)], ids=str)
def test_histogram2d(rng, dtypes):
    x = edge_values(rng, dtypes[0], 0, 10, 5)
    y = numpy.resize(rng.permutation(edge_values(rng, dtypes[1], -3, 3, 4)), x.size)
    kx, ky = kiln.asarray(x), kiln.asarray(y)
    cases = [dict(bins=5, range=[[0, 10], [-3, 3]]), dict(bins=(3, 4)), dict(bins=[[0, 1, 5, 10], 6]),
             dict(bins=numpy.array([0.0, 2, 4, 8])), dict(bins=4, range=[None, (-1, 1)])]
    if numpy.dtype(dtypes[1]).kind == "f":   # NaNs are dropped (with a range: else NumPy's range is not finite)
        y[::13] = numpy.nan
        kx, ky = kiln.asarray(x), kiln.asarray(y)
        cases = [cases[0], cases[3], cases[4]]
    for kw in cases:
        got = kiln.histogram2d(kx, ky, **kw)
        exp = numpy.histogram2d(x, y, **kw)
        for g, e in zip(got, exp):
            assert_same_bits(g.get(), e)
    w = rng.integers(-3, 3, x.size).astype(numpy.float32)
    got = kiln.histogram2d(kx, ky, bins=3, range=[[0, 10], [-3, 3]], weights=kiln.asarray(w))
    assert_same_bits(got[0].get(), numpy.histogram2d(x, y, bins=3, range=[[0, 10], [-3, 3]], weights=w)[0])
    got = kiln.histogram2d(kx, ky, bins=3, range=[[0, 10], [-3, 3]], density=True)
    exp = numpy.histogram2d(x, y, bins=3, range=[[0, 10], [-3, 3]], density=True)
    numpy.testing.assert_allclose(got[0].get(), exp[0], rtol=8 * numpy.finfo(numpy.float64).eps)


def test_histogram2d_errors():
    x = kiln.ones((4,))
    with pytest.raises(ValueError, match="same length"):
        kiln.histogram2d(x, kiln.ones((3,)))
    with pytest.raises(ValueError, match="dimension of bins"):
        kiln.histogram2d(x, x, bins=[3])
    with pytest.raises(ValueError, match=r"`bins\[0\]` must be positive"):
        kiln.histogram2d(x, x, bins=(0, 2))
    with pytest.raises(ValueError, match="one entry per dimension"):
        kiln.histogram2d(x, x, range=[(0, 1)])
    with pytest.raises(ValueError, match="monotonically increasing"):
        kiln.histogram2d(x, x, bins=([0, 2, 1], 3))
    for wd in (numpy.complex64, numpy.complex128):   # NumPy sums through bincount: no complex weights ...
        w = numpy.array([1, 2j, 3, 4 + 1j], wd)
        for kw in (dict(), dict(density=True), dict(bins=2, range=[[5, 6], [5, 6]])):
            assert_same_error(lambda: kiln.histogram2d(x, x, weights=kiln.asarray(w), **kw),
                              lambda: numpy.histogram2d(numpy.ones(4), numpy.ones(4), weights=w, **kw))
        got = kiln.histogram2d(kiln.zeros((0,)), kiln.zeros((0,)), bins=2, weights=kiln.zeros((0,), wd))
        for g, e in zip(got, numpy.histogram2d(numpy.zeros(0), numpy.zeros(0), bins=2, weights=numpy.zeros(0, wd))):
            assert_same_bits(g.get(), e)   # ... but with no values: float64 zeros
    got = kiln.histogram2d(kiln.zeros((0,)), kiln.zeros((0,)), bins=2)
    for g, e in zip(got, numpy.histogram2d(numpy.zeros(0), numpy.zeros(0), bins=2)):
        assert_same_values(g.get(), e)


ESTIMATORS = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]


def estimator_data(rng, dtype, n, kind):
    """n values of dtype: 'normal' (spread over the type), 'skewed' (heavy
    right tail: doane's skewness term, 'auto' capped at 2 sqrt(n) bins),
    'narrow' (a few distinct values: integer widths clamped to 1, a zero
    IQR) or 'equal' (all the same)."""
    dtype = numpy.dtype(dtype)
    if kind == "equal":
        return numpy.full(n, 7, dtype)
    if kind == "narrow":
        return rng.integers(0, 4, n).astype(dtype)
    x = rng.standard_normal(n) * 30 if kind == "normal" else rng.standard_exponential(n) ** 3 * 4 - 20
    if dtype.kind == "f":
        return x.astype(dtype)
    info = numpy.iinfo(dtype)
    return numpy.clip(numpy.rint(x), info.min, info.max).astype(dtype)


def assert_same_histograms(ka, a, **kw):
    """kiln's histogram_bin_edges and histogram of ka equal NumPy's of a, or
    both raise the same error. Exact, edges too: the number of bins
    ceil((last - first) / h) is NumPy's as h is evaluated on the host in
    NumPy's scalar arithmetic, and the edges are NumPy's linspace for it
    (Note [Histogram edges]). Only a std- or skewness-based h whose last
    bits differ from NumPy's could change the count, and only with the
    quotient within those bits of an integer; these seeded data are not."""
    with warnings.catch_warnings(record=True) as expected_warnings:
        warnings.simplefilter("always")
        try:
            expected_edges = numpy.histogram_bin_edges(a, **kw)
            expected = numpy.histogram(a, **kw)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e), match=re.escape(str(e))):
                kiln.histogram_bin_edges(ka, **kw)
            with pytest.raises(type(e), match=re.escape(str(e))):
                kiln.histogram(ka, **kw)
            return
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        edges = kiln.histogram_bin_edges(ka, **kw)
        n, e = kiln.histogram(ka, **kw)
    assert [str(w.message) for w in got_warnings] == [str(w.message) for w in expected_warnings]
    assert_same_bits(edges.get(), expected_edges)
    assert_same_bits(e.get(), expected[1])
    assert_same_bits(n.get(), expected[0])


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int64, numpy.float32, numpy.float64], ids=name)
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_histogram_estimators(rng, estimator, dtype):
    ranges = [None, (-10, 25), (-15.5, 40.25), (numpy.float32(-3), 2), (1000, 2000), (7, 7)]
    for n in (1, 2, 5, 64, 1000):
        for kind in ("normal", "skewed", "narrow", "equal"):
            a = estimator_data(rng, dtype, n, kind)
            ka = kiln.asarray(a)
            for value_range in ranges:
                assert_same_histograms(ka, a, bins=estimator, range=value_range)
    a = estimator_data(rng, dtype, 120, "skewed").reshape(4, 30)   # flattened, as NumPy
    assert_same_histograms(kiln.asarray(a), a, bins=estimator)
    assert_same_histograms(kiln.zeros((0,), dtype), numpy.zeros(0, dtype), bins=estimator)
    assert_same_histograms(kiln.zeros((0,), dtype), numpy.zeros(0, dtype), bins=estimator, range=(2, 5))


def test_histogram_estimators_exercise_their_rules(rng):
    # The cases above reach every rule: checked here on NumPy's own results,
    # so that a data generator change cannot silently skip one.
    skewed = estimator_data(rng, numpy.float64, 1000, "skewed")
    fd_bins = numpy.histogram_bin_edges(skewed, "fd").size - 1
    auto_bins = numpy.histogram_bin_edges(skewed, "auto").size - 1
    assert auto_bins == math.ceil(2 * math.sqrt(skewed.size)) < fd_bins   # 'auto' capped at 2 sqrt(n) bins
    assert_same_histograms(kiln.asarray(skewed), skewed, bins="auto")
    narrow = estimator_data(rng, numpy.int64, 1000, "narrow")
    for estimator in ("fd", "scott", "rice", "sqrt", "doane"):   # integer data: width clamped to 1
        assert numpy.histogram_bin_edges(narrow, estimator).size == 4
        assert_same_histograms(kiln.asarray(narrow), narrow, bins=estimator)
        assert numpy.histogram_bin_edges(narrow.astype(numpy.float64), estimator).size > 4


def test_histogram_stone(rng):
    # The candidate search: its optimum inside 1 ... 100, at the bound (with
    # NumPy's RuntimeWarning), over K = sqrt(n) > 100 candidates, and the
    # 'too many bins' error of a candidate histogram over a tiny range.
    clustered = numpy.concatenate([rng.normal(0, 1, 600), rng.normal(8, 0.5, 400)])
    fine = numpy.concatenate([rng.normal(0, 0.01, 990), numpy.full(10, 100.0)])   # a peak needing h < ptp / 100
    large = rng.normal(0, 1, 12100)
    tiny = numpy.array([1.0, 1.0 + 2 ** -50])
    for a in (clustered, fine, large, tiny):
        assert_same_histograms(kiln.asarray(a), a, bins="stone")
    assert 1 < numpy.histogram_bin_edges(clustered, "stone").size - 1 < 100
    assert numpy.histogram_bin_edges(large, "stone").size - 1 > 1
    with pytest.warns(RuntimeWarning, match="may be suboptimal"):
        kiln.histogram(kiln.asarray(fine), bins="stone")
    with pytest.raises(ValueError, match="Too many bins for data range. Cannot create 5 finite-sized bins"):
        kiln.histogram_bin_edges(kiln.asarray(tiny), bins="stone")


def test_histogram_estimator_nan_and_errors(rng):
    a = numpy.array([1.0, numpy.nan, 2.0, 5.0, 3.5, -numpy.inf, 4.0])
    ka = kiln.asarray(a)
    for estimator in ESTIMATORS:   # the values within range, NaN and -inf dropped
        assert_same_histograms(ka, a, bins=estimator, range=(0, 5))
    with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
        kiln.histogram(ka, bins="auto")
    with pytest.raises(ValueError, match="'Auto' is not a valid estimator for `bins`"):
        kiln.histogram(ka, bins="Auto")
    with pytest.raises(ValueError, match="is not a valid estimator"):   # before the weights
        kiln.histogram_bin_edges(ka, bins="bogus", weights=ka)
    for f in (kiln.histogram, kiln.histogram_bin_edges):
        with pytest.raises(TypeError, match="Automated estimation of the number of bins is not supported for "
                                            "weighted data"):
            f(ka, bins="fd", weights=kiln.ones((7,)))
        with pytest.raises(ValueError, match="max must be larger than min"):
            f(ka, bins="sturges", range=(3, 1))
        with pytest.raises(ValueError, match="weights should have the same shape"):
            f(ka, bins="sqrt", weights=kiln.ones((2,)))


def test_histogram_bin_edges_numbers_and_arrays(rng):
    a = edge_values(rng, numpy.float32, -5, 5, 4)
    ka = kiln.asarray(a)
    for kw in (dict(), dict(bins=7), dict(bins=3, range=(-2, 2.5)), dict(bins=[-4, 0, 0.5, 3]),
               dict(bins=2, weights=numpy.ones(a.size))):
        expected = numpy.histogram_bin_edges(a, **kw)
        if "weights" in kw:
            kw["weights"] = kiln.asarray(kw["weights"])
        assert_same_bits(kiln.histogram_bin_edges(ka, **kw).get(), expected)
    edges = kiln.asarray(numpy.array([0, 2, 9]))
    assert kiln.histogram_bin_edges(ka, edges) is edges   # passed through, as NumPy
    with pytest.raises(ValueError, match="must increase monotonically"):
        kiln.histogram_bin_edges(ka, [0, 2, 1])
    with pytest.raises(ValueError, match="Too many bins"):
        kiln.histogram_bin_edges(kiln.asarray(numpy.array([1.0, 1.0 + 2 ** -50])), 1000)
