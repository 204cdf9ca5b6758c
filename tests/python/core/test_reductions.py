"""Reductions and statistics (kiln/_reductions.py) against NumPy: every
function over dtypes, axes (None, each, tuples, negative), keepdims, layouts
(C, F, strided, negative strides, 0-d, empty), out=, where=, initial=, NaNs,
and NumPy's errors and warnings.

Exact results (integers, bool, max/min, arg reductions, counts) are compared
bit for bit. Float sums use check_sum of test_ufunc_methods.py (the engine's
rounding bound, Note [Reduction rounding]). Means and variances are checked
against long double references with bounds derived from the same depth D of
a sum of n terms (D <= n - 1 on every path), u the accumulator's unit
roundoff:
  mean: |m' - m| <= (D u sum|x|) / n + u |m|
  var:  with the mean's error e (the bound above), the computed
        sum (x - m')^2 = sum (x - m)^2 + n e^2 (the cross term vanishes), each
        square within 3u (|d|^2 of complex: 4u), the sum within D u more, the
        division u: |v' - v| <= (D + 5) u v + n e^2 / (n - ddof);
  std:  half var's relative error plus u;
plus one rounding of the result dtype when it is narrower (float16), each
times 1.01 for second-order terms.
"""
import math
import warnings

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, assert_same_values, make, name, random_array
from test_ufunc_methods import axes_for, check_sum, kiln_matches, numpy_call, unit_roundoff

FLOATS = [numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]
EXACT = ["max", "min", "amax", "amin", "any", "all", "nanmax", "nanmin", "count_nonzero", "ptp"]
SUMS = ["sum", "prod", "nansum", "nanprod"]


def axes_of(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))) if ndim else ()


def count(x, axis):
    return math.prod(x.shape[d] for d in axes_of(axis, x.ndim))


def sum_check(fn, x, axis, keepdims):
    """The bound check of a float sum (None: compare bit for bit)."""
    if x.dtype.kind not in "fc" or fn not in ("sum", "nansum"):
        return None
    if fn == "nansum":
        x = numpy.where(numpy.isnan(x), 0, x).astype(x.dtype)
    return lambda got: check_sum(x, axes_of(axis, x.ndim), keepdims, got)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("fn", EXACT + SUMS)
def test_reductions(rng, fn, dtype, layout):
    k, x = make(rng, layout, dtype)
    if fn in ("prod", "nanprod") and x.dtype.kind in "fc":
        k, x = make(rng, layout, dtype, (rng.uniform(0.8, 1.25, (6, 8))).astype(dtype))
    kf, nf = getattr(kiln, fn), getattr(numpy, fn)
    for axis in axes_for(x.ndim):
        for keepdims in (False, True):
            approx = sum_check(fn, x, axis, keepdims)
            if fn in ("prod", "nanprod") and x.dtype.kind in "fc" and count(x, axis) > 1:
                continue   # products: test_ufunc_methods.py's check_product, on multiply.reduce
            kiln_matches(lambda: kf(k, axis=axis, keepdims=keepdims), lambda: nf(x, axis=axis, keepdims=keepdims),
                         approx)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("fn", ["argmax", "argmin", "nanargmax", "nanargmin"])
