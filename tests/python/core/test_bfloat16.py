"""The bfloat16 dtype (ml_dtypes.bfloat16, as CuPy 14 supports it) against NumPy + ml_dtypes:
round trips over layouts, casts, promotion, ufunc loops, reductions, matmul, interop."""
import numpy
import pytest

import kiln

from conftest import LAYOUTS, assert_same_bits as _same_bits, make, same_error

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = numpy.dtype(ml_dtypes.bfloat16)
TOL = float(ml_dtypes.finfo(BF16).eps)
KILN_DTYPES = [numpy.dtype(c) for c in "?bBhHiIlLefdFD"]
SPECIAL = numpy.array([0.0, -0.0, 1, -1, 2, 100, 0.5, -0.5, 10.0, -10.0, 3.0e38, 1e-40,
                       numpy.inf, -numpy.inf, numpy.nan], dtype=BF16)


def assert_same_bits(got, expected, any_nan=False):
    """conftest's assert_same_bits, bfloat16 (kind 'V' in NumPy) compared as its 16 bits;
    with any_nan, a NaN matches any NaN (arithmetic NaNs are the hardware's)."""
    if expected.dtype != BF16:
        return _same_bits(got, expected)
    assert got.dtype == BF16 and got.shape == expected.shape
    g, e = got.reshape(-1).view(numpy.uint16), expected.reshape(-1).view(numpy.uint16)
    if any_nan:
        nan = (e & 0x7fff) > 0x7f80
        numpy.testing.assert_array_equal((g & 0x7fff) > 0x7f80, nan)
        g, e = g[~nan], e[~nan]
    numpy.testing.assert_array_equal(g, e)


def base(rng):
    return (rng.standard_normal((6, 8)) * 10).astype(BF16)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_round_trip_and_copy_over_layouts(rng, layout):
    k, n = make(rng, layout, BF16, base=base(rng))
    assert k.dtype == BF16 and k.shape == n.shape
    assert_same_bits(k.get(), n)
    assert_same_bits(kiln.asnumpy(k.copy()), n.copy())
    assert_same_bits(kiln.asnumpy(-k), -n)


def test_scalars_and_printing():
    n = numpy.array([1.5, -2.0, numpy.nan], dtype=BF16)
    k = kiln.asarray(n)
    assert repr(k) == repr(n) and str(k) == str(n)
    assert float(k[0]) == 1.5 and k[1].item() == n[1].item()
    assert_same_bits(kiln.asnumpy(k + ml_dtypes.bfloat16(2)), n + ml_dtypes.bfloat16(2), any_nan=True)
    assert kiln.zeros(3, dtype=BF16).dtype == BF16 and kiln.full(2, 3.0, dtype=BF16).get().tolist() == [3, 3]


@pytest.mark.parametrize("start,stop,step", [(0, 10, 1), (0, 50, 0.5), (1.1, 3.3, 0.3), (0, 10, -1)])
def test_arange(start, stop, step):
    assert_same_bits(kiln.arange(start, stop, step, dtype=BF16).get(), numpy.arange(start, stop, step, dtype=BF16))


@pytest.mark.parametrize("other", KILN_DTYPES, ids=str)
def test_casts_match_ml_dtypes(other):
    # To bfloat16: values with round-to-even ties and NaN; from it: what fits `other`.
    if other.kind in "fc":
        src = numpy.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-30, -(2**-130), 3.5e38, numpy.nan, -numpy.inf])
        src = src.astype(other)
    elif other.kind == "b":
        src = numpy.array([True, False])
    else:
        src = numpy.array([0, 1, 7, 100, 127], other)
    with numpy.errstate(all="ignore"):
        assert_same_bits(kiln.asarray(src).astype(BF16).get(), src.astype(BF16))
        finite = SPECIAL[numpy.isfinite(SPECIAL) & (numpy.abs(SPECIAL.astype("f4")) < 100)]
        src = finite if other.kind in "biu" else SPECIAL
        if other.kind == "u":
            src = numpy.abs(src)
        assert_same_bits(kiln.asarray(src).astype(other).get(), src.astype(other))
    out = kiln.zeros(src.shape, dtype=BF16)
    kiln.copyto(out, kiln.asarray(src), casting="unsafe")
    assert_same_bits(out.get(), src.astype(BF16))


