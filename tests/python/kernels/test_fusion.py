"""kiln.fuse: fused chains against the same calls made one by one (bit for bit)
and against NumPy, over dtypes, layouts, Python and NumPy scalars,
broadcasting, final reductions and the errors of what cannot be fused."""
import collections
import re

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_values, make, name, random_array
from kiln._fusion import fuse   # kiln.fuse once kiln/__init__.py exports it

FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def softplus(x):
    return kiln.maximum(0, x) + kiln.log1p(kiln.exp(-kiln.abs(x)))


def host(v):
    return kiln.asnumpy(v) if isinstance(v, kiln.ndarray) else v


def check_like_eager(fused, *args):
    """The fused call equals the unfused one bit for bit, dtypes, shapes and
    memory order included; returns the fused results."""
    got = fused(*args)
    expected = fused.__wrapped__(*args)
    many = isinstance(expected, tuple)
    assert isinstance(got, tuple) == many
    for g, e in zip(got if many else (got,), expected if many else (expected,)):
        assert type(g) is type(e)
        if isinstance(e, kiln.ndarray):
            assert_same_values(host(g), host(e))
            if e.ndim > 1 and e.size > 1:
                assert (g._c_contiguous, g._f_contiguous) == (e._c_contiguous, e._f_contiguous)
        else:
            assert g == e
    return got


def sources_of(kernel_name):
    """The recorded sources of kernels named kernel_name: the host backend
    records one source holding every path (_contig, _contig4, _strided32,
    _strided64), CUDA one source per path a call needed."""
    return [str(s) for s in kiln._core._recorded_sources()
            if re.search(r"void %s_(contig4?|strided(32|64))\(" % kernel_name, str(s))]


def specs_of(kernel_name):
    """How many kernels (specs) named kernel_name were compiled: each spec
    records each of its paths at most once, on either backend."""
    paths = collections.Counter(path for src in sources_of(kernel_name)
                                for path in set(re.findall(r"void (%s_\w+)\(" % kernel_name, src)))
    return max(paths.values(), default=0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_softplus(rng, dtype, layout):
    base = (rng.standard_normal((6, 8)) * 4).astype(dtype)
    x, xn = make(rng, layout, dtype, base)
    f = fuse(softplus)
    got = check_like_eager(f, x)
    expected = numpy.maximum(0, xn) + numpy.log1p(numpy.exp(-numpy.abs(xn)))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    # exp and log1p are each within 2 ulps of NumPy's (the ufunc headers' bound), max/abs/neg exact.
    numpy.testing.assert_allclose(host(got), expected, rtol=6 * numpy.finfo(dtype).eps, atol=0)


def test_softplus_is_one_kernel(rng):
    f = fuse(kernel_name="softplus_one_kernel")(softplus)
    x = kiln.asarray(rng.standard_normal(100).astype(numpy.float32))
    f(x)
    assert specs_of("softplus_one_kernel") == 1
    for src in sources_of("softplus_one_kernel"):
        for fn in ("maximum", "absolute", "negative", "exp", "log1p", "add"):
            assert "kiln::ufn::%s(" % fn in src
    # the warm call reuses the plan: the function is traced once per argument kind
    traced = []

    def counted(x):
        traced.append(1)
        return x + 1
    g = fuse(counted)
    g(x), g(x + 1), g(x[::2])
    assert len(traced) == 1
    g(x.astype(numpy.float64))
    assert len(traced) == 2


CHAIN_PAIRS = [(numpy.int8, numpy.int8), (numpy.int8, numpy.uint8), (numpy.uint8, numpy.int16),
               (numpy.int32, numpy.float32), (numpy.uint64, numpy.int64), (numpy.bool_, numpy.int8),
               (numpy.float16, numpy.int16), (numpy.float16, numpy.float32),
               (numpy.complex64, numpy.float64), (numpy.int64, numpy.complex128)]


@pytest.mark.parametrize("dx,dy", CHAIN_PAIRS, ids=lambda d: name(d))
def test_mixed_chain_with_python_scalars(rng, dx, dy):
    # + and * round correctly in NumPy and kiln alike: NumPy is a bit-exact oracle here.
    def chain(x, y):
        return kiln.multiply(x + 2, y) * 3 + 1.5
    x, xn = make(rng, "C", dx)
    y, yn = make(rng, "strided", dy)
    xs, xsn = x[:3, :3], xn[:3, :3]
    got = check_like_eager(fuse(chain), xs, y)
    assert_same_values(host(got), numpy.multiply(xsn + 2, yn) * 3 + 1.5)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int64, numpy.float32,
                                   numpy.complex64], ids=name)