def test_arg_reductions(rng, fn, dtype, layout):
    k, x = make(rng, layout, dtype)
    if x.dtype.kind in "fc" and x.size > 4:   # ties and NaNs (first wins)
        k, x = make(rng, layout, dtype, rng.integers(0, 5, (6, 8)).astype(dtype))
    kf, nf = getattr(kiln, fn), getattr(numpy, fn)
    for axis in [None, 0, 1, -1, -2, 2, -3] if x.ndim else [None, 0, -1, 1]:
        for keepdims in (False, True):
            kiln_matches(lambda: kf(k, axis=axis, keepdims=keepdims), lambda: nf(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("index_dtype", [numpy.int8, numpy.uint16, numpy.int32, numpy.int64], ids=name)
def test_arg_reductions_index_dtype(rng, index_dtype):
    """argmax/argmin's dtype= (CuPy's): the positions in that integer dtype,
    as function and method; TypeError for a float dtype or one out= lacks."""
    x = random_array(rng, (5, 7), numpy.float32)
    k = kiln.asarray(x)
    for fn in ("argmax", "argmin"):
        for got in (getattr(kiln, fn)(k, axis=1, dtype=index_dtype), getattr(k, fn)(axis=1, dtype=index_dtype)):
            assert got.dtype == index_dtype
            assert got.get().tolist() == getattr(numpy, fn)(x, axis=1).tolist()
        assert getattr(kiln, fn)(kiln.asarray(3.0), dtype=index_dtype).dtype == index_dtype
        with pytest.raises(TypeError, match="dtype must be an integer dtype for the positions, got float32"):
            getattr(kiln, fn)(k, dtype=numpy.float32)
        with pytest.raises(TypeError, match="does not match out's dtype int64"):
            getattr(kiln, fn)(k, axis=0, out=kiln.empty(7, numpy.int64), dtype=numpy.int8)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_nan_semantics(rng, dtype):
    x = random_array(rng, (5, 9), dtype)
    x[1, 3] = numpy.nan
    x[2, :] = numpy.nan
    x[4, 0] = numpy.nan
    x[4, 8] = numpy.nan
    x[0, 2] = -numpy.inf
    if numpy.dtype(dtype).kind == "c":
        x[3, 2] = complex(1.0, numpy.nan)
        x[3, 5] = complex(numpy.nan, 2.0)
    k = kiln.asarray(x)
    for fn in ["max", "min", "argmax", "argmin", "nanmax", "nanmin", "any", "all"]:
        for axis in (None, 0, 1):
            kiln_matches(lambda: getattr(kiln, fn)(k, axis=axis), lambda: getattr(numpy, fn)(x, axis=axis))
    for fn in ["nanargmax", "nanargmin"]:
        kiln_matches(lambda: getattr(kiln, fn)(k, axis=0), lambda: getattr(numpy, fn)(x, axis=0))
        for axis in (None, 1):   # row 2 is all NaN
            kiln_matches(lambda: getattr(kiln, fn)(k, axis=axis), lambda: getattr(numpy, fn)(x, axis=axis))
        rows = numpy.delete(x, 2, axis=0)
        kiln_matches(lambda: getattr(kiln, fn)(kiln.asarray(rows), axis=1), lambda: getattr(numpy, fn)(rows, axis=1))
    # NaN positions of the sums, means and variances; values by the bound checks elsewhere.
    for fn in ["sum", "nansum", "mean", "nanmean", "var", "nanvar", "std", "nanstd"]:
        for axis in (None, 0, 1):
            got = numpy_call(lambda: getattr(kiln, fn)(k, axis=axis).get())[0]
            expected = numpy_call(lambda: getattr(numpy, fn)(x, axis=axis))[0]
            assert got.dtype == expected.dtype and numpy.array_equal(numpy.isnan(got), numpy.isnan(expected)), fn


def test_nan_warnings():
    x = numpy.array([[1.0, numpy.nan], [numpy.nan, numpy.nan]])
    k = kiln.asarray(x)
    for fn, message in [("nanmax", "All-NaN slice encountered"), ("nanmin", "All-NaN slice encountered"),
                        ("nanmean", "Mean of empty slice"), ("nanvar", "Degrees of freedom <= 0 for slice.")]:
        with pytest.warns(RuntimeWarning, match=message):
            got = getattr(kiln, fn)(k, axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same_values(got.get(), getattr(numpy, fn)(x, axis=1))   # 0 / 0: the hardware's NaN
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kiln.nanmax(kiln.asarray(x[:, :1]), axis=0)   # [1, nan]: not all NaN, no warning
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        kiln.nanargmax(k, axis=1)


def exact(x):
    return x.astype(numpy.clongdouble if x.dtype.kind == "c" else numpy.longdouble)


def check_mean(x, axis, keepdims, got, acc, where=True):
    """got within the mean bound of the module docstring."""
    w = numpy.broadcast_to(where, x.shape)
    xe = numpy.where(w, exact(x), 0)
    n = numpy.sum(w, axis=axis, keepdims=keepdims)
    m = numpy.sum(xe, axis=axis, keepdims=keepdims) / n
    depth = numpy.maximum(n - 1, 0)
    u = unit_roundoff(numpy.finfo(acc).dtype)
    mag = numpy.sum(numpy.abs(xe), axis=axis, keepdims=keepdims)
    bound = 1.01 * (depth * u * mag / n + u * numpy.abs(m))
    if got.dtype != acc and got.dtype.kind == "f":
        bound = bound + unit_roundoff(got.dtype) * numpy.abs(m)
    err = numpy.abs(got.astype(m.dtype) - m)
    assert numpy.all((err <= bound * (1 + 2 ** -10)) | (numpy.isnan(m) & numpy.isnan(got))), (err.max(), bound.max())
    return m, bound, n


def check_var(x, axis, keepdims, got, acc, ddof=0, root=False, where=True):
    w = numpy.broadcast_to(where, x.shape)
    xe = numpy.where(w, exact(x), 0)
    n = numpy.sum(w, axis=axis, keepdims=True)
    m = numpy.sum(xe, axis=axis, keepdims=True) / n
    u = unit_roundoff(numpy.finfo(acc).dtype)
    e = 1.01 * (numpy.maximum(n - 1, 0) * u * numpy.sum(numpy.abs(xe), axis=axis, keepdims=True) / n
                + u * numpy.abs(m))
    dof = numpy.maximum(n - ddof, 0)
    v = numpy.sum(numpy.where(w, numpy.abs(exact(x) - m) ** 2, 0), axis=axis, keepdims=True) / dof
    bound = 1.01 * ((n + 5) * u * v + n * e * e / dof)
    if root:
        # sqrt(v + b) - sqrt(v) <= min(b / (2 sqrt(v)), sqrt(b)) (the second for v = 0)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            grow = numpy.fmin(bound / (2 * numpy.sqrt(v)), numpy.sqrt(bound))
        exp, bound = numpy.sqrt(v), 1.01 * (grow + u * numpy.sqrt(v))
    else:
        exp = v
    if not keepdims:
        exp, bound = numpy.squeeze(exp, axis=axis), numpy.squeeze(bound, axis=axis)
    if got.dtype.itemsize < numpy.finfo(acc).dtype.itemsize:
        bound = bound + unit_roundoff(got.dtype) * numpy.abs(exp)
    err = numpy.abs(got.astype(exp.dtype) - exp)
    assert numpy.all((err <= bound) | (numpy.isnan(exp) & numpy.isnan(got))), (err.max(), bound.max())


def accumulator(dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind in "biu":
        return numpy.dtype(numpy.float64)
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


def stats_check(fn, x, axis, keepdims, ddof=0, where=True):
    acc = accumulator(x.dtype)
    if fn in ("mean", "nanmean"):
        return lambda got: check_mean(x, axis, keepdims, got, acc, where)
    return lambda got: check_var(x, axis, keepdims, got, acc, ddof, fn in ("std", "nanstd"), where)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("fn", ["mean", "var", "std", "nanmean", "nanvar", "nanstd"])
def test_statistics(rng, fn, dtype, layout):
    k, x = make(rng, layout, dtype)
    kf, nf = getattr(kiln, fn), getattr(numpy, fn)
    for axis in axes_for(x.ndim):
        ax = axes_of(axis, x.ndim)
        for keepdims in (False, True):
            kiln_matches(lambda: kf(k, axis=axis, keepdims=keepdims), lambda: nf(x, axis=axis, keepdims=keepdims),
                         stats_check(fn, x, ax, keepdims))
    if fn in ("var", "std", "nanvar", "nanstd") and x.ndim == 2:
        for ddof in (1, 2.5):
            kiln_matches(lambda: kf(k, axis=1, ddof=ddof), lambda: nf(x, axis=1, ddof=ddof),
                         stats_check(fn, x, (1,), False, ddof))


def test_statistics_empty_and_warnings():
    x = numpy.zeros((0, 3), numpy.float32)
    k = kiln.asarray(x)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = kiln.mean(k)
    assert got.shape == () and got.dtype == numpy.float32 and numpy.isnan(got.get())
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
        got = kiln.var(k, axis=0)
    assert got.shape == (3,) and numpy.isnan(got.get()).all()
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
        got = kiln.std(kiln.asarray(numpy.ones((2, 1))), axis=1, ddof=1)
    assert numpy.isnan(got.get()).all()
    assert kiln.mean(k, axis=1).shape == (0,)
    assert_same_bits(kiln.sum(k, axis=0).get(), numpy.sum(x, axis=0))


def test_dtype_rules(rng):
    for dtype in ALL_DTYPES:
        k, x = make(rng, "C", dtype)
        for fn in ["sum", "prod", "mean", "var", "std", "nansum", "nanmean", "nanvar", "max", "any",
                   "count_nonzero", "argmax"]:
            assert getattr(kiln, fn)(k).dtype == numpy.asarray(getattr(numpy, fn)(x)).dtype, (fn, dtype)
    k, x = make(rng, "C", numpy.int16)
    for req in (numpy.float32, numpy.int32, numpy.complex64, numpy.float16):
        for fn in ("sum", "mean"):
            got = getattr(kiln, fn)(k, axis=1, dtype=req)
            expected = getattr(numpy, fn)(x, axis=1, dtype=req)
            assert got.dtype == expected.dtype
            if fn == "sum" and numpy.dtype(req).kind in "iu":
                assert_same_bits(got.get(), expected)
    got = kiln.var(k, axis=0, dtype=numpy.float32)
    check_var(x, (0,), False, got.get(), numpy.dtype(numpy.float32))


def test_results_are_0d_arrays(rng):
    k, x = make(rng, "C", numpy.float64)
    for fn in ["sum", "prod", "max", "min", "argmax", "argmin", "mean", "var", "std", "any", "all", "count_nonzero",
               "ptp", "nansum", "nanmax", "nanargmin", "nanmean", "nanstd", "average", "trace"]:
        r = getattr(kiln, fn)(k)
        assert isinstance(r, kiln.ndarray) and r.shape == (), fn


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int32, numpy.float32, numpy.float64, numpy.complex64], ids=name)
def test_where_initial_out(rng, dtype):
    k, x = make(rng, "C", dtype)
    mask = rng.integers(0, 2, size=x.shape).astype(bool)
    mask[:, 0] = True   # no empty row
    row = numpy.array([True, False, True, True, False, False, True, True])
    for w in (mask, row):
        kw = kiln.asarray(w)
        for fn in ("sum", "max", "min", "any", "all", "nansum", "nanmax"):
            for axis in (None, 0, 1):
                extra = {"initial": 5} if fn in ("max", "min", "nanmax") else {}
                if fn in ("max", "min", "nanmax") and dtype is numpy.complex64:
                    continue
                kiln_matches(lambda: getattr(kiln, fn)(k, axis=axis, where=kw, **extra),
                             lambda: getattr(numpy, fn)(x, axis=axis, where=w, **extra),
                             sum_check(fn, numpy.where(w, x, 0).astype(x.dtype), axis, False)
                             if fn in ("sum", "nansum") else None)
        for fn in ("mean", "var", "std", "nanmean", "nanvar"):
            for axis in (None, 1):
                kiln_matches(lambda: getattr(kiln, fn)(k, axis=axis, where=kw),
                             lambda: getattr(numpy, fn)(x, axis=axis, where=w),
                             stats_check(fn, x, axes_of(axis, 2), False, where=w))
    for fn, kwargs in [("sum", {}), ("mean", {}), ("var", {"ddof": 1}), ("std", {}), ("max", {}), ("prod", {}),
                       ("nanmean", {}), ("argmax", {}), ("all", {})]:
        expected = numpy.asarray(getattr(numpy, fn)(x, axis=0, **kwargs))
        out = kiln.zeros((8,), expected.dtype)
        got = getattr(kiln, fn)(k, axis=0, out=out, **kwargs)
        assert got is out
        if expected.dtype.kind in "fc" and fn != "max":
            numpy.testing.assert_allclose(out.get(), expected, rtol=1e-5 if expected.itemsize >= 8 else 1e-3)
        else:
            assert_same_bits(out.get(), expected)
    if dtype is numpy.float64:
        assert_same_bits(kiln.sum(k, initial=3.0, axis=1).get(), numpy.sum(x, initial=3.0, axis=1))
        assert kiln.mean(k, axis=1, keepdims=True, out=kiln.zeros((6, 1))).shape == (6, 1)


def test_var_mean_and_correction(rng):
    k, x = make(rng, "C", numpy.float64)
    m = numpy.mean(x, axis=1, keepdims=True)
    got = kiln.var(k, axis=1, mean=kiln.asarray(m)).get()
    check_var(x, (1,), False, got, numpy.dtype(numpy.float64))
    got = kiln.std(k, axis=0, correction=1).get()
    check_var(x, (0,), False, got, numpy.dtype(numpy.float64), ddof=1, root=True)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously."):
        kiln.var(k, ddof=1, correction=1)


def test_variance_is_two_pass(rng):
    # E[x^2] - E[x]^2 would lose every digit here: a large mean, a small spread.
    x = (1e8 + rng.standard_normal(4096)).astype(numpy.float64)
    got = kiln.var(kiln.asarray(x)).get()
    check_var(x, (0,), False, got, numpy.dtype(numpy.float64))
    assert abs(got - numpy.var(x)) < 1e-6


def test_average(rng):
    k, x = make(rng, "C", numpy.float32)
    w = rng.random((6, 8)).astype(numpy.float32)
    w1 = rng.random(8)
    ki = kiln.asarray(x.astype(numpy.int32))
    cases = [(dict(), dict()), (dict(axis=1), dict(axis=1)), (dict(weights=w), dict()),
             (dict(weights=w, axis=0), dict()), (dict(weights=w1, axis=1), dict()),
             (dict(weights=w, axis=1, returned=True), dict()), (dict(axis=0, returned=True), dict()),
             (dict(weights=w1, axis=-1, keepdims=True), dict())]
    for kw, _ in cases:
        kkw = {key: kiln.asarray(v) if isinstance(v, numpy.ndarray) else v for key, v in kw.items()}
        for a, xa in ((k, x), (ki, x.astype(numpy.int32))):
            got, expected = kiln.average(a, **kkw), numpy.average(xa, **kw)
            if kw.get("returned"):
                assert len(got) == 2
                for g, e in zip(got, expected):
                    assert g.dtype == e.dtype and g.shape == e.shape
                    numpy.testing.assert_allclose(g.get(), e, rtol=1e-5)
            else:
                assert got.dtype == expected.dtype and got.shape == expected.shape
                numpy.testing.assert_allclose(got.get(), expected, rtol=1e-5)
    for kw in [dict(weights=w1), dict(weights=w1, axis=0), dict(weights=numpy.zeros(8), axis=1)]:
        kkw = {key: kiln.asarray(v) if isinstance(v, numpy.ndarray) else v for key, v in kw.items()}
        kiln_matches(lambda: kiln.average(k, **kkw), lambda: numpy.average(x, **kw))


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint32, numpy.float32, numpy.complex128], ids=name)
def test_trace(rng, dtype):
    x = random_array(rng, (4, 5, 3), dtype)
    k = kiln.asarray(x)
    for kw in [dict(), dict(offset=1), dict(offset=-2), dict(offset=7), dict(axis1=1, axis2=2),
               dict(axis1=-1, axis2=0, offset=1), dict(dtype=numpy.float64), dict(axis1=1, axis2=1),
               dict(axis1=3)]:
        kiln_matches(lambda: kiln.trace(k, **kw), lambda: numpy.trace(x, **kw),
                     None if x.dtype.kind not in "fc" and kw.get("dtype") is None else
                     lambda got: numpy.testing.assert_allclose(got, numpy.trace(x, **kw), rtol=1e-6))
    kiln_matches(lambda: k[0].trace(), lambda: x[0].trace())
    kiln_matches(lambda: kiln.trace(k[0, 0]), lambda: numpy.trace(x[0, 0]))