@pytest.mark.parametrize("other", KILN_DTYPES, ids=str)
def test_promotion_and_casting_rules(other):
    for a, b in [(BF16, other), (other, BF16)]:
        try:
            expected = numpy.promote_types(a, b)
        except TypeError:
            same_error(lambda: kiln.promote_types(a, b), lambda: numpy.promote_types(a, b))
        else:
            assert kiln.promote_types(a, b) == expected
        for casting in ["no", "equiv", "safe", "same_kind", "unsafe"]:
            assert kiln.can_cast(a, b, casting) == numpy.can_cast(a, b, casting), (a, b, casting)


def test_mixed_operands():
    n = numpy.array([1.5, -2.25, 3.0], dtype=BF16)
    k = kiln.asarray(n)
    # Python ints and complex as NumPy + ml_dtypes; a Python float stays bfloat16 (NEP 50;
    # NumPy + ml_dtypes's loop search gives float32 there).
    assert_same_bits((k + 1).get(), n + 1)
    assert (k * 2j).dtype == (n * 2j).dtype == numpy.complex64
    assert (k * 2.5).dtype == BF16
    for d in ["?", "b", "B", "h", "e", "f", "d", "i", "q"]:
        m = numpy.array([1, 2, 3], dtype=d)
        assert_same_bits((k + kiln.asarray(m)).get(), n + m)
    with pytest.raises(numpy.exceptions.DTypePromotionError):
        kiln.result_type(BF16, numpy.float16)


UNARY = ["positive", "negative", "absolute", "fabs", "sign", "sqrt", "cbrt", "square", "reciprocal",
         "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
         "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg",
         "rint", "floor", "ceil", "trunc", "conjugate", "spacing",
         "isnan", "isinf", "isfinite", "signbit", "degrees"]


@pytest.mark.parametrize("func", UNARY)
def test_unary(func):
    n = SPECIAL[:-1] if func == "spacing" else SPECIAL
    with numpy.errstate(all="ignore"):
        expected = getattr(numpy, func)(n)
        got = getattr(kiln, func)(kiln.asarray(n)).get()
    assert got.dtype == expected.dtype
    numpy.testing.assert_allclose(got.astype("f8"), expected.astype("f8"), rtol=TOL, atol=TOL)


BINARY = ["add", "subtract", "multiply", "divide", "power", "floor_divide", "remainder", "fmod", "hypot",
          "arctan2", "logaddexp", "logaddexp2", "heaviside", "copysign", "nextafter", "maximum", "minimum",
          "fmax", "fmin", "greater", "less_equal", "equal", "not_equal", "logical_and"]


@pytest.mark.parametrize("func", BINARY)
def test_binary_broadcast_and_negative_strides(func):
    x = SPECIAL[::-1]
    with numpy.errstate(all="ignore"):
        expected = getattr(numpy, func)(x, x[:, None])
        got = getattr(kiln, func)(kiln.asarray(SPECIAL)[::-1], kiln.asarray(x)[:, None]).get()
    assert got.dtype == expected.dtype
    exact = func in {"copysign", "nextafter", "maximum", "minimum", "fmax", "fmin"} or expected.dtype == bool
    tol = 0 if exact else TOL
    numpy.testing.assert_allclose(got.astype("f8"), expected.astype("f8"), rtol=tol, atol=tol)


def test_two_output_and_mixed_loops():
    n = SPECIAL[numpy.isfinite(SPECIAL)]
    k = kiln.asarray(n)
    for got, expected in zip(kiln.modf(k) + kiln.frexp(k) + kiln.divmod(k, k[::-1]),
                             numpy.modf(n) + numpy.frexp(n) + numpy.divmod(n, n[::-1])):
        assert_same_bits(got.get(), expected, any_nan=True)
    e = numpy.array([1, 2, -1, 3, 0, 5, 6, 7, 8, 9, 10, 11], "i4")
    assert_same_bits(kiln.ldexp(k, kiln.asarray(e)).get(), numpy.ldexp(n, e))
    assert kiln.ldexp(k, kiln.asarray(e.astype("i8"))).dtype == numpy.ldexp(n, e.astype("i8")).dtype