def test_python_scalar_arguments(rng, dtype):
    def f(x, s, t):
        return x * s + (s * 2 - t), x // s
    x, xn = make(rng, "C", dtype)
    for s, t in [(3, 1), (5, -2), (2.5, 1), (True, 0)]:
        try:
            expected = f(xn, s, t)
        except TypeError:   # NumPy's no-loop errors (complex //)
            with pytest.raises(TypeError):
                fuse(f)(x, s, t)
            continue
        got = check_like_eager(fuse(f), x, s, t)
        for g, e in zip(got, expected):
            assert_same_values(host(g), e)


def test_python_int_argument_out_of_range():
    f = fuse(lambda x, s: x + s)
    x = kiln.arange(4, dtype=numpy.int8)
    assert_same_values(host(f(x, 100)), numpy.arange(4, dtype=numpy.int8) + 100)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        f(x, 300)
    with pytest.raises(OverflowError):
        fuse(lambda x: x + 300)(x)


def test_host_scalar_result_type_changes():
    # 2 ** s is an int for s >= 0 and a float for s < 0: traced again, as the eager call differs
    f = fuse(lambda x, s: x * 2 ** s)
    x = kiln.arange(5, dtype=numpy.int16)
    xn = numpy.arange(5, dtype=numpy.int16)
    for s in (3, -1, 2):
        assert_same_values(host(check_like_eager(f, x, s)), xn * 2 ** s)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int16, numpy.uint8], ids=name)
def test_numpy_scalar_arguments_and_constants(rng, dtype):
    def f(x, s):
        return x * s + numpy.float16(1.5), s * 2
    x, xn = make(rng, "F", dtype)
    for s in (numpy.int8(3), numpy.float64(0.25), numpy.uint32(7)):
        got = check_like_eager(fuse(f), x, s)
        for g, e in zip(got, f(xn, s)):
            assert_same_values(numpy.asarray(host(g)), numpy.asarray(e))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_broadcasting_and_layouts(rng, layout):
    x, xn = make(rng, layout, numpy.float32)
    y, yn = make(rng, "C", numpy.int16)
    if xn.ndim == 2:
        row, rown = y[:1, :xn.shape[-1]], yn[:1, :xn.shape[-1]]
    else:
        row, rown = y[0, 0], yn[0, 0]

    def f(x, row, xp=kiln):
        return xp.sqrt(x) - row * 2, row + 1
    got = check_like_eager(fuse(f), x, row)
    for g, e in zip(got, f(xn, rown, numpy)):
        assert_same_values(numpy.asarray(host(g)), numpy.asarray(e))


def test_outputs_of_different_shapes():
    a, an = kiln.arange(3.0).reshape(3, 1), numpy.arange(3.0).reshape(3, 1)
    b, bn = kiln.arange(4, dtype=numpy.int32), numpy.arange(4, dtype=numpy.int32)
    f = fuse(lambda a, b: (a * b, a + 1, b - 1))
    got = check_like_eager(f, a, b)
    for g, e in zip(got, (an * bn, an + 1, bn - 1)):
        assert_same_values(host(g), e)
    with pytest.raises(ValueError):
        f(kiln.arange(3.0), b)


def test_fortran_order_follows_eager():
    x = kiln.asarray(numpy.asfortranarray(numpy.arange(12.0).reshape(3, 4)))
    c = kiln.arange(12.0).reshape(3, 4)
    f = fuse(lambda x, y: (x * 2, x + y, kiln.exp(x) * x))
    g = check_like_eager(f, x, c)
    assert g[0]._f_contiguous and not g[0]._c_contiguous
    assert g[1]._c_contiguous
    assert g[2]._f_contiguous and not g[2]._c_contiguous


def test_lambda_and_kernel_name():
    sq = fuse(lambda v: v * v)
    assert sq.kernel_name == "fused_lambda"
    x = kiln.arange(6, dtype=numpy.int32)
    assert_same_values(host(sq(x)), numpy.arange(6, dtype=numpy.int32) ** 2)

    @fuse(kernel_name="fusion_test_squared_diff")   # a name no other test's kernel has
    def squared_diff(x, y):
        return (x - y) * (x - y)
    got = squared_diff(kiln.arange(10), kiln.arange(10)[::-1])
    assert host(got).tolist() == [81, 49, 25, 9, 1, 1, 9, 25, 49, 81]
    assert squared_diff.__name__ == "squared_diff" and specs_of("fusion_test_squared_diff") == 1
    with pytest.raises(ValueError, match="Invalid kernel name"):
        fuse(kernel_name="not an identifier")
    with pytest.raises(TypeError):
        fuse(bad=1)