def test_errors(rng):
    k, x = make(rng, "C", numpy.float64)
    for fn in ["sum", "prod", "max", "min", "any", "all", "mean", "var", "std", "nansum", "nanmax", "nanmean",
               "nanvar", "argmax", "nanargmin", "count_nonzero", "ptp"]:
        for axis in (2, -3, (0, 2)):
            if fn in ("argmax", "nanargmin") and isinstance(axis, tuple):
                continue
            kiln_matches(lambda: getattr(kiln, fn)(k, axis=axis), lambda: getattr(numpy, fn)(x, axis=axis))
    kiln_matches(lambda: kiln.sum(k, axis=(0, 0)), lambda: numpy.sum(x, axis=(0, 0)))
    kiln_matches(lambda: kiln.sum(k, axis=(1, -1)), lambda: numpy.sum(x, axis=(1, -1)))
    empty = numpy.zeros((0, 4))
    for fn in ["max", "min", "nanmax", "argmax", "nanargmin", "ptp"]:
        kiln_matches(lambda: getattr(kiln, fn)(kiln.asarray(empty)), lambda: getattr(numpy, fn)(empty))
        kiln_matches(lambda: getattr(kiln, fn)(kiln.asarray(empty), axis=1),
                     lambda: getattr(numpy, fn)(empty, axis=1))
    kiln_matches(lambda: kiln.ptp(kiln.asarray(numpy.array([True, False]))),
                 lambda: numpy.ptp(numpy.array([True, False])))
    with pytest.raises(TypeError, match="kiln.asarray"):
        kiln.nansum(x)
    assert_same_bits(kiln.sum(x, axis=0), x.sum(axis=0))   # Note [Reductions of foreign arrays]: x.sum(axis=0)
    with pytest.raises(ValueError, match="output array does not match result of np.argmax."):
        kiln.argmax(k, axis=0, out=kiln.zeros((6,), numpy.int64))
    with pytest.raises(ValueError, match="has shape"):
        kiln.mean(k, axis=0, out=kiln.zeros((6,)))