def test_composed_functions():
    n = SPECIAL[numpy.isfinite(SPECIAL) & (numpy.abs(SPECIAL.astype("f4")) < 1e30)]
    k = kiln.asarray(n)
    got, expected = kiln.clip(k, 1, 4), numpy.clip(n, 1, 4)   # no bfloat16 loop in NumPy: float32
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got.get(), expected)
    # sinc and i0 keep bfloat16 (NumPy: float32 and float64), as CuPy; angle is bfloat16 in both.
    for f in ("sinc", "i0", "angle"):
        got, expected = getattr(kiln, f)(k), getattr(numpy, f)(n).astype(BF16)
        assert got.dtype == BF16
        numpy.testing.assert_allclose(got.get().astype("f4"), expected.astype("f4"), rtol=TOL, atol=TOL)


@pytest.mark.parametrize("func", ["sum", "prod", "min", "max", "mean", "nansum", "nanmin", "nanmax",
                                  "cumsum"])
@pytest.mark.parametrize("axis", [None, 1])
def test_reductions_accumulate_in_float32(func, axis):
    n = (numpy.random.default_rng(3).uniform(0.5, 2, (4, 1000))).astype(BF16)
    n[1, 7] = numpy.nan
    with numpy.errstate(all="ignore"):
        expected = getattr(numpy, func)(n.astype("f4"), axis=axis).astype(BF16)
        got = getattr(kiln, func)(kiln.asarray(n), axis=axis)
    assert got.dtype == BF16 and got.shape == expected.shape
    numpy.testing.assert_allclose(got.get().astype("f4"), expected.astype("f4"), rtol=2 * TOL, atol=TOL)


def test_reduction_dtype_and_empty():
    n = numpy.arange(12, dtype="f4").reshape(3, 4)
    assert kiln.sum(kiln.asarray(n), axis=1, dtype=BF16).dtype == BF16
    assert kiln.asarray(n).astype(BF16).sum(axis=0).get().tolist() == n.sum(axis=0).tolist()
    assert_same_bits(kiln.zeros((0, 3), BF16).sum(axis=0).get(), numpy.zeros((0, 3), BF16).sum(axis=0))
    same_error(lambda: kiln.zeros(0, BF16).max(), lambda: numpy.zeros(0, BF16).max())


@pytest.mark.parametrize("shapes", [((7, 300), (300, 5)), ((3000,), (3000,))])
def test_matmul_and_dot_accumulate_in_float32(shapes):
    rng = numpy.random.default_rng(5)
    a, b = (rng.uniform(0, 1, s).astype(BF16) for s in shapes)
    expected = numpy.matmul(a.astype("f4"), b.astype("f4")).astype(BF16)
    for f in (kiln.matmul, kiln.dot):
        got = f(kiln.asarray(a), kiln.asarray(b))
        assert got.dtype == BF16
        numpy.testing.assert_allclose(got.get().astype("f4"), expected.astype("f4"), rtol=TOL)


def test_dlpack_and_cuda_array_interface(on_gpu):
    k = kiln.asarray(SPECIAL)
    back = kiln.from_dlpack(k)
    assert back.dtype == BF16 and back.data.ptr == k.data.ptr
    assert_same_bits(back.get(), SPECIAL)
    if on_gpu:
        assert k.__cuda_array_interface__["typestr"] == SPECIAL.__array_interface__["typestr"]


def test_other_user_dtypes_are_rejected():
    # float8_e4m3b11fnuz's char is 'L' (uint64's too): its kind 'V' tells them apart.
    for t in [ml_dtypes.float8_e4m3b11fnuz, ml_dtypes.float8_e4m3fn]:
        with pytest.raises(ValueError, match="Unsupported dtype"):   # CuPy's exception
            kiln.asarray(numpy.zeros(2, dtype=t))


def test_linalg_refuses_and_fft_runs_in_single_precision():
    n = numpy.eye(2, dtype=BF16)
    with pytest.raises(TypeError, match="array type bfloat16 is unsupported in linalg"):
        kiln.linalg.inv(kiln.asarray(n))
    got, expected = kiln.fft.fft(kiln.asarray(n)).get(), numpy.fft.fft(n)
    assert got.dtype == expected.dtype
    numpy.testing.assert_allclose(got, expected, atol=1e-6)