def test_returns_inputs_constants_and_scalar_only_calls():
    x, y = kiln.arange(3), kiln.arange(3.0)
    f = fuse(lambda x, y, s: (x, y + 1, s, 7, None))
    r = f(x, y, 2.5)
    assert r[0] is x and r[2] == 2.5 and r[3] == 7 and r[4] is None
    same = fuse(lambda x, y: (x * y, x))(x, y)
    assert same[1] is x
    z = fuse(lambda x: (x + 1, x + 1))(x)
    assert z[0] is not z[1]
    t = kiln.arange(3)
    pair = fuse(lambda x: (lambda u: (u, u))(x * 2))(t)
    assert pair[0] is pair[1]
    assert fuse(lambda a, b: a + b)(2, 3) == 5     # no kiln array: the function runs as it is
    assert fuse(lambda a, b: a / b)(numpy.float32(1), 3).dtype == numpy.float32


def test_multiple_output_ufuncs_astype_dtype_and_comparisons(rng):
    x, xn = make(rng, "C", numpy.float32)
    i, i_n = make(rng, "negative", numpy.uint8)

    def f(x, i):
        frac, whole = kiln.modf(x)
        q, r = divmod(x, 3)
        m, e = kiln.frexp(x)
        return (frac, whole, q, r, m, e, (x * 2).astype(numpy.int16) + 1,
                kiln.add(i, i, dtype=numpy.float64), i > -1, i == 300, i < 255, kiln.logical_not(i))
    got = check_like_eager(fuse(f), x[:6, :4], i)
    expected = (*numpy.modf(xn[:6, :4]), *divmod(xn[:6, :4], 3), *numpy.frexp(xn[:6, :4]),
                (xn[:6, :4] * 2).astype(numpy.int16) + 1, numpy.add(i_n, i_n, dtype=numpy.float64),
                i_n > -1, i_n == 300, i_n < 255, numpy.logical_not(i_n))
    for g, e in zip(got, expected):
        assert_same_values(host(g), e)


def test_inplace_operators():
    def f(x):
        t = x * 2
        u = t
        t += 1.0 if x.dtype.kind == "f" else 1
        t -= x
        return u, t
    for dt in (numpy.int16, numpy.float32):
        x = kiln.arange(6, dtype=dt)
        got = check_like_eager(fuse(f), x)
        assert_same_values(host(got[0]), f(numpy.arange(6, dtype=dt))[0])

    def casts(x):
        t = x * 2
        t += 1.5
        return t
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        fuse(casts)(kiln.arange(3))
    x = kiln.arange(3)   # an argument is written in place (test_fusion_stores.py)
    assert fuse(lambda x: x.__iadd__(1))(x) is x and host(x).tolist() == [1, 2, 3]