def test_ndarray_methods(rng):
    k, x = make(rng, "F", numpy.float32)
    assert_same_bits(k.max(axis=0).get(), x.max(axis=0))
    assert_same_bits(k.argmin(axis=1, keepdims=True).get(), x.argmin(axis=1, keepdims=True))
    assert_same_bits(k.any(axis=1).get(), x.any(axis=1))
    assert_same_bits(k.all().get(), numpy.asarray(x.all()))
    check_sum(x, (0, 1), False, k.sum().get())
    check_mean(x, (1,), False, k.mean(axis=1).get(), numpy.dtype(numpy.float32))
    check_var(x, (0,), True, k.var(axis=0, keepdims=True, ddof=1).get(), numpy.dtype(numpy.float32), ddof=1)
    check_var(x, (0, 1), False, k.std().get(), numpy.dtype(numpy.float32), root=True)
    ki, xi = make(rng, "C", numpy.int16)
    assert_same_bits(ki.prod(axis=1).get(), xi.prod(axis=1))
    assert_same_bits(ki.trace(offset=1).get(), numpy.asarray(xi.trace(offset=1)))
    assert not hasattr(kiln.ndarray, "ptp")   # gone from NumPy 2's ndarray


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_plain_methods_match_the_python_path(rng, dtype):
    """x.sum() and its kin without arguments (Note [Reduction calls] in
    reduction_binding.cpp): C++ methods, the same call as kiln.sum(x); the
    first and later calls (a cached spec) give NumPy's value and dtype."""
    for layout in ("C", "negative", "0-d"):
        k, x = make(rng, layout, dtype)
        for method in ("sum", "prod", "max", "min", "any", "all"):
            if method == "prod" and x.dtype.kind in "fc":
                continue   # rounding: the sum check below covers the float path
            expected = getattr(x, method)()
            for _ in range(2):   # the first call builds the spec, the second finds it cached
                got = getattr(k, method)()
                assert isinstance(got, kiln.ndarray) and got.shape == () and got.dtype == expected.dtype, method
                if method == "sum" and x.dtype.kind in "fc":
                    check_sum(x, tuple(range(x.ndim)), False, got.get())
                else:
                    assert_same_bits(got.get(), numpy.asarray(expected))
    # add.reduce starts from the identity, +0.0 (Note [Identity as the start value]).
    x = numpy.array([-0.0, -0.0], numpy.float32)
    k = kiln.asarray(x)
    for _ in range(2):
        assert_same_bits(k.sum().get(), numpy.asarray(x.sum()))
    assert k.sum(keepdims=True).shape == (1,)
    assert kiln.ndarray.sum.__name__ == "sum" and "numpy.sum" in kiln.ndarray.sum.__doc__
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        kiln.zeros(0).max()


@pytest.mark.parametrize("fn", ["var", "std", "nanvar", "nanstd"])
def test_variance_with_complex_dtype(rng, fn):
    # dtype= complex makes NumPy's var and std complex (a zero imaginary part),
    # for real and complex operands alike; without it they are real.
    for dtype, req in ((numpy.float64, numpy.complex128), (numpy.float32, numpy.complex64),
                       (numpy.complex64, numpy.complex64), (numpy.int16, numpy.complex128)):
        x = random_array(rng, (5, 7), dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)   # NumPy's nanvar casts
            expected = numpy.asarray(getattr(numpy, fn)(x, axis=1, dtype=req))
        got = getattr(kiln, fn)(kiln.asarray(x), axis=1, dtype=req).get()
        assert got.dtype == expected.dtype
        # Both sides carry the module docstring's var error, (D + 5) u with
        # D <= n - 1 = 6, to first order; std half of it.
        numpy.testing.assert_allclose(got, expected, rtol=2 * 1.01 * 11 * unit_roundoff(req), atol=0)
        assert getattr(kiln, fn)(kiln.asarray(x), axis=1).dtype == getattr(numpy, fn)(x, axis=1).dtype


def test_where_empty_slices_warn():
    # NumPy warns once a where= mask leaves an output without elements (mean)
    # or without more than ddof of them (var, std), counting on the device.
    x = numpy.array([[1.0, 2.0, 5.0], [3.0, 4.0, 6.0]])
    w = numpy.array([[False, False, False], [True, True, False]])
    k, kw = kiln.asarray(x), kiln.asarray(w)
    for fn, kwargs, message in (("mean", {}, "Mean of empty slice"), ("var", {}, "Degrees of freedom"),
                                ("std", {"ddof": 2}, "Degrees of freedom")):
        with pytest.warns(RuntimeWarning, match=message):
            got = getattr(kiln, fn)(k, axis=1, where=kw, **kwargs)
        with numpy.errstate(all="ignore"), pytest.warns(RuntimeWarning, match=message):
            expected = getattr(numpy, fn)(x, axis=1, where=w, **kwargs)
        assert_same_values(got.get(), expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # every output keeps enough elements: no warning
        kiln.mean(k, axis=1, where=kiln.asarray(~w))
        kiln.var(k, axis=1, where=kiln.asarray(w | numpy.array([True, False, False])), ddof=0)