def _reduction_tolerance(dtype, values):
    """Float sums are in another order than NumPy's pairwise summation: each
    differs from the exact sum by at most n * eps * sum(|x|)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        return 0
    eps = numpy.finfo(dtype).eps
    return 2 * values.size * eps * float(numpy.abs(values.astype(numpy.complex128)).sum())


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_final_reductions(rng, dtype, axis):
    x, xn = make(rng, "strided" if axis == 0 else "C", dtype)
    for method in ("sum", "prod", "max", "min"):
        if method == "prod" and numpy.dtype(dtype).kind in "fc":
            # products of 48 values up to 100 overflow: values in [1, 1.1) keep them finite
            xn_, x_ = xn / 1000 + 1, x / 1000 + 1
        else:
            xn_, x_ = xn, x
        f = fuse(lambda v, m=method: getattr(v * 1, m)(axis=axis))
        got = host(f(x_))
        expected = getattr(xn_ * 1, method)(axis=axis)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        pre = xn_ * 1
        if method == "sum":
            tol = _reduction_tolerance(expected.dtype, pre)
            assert numpy.all(numpy.abs(got.astype(numpy.complex128) - expected) <= tol), (got, expected)
        elif method == "prod" and expected.dtype.kind in "fc":
            numpy.testing.assert_allclose(got, expected, rtol=2 * pre.size * numpy.finfo(expected.dtype).eps)
        else:
            assert_same_values(got, expected)


def test_reduction_keepdims_dtype_large_and_empty(rng):
    xn = rng.standard_normal((3, 1000)).astype(numpy.float32)
    x = kiln.asarray(xn)
    got = host(fuse(lambda v: kiln.exp(v).sum(axis=1, keepdims=True))(x))
    expected = numpy.exp(xn).sum(axis=1, keepdims=True)
    assert got.shape == (3, 1) and got.dtype == numpy.float32
    assert numpy.all(numpy.abs(got - expected) <= _reduction_tolerance(numpy.float32, numpy.exp(xn)))
    big = kiln.arange(200000, dtype=numpy.int64)
    assert int(host(fuse(lambda v: (v * 3).sum())(big))) == 3 * 199999 * 200000 // 2
    assert host(fuse(lambda v: (-v).max())(big)) == 0
    i8 = kiln.arange(100, dtype=numpy.int8)
    r = host(fuse(lambda v: v.sum(dtype=numpy.int8))(i8))
    assert_same_values(r, numpy.arange(100, dtype=numpy.int8).sum(dtype=numpy.int8))
    nan = kiln.asarray(numpy.array([1.0, numpy.nan, 3.0]))
    assert numpy.isnan(host(fuse(lambda v: v.max())(nan)))
    empty = kiln.empty((0, 3), numpy.float32)
    assert_same_values(host(fuse(lambda v: v.sum())(empty)), numpy.float32(0).reshape(()))
    assert_same_values(host(fuse(lambda v: v.prod(axis=0))(empty)), numpy.ones(3, numpy.float32))
    assert host(fuse(lambda v: v.max(axis=1))(empty)).shape == (0,)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        fuse(lambda v: v.max())(empty)
    with pytest.raises(numpy.exceptions.AxisError):
        fuse(lambda v: v.sum(axis=2))(x)
    two = fuse(lambda a, b: ((a * b).sum(), a - b))(x, x)
    assert_same_values(host(two[1]), numpy.zeros_like(xn))


def test_errors(rng):
    x = kiln.arange(4.0)
    captured = kiln.arange(4.0)

    def branch(v):
        if v > 0:
            return v
        return -v
    with pytest.raises(TypeError, match="cannot fuse 'fused_branch': the truth value"):
        fuse(branch)(x)
    with pytest.raises(TypeError, match="not an argument"):
        fuse(lambda v: v + captured)(x)
    with pytest.raises(TypeError, match="not an argument"):
        fuse(lambda v: kiln.add(captured, v))(x)
    with pytest.raises(TypeError, match="NumPy array"):
        fuse(lambda v, w: v + w)(x, numpy.arange(4.0))
    with pytest.raises(TypeError, match="out="):
        fuse(lambda v: kiln.add(v, 1, x))(x)
    with pytest.raises(TypeError, match="where="):
        fuse(lambda v: kiln.add(v, 1, where=True))(x)
    with pytest.raises(TypeError, match="does not support ufuncs"):
        fuse(lambda v: numpy.exp(v))(x)
    with pytest.raises(TypeError, match="converted to a Python number"):
        fuse(lambda v: float(v))(x)
    with pytest.raises(TypeError, match="indexing"):   # arguments can be indexed: test_fusion_stores.py
        fuse(lambda v: (v + 1)[0])(x)
    with pytest.raises(TypeError, match="shape"):
        fuse(lambda v: v.shape)(x)
    with pytest.raises(TypeError, match="positional"):
        fuse(lambda v: v)(v=x)
    with pytest.raises(TypeError, match="returns a list"):
        fuse(lambda v: [v])(x)
    # NumPy's own loop errors, as the eager call raises them
    with pytest.raises(TypeError):
        fuse(lambda v: kiln.bitwise_and(v, 1))(x)
    # ufuncs work as usual after (and outside) tracing
    assert_same_values(host(kiln.add(x, 1)), numpy.arange(4.0) + 1)
    assert kiln._core.ufunc.__call__ is not None and "tracing" not in kiln._core.ufunc.__call__.__name__


def test_tracing_leaves_the_ufunc_class_alone():
    """Tracing routes ufunc calls through the C++ hook, never by reassigning
    ufunc.__call__ (which would turn its C call slot into a generic lookup)."""
    before = kiln._core.ufunc.__dict__["__call__"]
    f = kiln.fuse(lambda x: kiln.add(kiln.multiply(x, 2), 1))
    x = kiln.arange(5, dtype=kiln.float32)
    numpy.testing.assert_array_equal(f(x).get(), numpy.arange(5, dtype=numpy.float32) * 2 + 1)
    assert kiln._core.ufunc.__dict__["__call__"] is before
    numpy.testing.assert_array_equal(kiln.add(x, 1).get(), numpy.arange(5, dtype=numpy.float32) + 1)


@pytest.mark.parametrize("method", ["sum", "prod", "max", "min"])
def test_reduction_axes_keepdims_and_arguments_reduced_directly(rng, method):
    xn = rng.integers(-5, 6, (2, 3, 4)).astype(numpy.int16)
    x = kiln.asarray(xn)
    for axis in [(0, 2), (2, 0), -2, None]:
        for keepdims in (False, True):
            got = host(fuse(lambda v: getattr(v, method)(axis=axis, keepdims=keepdims))(x))
            assert_same_values(got, getattr(xn, method)(axis=axis, keepdims=keepdims))
            got = host(fuse(lambda v: getattr(v - 1, method)(axis=axis, keepdims=keepdims))(x))
            assert_same_values(got, getattr(xn - 1, method)(axis=axis, keepdims=keepdims))
    if method in ("sum", "prod"):
        got = host(fuse(lambda v: getattr(v, method)(axis=1, dtype=numpy.float64))(x))
        assert_same_values(got, getattr(xn, method)(axis=1, dtype=numpy.float64))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        fuse(lambda v: getattr(v, method)(axis=(0, -3)))(x)
    # reductions used again (Note [Reductions used inside]): test_fusion_stores.py
    got = host(fuse(lambda v: getattr(getattr(v, method)(axis=0), method)().astype(numpy.float32))(x))
    assert_same_values(got, getattr(getattr(xn, method)(axis=0), method)().astype(numpy.float32))


def test_float16_sum_accumulates_in_float32():
    xn = numpy.full(3000, 0.1, dtype=numpy.float16)
    got = host(fuse(lambda v: v.sum())(kiln.asarray(xn)))
    assert got.dtype == numpy.float16
    numpy.testing.assert_allclose(float(got), float(xn.astype(numpy.float32).sum()), rtol=1e-3)


@pytest.mark.parametrize("s", [True, 3, -2.5, 1 + 2j, numpy.bool_(True), numpy.int64(-4), numpy.float32(0.5),
                               numpy.complex64(1j)], ids=repr)
def test_scalar_kinds_as_arguments_host_values_and_constants(rng, s):
    x, xn = make(rng, "C", numpy.float32)

    def f(x, s, xp=kiln):
        # s * 2 runs on the host; xp.add(s, 1) (no array) and the constant run in the kernel
        return x * s + (s * 2), xp.add(s, 1), x - numpy.complex64(1) * 0 + s
    got = check_like_eager(fuse(f), x, s)
    for g, e in zip(got, f(xn, s, numpy)):
        assert_same_values(numpy.asarray(host(g)), numpy.asarray(e))


def test_numpy_scalar_host_values_are_read_by_the_kernel():
    def f(x, s):
        t = s.astype(numpy.float16) * 3   # host: a float16 NumPy scalar
        return x + t, t
    x = kiln.arange(4, dtype=numpy.float32)
    got = check_like_eager(fuse(f), x, numpy.int8(7))
    assert got[1] == numpy.float16(21) and type(got[1]) is numpy.float16


def test_integer_literals_at_the_ends_of_their_range():
    u = kiln.arange(3, dtype=numpy.uint64)
    i = kiln.arange(3, dtype=numpy.int64)
    check_like_eager(fuse(lambda x: x + 2 ** 63), u)
    check_like_eager(fuse(lambda x: (x * 0 + (-2 ** 63), x + (2 ** 63 - 1))), i)
    check_like_eager(fuse(lambda x: (x == 2 ** 64, x > -1, x < -2 ** 70)), kiln.arange(3, dtype=numpy.uint8))


def test_traced_values_show_dtype_and_ndim_and_bad_arguments():
    seen = []

    def f(x, y):
        t = x + y
        seen.append((t.dtype, t.ndim, (x * 1.5).dtype))
        return t
    fuse(f)(kiln.arange(6, dtype=numpy.int8).reshape(2, 3), kiln.arange(3, dtype=numpy.int16))
    assert seen == [(numpy.dtype(numpy.int16), 2, numpy.dtype(numpy.float64))]
    with pytest.raises(TypeError, match="unsupported type list"):
        fuse(lambda v, w: v + 1)(kiln.arange(3), [1, 2])

    def grows(x, y):
        t = x * 1
        t += y
        return t
    with pytest.raises(TypeError, match="broadcasts its target"):
        fuse(grows)(kiln.arange(3), kiln.arange(6).reshape(2, 3))
    with pytest.raises(TypeError, match="an operand of type list"):
        fuse(lambda v: kiln.add(v, [1, 2, 3]))(kiln.arange(3))
