"""kiln's functions built on the ufuncs (kiln/_math_functions.py,
kiln/_rounding.py) against NumPy 2.4: values bit for bit (i0 within the
bound its header states), dtypes, special values, layouts, errors."""
import ctypes
import ctypes.util
import warnings

import numpy
import pytest

import kiln
from kiln import _math_functions as mf
from kiln import _rounding as rd
from conftest import ALL_DTYPES, LAYOUTS, assert_same_values, make, name, random_array
from test_ufuncs import real_bound, real_mismatches

FLOATS = [numpy.float16, numpy.float32, numpy.float64]
COMPLEX = [numpy.complex64, numpy.complex128]
INEXACT = FLOATS + COMPLEX


def special_base(rng, dtype):
    """6x8 values of `dtype`: random ones with NaN, +-inf, +-0.0 and halves
    (round-half-even cases) placed among them for inexact dtypes."""
    dtype = numpy.dtype(dtype)
    base = random_array(rng, (6, 8), dtype)
    if dtype.kind in "fc":
        specials = [numpy.nan, -numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 0.5, 2.5, -1.5, 25.0,
                    -35.0, 0.125]
        flat = base.reshape(-1)
        flat[1:48:4] = specials
        if dtype.kind == "c":
            flat[2:40:6] = [complex(1, numpy.nan), complex(numpy.inf, -0.0), complex(-0.0, 2.5),
                            complex(numpy.nan, numpy.inf), complex(-1.5, -numpy.inf),
                            complex(0.0, 0.0), complex(2.5, -numpy.nan)]
    return base


def numpy_result(fn, *args, **kwargs):
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return numpy.asarray(fn(*args, **kwargs))


def both_raise(exc, np_fn, kn_fn):
    with pytest.raises(exc) as np_info, numpy.errstate(all="ignore"):
        np_fn()
    with pytest.raises(exc) as kn_info:
        kn_fn()
    return np_info, kn_info


# ---- around / round / fix -------------------------------------------------

@pytest.mark.parametrize("decimals", [-2, 0, 1, 3])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_around(rng, dtype, decimals):
    k, n = make(rng, "C", dtype, special_base(rng, dtype))
    if numpy.dtype(dtype).kind == "b" and decimals != 0:      # decimals=0 is rint: float16
        both_raise(TypeError, lambda: numpy.round(n, decimals), lambda: rd.around(k, decimals))
        return
    assert_same_values(rd.around(k, decimals).get(), numpy_result(numpy.round, n, decimals))
    assert_same_values(k.round(decimals).get(), numpy_result(numpy.round, n, decimals))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.complex128], ids=name)
def test_around_layouts(rng, dtype, layout):
    k, n = make(rng, layout, dtype, special_base(rng, dtype))
    assert_same_values(rd.round(k, -1).get(), numpy_result(numpy.round, n, -1))
    assert_same_values(rd.round(k, 2).get(), numpy_result(numpy.round, n, 2))


@pytest.mark.parametrize("decimals", [9, 23, 30, 40, 400, -23, -400])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.int64],
                         ids=name)
def test_around_far_decimals(rng, dtype, decimals):
    # 10**n is built as NumPy builds it (repeated * 10 past 1e8, inf past
    # the double range): bits equal even where 10.0**n differs.
    k, n = make(rng, "C", dtype, special_base(rng, dtype) * 1000)
    assert_same_values(rd.around(k, decimals).get(), numpy_result(numpy.round, n, decimals))


@pytest.mark.parametrize("src,dst,decimals", [
    (numpy.float32, numpy.float64, 1), (numpy.float64, numpy.float32, 2),
    (numpy.int8, numpy.float32, -1), (numpy.int8, numpy.int16, 2), (numpy.bool_, numpy.float64, -1),
    (numpy.complex64, numpy.complex128, 1), (numpy.float32, numpy.complex128, 1),
    (numpy.float16, numpy.float32, 3)])
def test_around_out(rng, src, dst, decimals):
    k, n = make(rng, "C", src, special_base(rng, src))
    kout, nout = kiln.zeros(n.shape, dst), numpy.zeros(n.shape, dst)
    got = rd.around(k, decimals, out=kout)
    numpy_result(numpy.round, n, decimals, out=nout)
    assert got is kout
    assert_same_values(kout.get(), nout)


@pytest.mark.parametrize("src,dst,decimals", [
    (numpy.int8, numpy.uint8, 2), (numpy.int8, numpy.int8, -1), (numpy.float64, numpy.int32, 1),
    (numpy.complex64, numpy.float64, 1), (numpy.bool_, numpy.bool_, 0)])
def test_around_out_errors(rng, src, dst, decimals):
    k, n = make(rng, "C", src)
    both_raise(TypeError, lambda: numpy.round(n, decimals, out=numpy.zeros(n.shape, dst)),
               lambda: rd.around(k, decimals, out=kiln.zeros(n.shape, dst)))


def test_around_bad_decimals():
    k = kiln.arange(3.0)
    np_info, kn_info = both_raise(TypeError, lambda: numpy.round(numpy.arange(3.0), 1.5),
                                  lambda: rd.around(k, 1.5))
    assert str(np_info.value) == str(kn_info.value)
    both_raise(TypeError, lambda: numpy.round(numpy.arange(3.0), None), lambda: rd.around(k, None))
    with pytest.raises(TypeError, match="kiln.asarray"):
        rd.around(numpy.arange(3.0))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_fix(rng, dtype):
    k, n = make(rng, "negative", dtype, special_base(rng, dtype))
    if numpy.dtype(dtype).kind == "c":
        both_raise(TypeError, lambda: numpy.fix(n), lambda: rd.fix(k))
        return
    assert_same_values(rd.fix(k).get(), numpy_result(numpy.fix, n))


# ---- clip ---------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_clip_scalar_bounds(rng, dtype, layout):
    k, n = make(rng, layout, dtype, special_base(rng, dtype))
    lo, hi = (False, True) if numpy.dtype(dtype).kind == "b" else (n.dtype.type(0), n.dtype.type(50))
    assert_same_values(mf.clip(k, lo, hi).get(), numpy_result(numpy.clip, n, lo, hi))
    assert_same_values(k.clip(lo, hi).get(), numpy_result(n.clip, lo, hi))
    assert_same_values(mf.clip(k, None, hi).get(), numpy_result(numpy.clip, n, None, hi))
    assert_same_values(mf.clip(k, min=lo).get(), numpy_result(numpy.clip, n, min=lo))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_clip_array_bounds(rng, dtype):
    k, n = make(rng, "C", dtype, special_base(rng, dtype))
    nlo = special_base(rng, dtype)[:, :1]            # broadcast along the last axis
    nhi = special_base(rng, dtype)[0] + n.dtype.type(1 if n.dtype.kind == "b" else 20)
    klo, khi = kiln.asarray(nlo), kiln.asarray(nhi)
    assert_same_values(mf.clip(k, klo, khi).get(), numpy_result(numpy.clip, n, nlo, nhi))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_clip_nan_and_signed_zero(dtype):
    # Every combination of x, a_min, a_max among the special values, with
    # scalar bounds and with array bounds (NumPy's two loops differ on ties).
    vals = numpy.array([-0.0, 0.0, numpy.nan, -numpy.nan, 1.0, -1.0, numpy.inf, -numpy.inf], dtype)
    x, lo, hi = (a.reshape(-1) for a in numpy.meshgrid(vals, vals, vals, indexing="ij"))
    kx = kiln.asarray(x)
    assert_same_values(mf.clip(kx, kiln.asarray(lo), kiln.asarray(hi)).get(),
                     numpy_result(numpy.clip, x, lo, hi))
    for a in vals:
        for b in vals:
            assert_same_values(mf.clip(kiln.asarray(vals), a, b).get(),
                             numpy_result(numpy.clip, vals, a, b))


@pytest.mark.parametrize("dtype", COMPLEX, ids=name)
def test_clip_complex_nan_and_signed_zero(dtype):
    # Every x, a_min, a_max among complex numbers made of these parts: NaN
    # in either part of a bound, ties of +-0, array and scalar bounds.
    parts = [0.0, -0.0, 1.0, -1.0, numpy.nan, numpy.inf]
    vals = numpy.array([complex(r, i) for r in parts for i in parts], dtype)
    x, lo, hi = (a.reshape(-1) for a in numpy.meshgrid(vals, vals, vals, indexing="ij"))
    assert_same_values(mf.clip(kiln.asarray(x), kiln.asarray(lo), kiln.asarray(hi)).get(),
                       numpy_result(numpy.clip, x, lo, hi))
    kv = kiln.asarray(vals)
    for a in vals[::5]:
        for b in vals[::5]:
            assert_same_values(mf.clip(kv, a, b).get(), numpy_result(numpy.clip, vals, a, b))


@pytest.mark.parametrize("a_min,a_max", [(2, 300), (-300, 5), (2.5, 10), (None, None),
                                         (numpy.int16(2), None), (numpy.uint64(2), 10), (0, 0)])
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.bool_], ids=name)
def test_clip_promotion(rng, dtype, a_min, a_max):
    k, n = make(rng, "C", dtype)
    if dtype == numpy.bool_ and (a_min, a_max) == (None, None):
        both_raise(TypeError, lambda: numpy.clip(n, None, None), lambda: mf.clip(k, None, None))
        return
    assert_same_values(mf.clip(k, a_min, a_max).get(), numpy_result(numpy.clip, n, a_min, a_max))


def test_clip_out(rng):
    k, n = make(rng, "C", numpy.float32, special_base(rng, numpy.float32))
    kout, nout = kiln.zeros(n.shape, numpy.float64), numpy.zeros(n.shape, numpy.float64)
    assert mf.clip(k, 1.0, 5.0, out=kout) is kout
    numpy.clip(n, 1.0, 5.0, out=nout)
    assert_same_values(kout.get(), nout)
    assert mf.clip(k, 1.0, 5.0, out=k) is k                      # in place
    assert_same_values(k.get(), numpy.clip(n, 1.0, 5.0))


def test_clip_errors():
    k, n = kiln.asarray(numpy.int8([1, 5, 100])), numpy.int8([1, 5, 100])
    for np_fn, kn_fn, exc in [
            (lambda: numpy.clip(n, 2), lambda: mf.clip(k, 2), TypeError),
            (lambda: numpy.clip(n, 2, 3, min=1), lambda: mf.clip(k, 2, 3, min=1), ValueError),
            (lambda: numpy.clip(n, 300, 5), lambda: mf.clip(k, 300, 5), OverflowError),
            (lambda: numpy.clip(n, 3, 5, out=numpy.empty(3, numpy.uint8)),
             lambda: mf.clip(k, 3, 5, out=kiln.empty(3, numpy.uint8)), TypeError),
            (lambda: numpy.clip(n, 3.5, 5, out=numpy.empty(3, numpy.int8)),
             lambda: mf.clip(k, 3.5, 5, out=kiln.empty(3, numpy.int8)), TypeError),
            (lambda: numpy.clip(n, 3, 5, out=numpy.empty(2, numpy.int8)),
             lambda: mf.clip(k, 3, 5, out=kiln.empty(2, numpy.int8)), ValueError)]:
        np_info, kn_info = both_raise(exc, np_fn, kn_fn)
        if exc is not ValueError:
            assert str(np_info.value) == str(kn_info.value)


# ---- where --------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_where(rng, dtype, layout):
    k, n = make(rng, layout, dtype, special_base(rng, dtype))
    kc, nc = make(rng, layout, numpy.float32, special_base(rng, numpy.float32))  # NaN is true
    ky, ny = make(rng, layout, numpy.int16)
    assert_same_values(mf.where(kc, k, ky).get(), numpy.where(nc, n, ny))
    assert_same_values(mf.where(k, 1.5, k).get(), numpy.where(n, 1.5, n))


@pytest.mark.parametrize("x,y", [(numpy.int8(1), 2.5), (1, 2), (True, 2), (1j, numpy.float32(2)),
                                 (300, "int8 array"), (-1, "uint8 array")])
def test_where_scalars(rng, x, y):
    c = numpy.array([[True], [False]])
    if isinstance(y, str):
        # A Python int out of the array's range: OverflowError, as NumPy 2.5
        # (2.4 wrapped it; Note in arraycore/math_functions.cpp's where).
        ny = numpy.arange(3, dtype=y.split()[0])
        with pytest.raises(OverflowError, match="Python integer %d out of bounds for %s" % (x, ny.dtype)):
            mf.where(kiln.asarray(c), x, kiln.asarray(ny))
        return
    assert_same_values(mf.where(kiln.asarray(c), x, y).get(), numpy.where(c, x, y))
    assert_same_values(mf.where(True, x, y).get(), numpy.asarray(numpy.where(True, x, y)))


def test_where_errors():
    c = kiln.asarray(numpy.array([True, False]))
    (positions,) = mf.where(c)  # where(condition) alone is nonzero(condition)
    assert positions.get().tolist() == [0]
    both_raise(ValueError, lambda: numpy.where(numpy.array([True]), 1), lambda: mf.where(c, 1))
    both_raise(ValueError, lambda: numpy.where(numpy.ones(2, bool), numpy.ones(3), 0),
               lambda: mf.where(c, kiln.ones(3), 0))
    with pytest.raises(TypeError, match="kiln.asarray"):
        mf.where(c, numpy.ones(2), 0)
    with pytest.raises(TypeError, match="kiln.asarray"):
        mf.where(c, [1, 2], 0)


# ---- nan_to_num -------------------------------------------------------------

@pytest.mark.parametrize("layout", ["C", "strided", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_nan_to_num(rng, dtype, layout):
    k, n = make(rng, layout, dtype, special_base(rng, dtype))
    assert_same_values(mf.nan_to_num(k).get(), numpy_result(numpy.nan_to_num, n))
    assert_same_values(mf.nan_to_num(k, nan=-1.5, posinf=7, neginf=numpy.float16(-8)).get(),
                     numpy_result(numpy.nan_to_num, n, nan=-1.5, posinf=7, neginf=numpy.float16(-8)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_nan_to_num_in_place(rng, dtype):
    k, n = make(rng, "C", dtype, special_base(rng, dtype))
    assert mf.nan_to_num(k, copy=False) is k
    assert_same_values(k.get(), numpy_result(numpy.nan_to_num, n))
    assert mf.nan_to_num(k) is not k


def test_nan_to_num_values():
    n = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1.0], numpy.float16)
    k = kiln.asarray(n)
    for kw in [dict(nan=1e10), dict(nan=numpy.float64(1e300)), dict(posinf=numpy.int64(5))]:
        assert_same_values(mf.nan_to_num(k, **kw).get(), numpy_result(numpy.nan_to_num, n, **kw))
    for kw in [dict(nan=1j), dict(nan=None), dict(posinf=numpy.complex64(1))]:
        np_info, kn_info = both_raise(TypeError, lambda: numpy.nan_to_num(n, **kw),
                                      lambda: mf.nan_to_num(k, **kw))
        assert str(np_info.value) == str(kn_info.value)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.complex128])
def test_nan_to_num_array_fills_broadcast(dtype):
    n = numpy.array([[0, 1, numpy.nan, 4], [11, numpy.inf, -numpy.inf, 13]], dtype)
    if dtype == numpy.complex128:
        n = n + 1j * n[::-1]
    k = kiln.asarray(n)
    for fill in [numpy.full((2, 4), 7.5), numpy.array([[-1.0], [2.0]]), numpy.arange(4.0)]:
        for key in ("nan", "posinf", "neginf"):
            want = numpy.nan_to_num(n, **{key: fill})
            assert_same_values(mf.nan_to_num(k, **{key: kiln.asarray(fill)}).get(), want)
    with pytest.raises(ValueError):
        mf.nan_to_num(k[0], nan=kiln.zeros((2, 4)))
    with pytest.raises(ValueError):
        mf.nan_to_num(0.0, posinf=kiln.zeros((2, 4)))


# ---- real, imag, isreal, iscomplex, angle -------------------------------------

@pytest.mark.parametrize("layout", ["C", "negative", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_parts(rng, dtype, layout):
    k, n = make(rng, layout, dtype, special_base(rng, dtype))
    if numpy.dtype(dtype).kind == "c":
        k[...] = k * (kiln.asarray(numpy.arange(k.size, dtype=numpy.int8) % 3).reshape(k.shape) > 0)
        n = k.get()
    assert_same_values(mf.real(k).get(), numpy.real(n))
    assert_same_values(mf.imag(k).get(), numpy.imag(n))
    assert_same_values(mf.isreal(k).get(), numpy.asarray(numpy.isreal(n)))
    assert_same_values(mf.iscomplex(k).get(), numpy.asarray(numpy.iscomplex(n)))
    if n.ndim and n.size < 50:   # nested lists, as NumPy and CuPy take them
        assert_same_values(mf.isreal(n.tolist()).get(), numpy.isreal(n.tolist()))
        assert_same_values(mf.iscomplex(n.tolist()).get(), numpy.iscomplex(n.tolist()))
    for deg in (False, True):
        assert_angle(mf.angle(k, deg=deg).get(), numpy_result(numpy.angle, n, deg=deg), deg, n)


def libm_atan2f(y, x):
    """The C library's atan2f, elementwise over float32 arrays y and x."""
    lib = ctypes.CDLL(ctypes.util.find_library("m"))
    lib.atan2f.restype, lib.atan2f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    y, x = numpy.broadcast_arrays(numpy.asarray(y, numpy.float32), numpy.asarray(x, numpy.float32))
    flat = [lib.atan2f(float(a), float(b)) for a, b in zip(y.reshape(-1), x.reshape(-1))]
    return numpy.array(flat, numpy.float32).reshape(y.shape)


def assert_angle(got, expected, deg, z):
    """angle is arctan2(imag, real): on the host the C library's, bit for
    bit; on a GPU the device's atan2, within arctan2's bound of
    test_ufuncs.ULP_BOUNDS. NumPy's own float32 arctan2 varies with the CPU
    (AVX-512 machines use SVML, elsewhere the C library), so the host's
    complex64 reference is the C library's atan2f itself. deg multiplies by
    180/pi, which turns k ulp into at most 1.8 k ulp of the product, rounded
    once more: 2 k + 1."""
    if kiln.get_backend() == "host":
        if expected.dtype == numpy.float32:
            expected = libm_atan2f(numpy.imag(z), numpy.real(z))
            if deg:
                expected = expected * numpy.float32(180 / numpy.pi)
        assert_same_values(got, numpy.asarray(expected))
        return
    assert got.dtype == expected.dtype and got.shape == expected.shape
    k = real_bound("arctan2", expected.dtype)
    bad, dist = real_mismatches(got.reshape(-1), expected.reshape(-1), 2 * k + 1 if deg else k)
    assert not bad.any(), (got.reshape(-1)[bad], expected.reshape(-1)[bad], dist[bad])


@pytest.mark.parametrize("value", [3, 2.5, 1 + 2j, numpy.int8(-3), numpy.complex64(-1j)])
def test_parts_of_scalars(value):
    for kn_fn, np_fn in [(mf.real, numpy.real), (mf.imag, numpy.imag), (mf.isreal, numpy.isreal),
                         (mf.iscomplex, numpy.iscomplex), (mf.angle, numpy.angle)]:
        got = kn_fn(value)
        assert isinstance(got, kiln.ndarray) and got.ndim == 0
        assert got.get() == np_fn(value) and got.dtype == numpy.asarray(np_fn(value)).dtype


# ---- i0 and sinc --------------------------------------------------------------

def ulps(got, expected):
    """|got - expected| in units of expected's last place (0 for equal
    values, NaN with NaN, same-signed infinities)."""
    both = (got == expected) | (numpy.isnan(got) & numpy.isnan(expected))
    spacing = numpy.spacing(numpy.abs(expected).astype(expected.dtype))
    with numpy.errstate(all="ignore"):
        d = numpy.abs(got.astype(numpy.float64) - expected) / spacing.astype(numpy.float64)
    return numpy.where(both, 0.0, d)


@pytest.mark.parametrize("layout", ["C", "strided", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_i0(rng, dtype, layout):
    base = special_base(rng, dtype)
    if numpy.dtype(dtype).kind == "f":
        base = base / numpy.asarray(10, dtype)      # spread over the series and asymptotic ranges
    k, n = make(rng, layout, dtype, base)
    if numpy.dtype(dtype).kind == "c":
        both_raise(TypeError, lambda: numpy.i0(n), lambda: mf.i0(k))
        return
    got = mf.i0(k).get()
    if dtype == numpy.float16:
        # Documented: float16 is computed in float32 and rounded once.
        expected = numpy_result(numpy.i0, n.astype(numpy.float32)).astype(numpy.float16)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert (ulps(got, expected) <= 1).all()   # a <=16-ulp float32 difference can cross one rounding
        return
    expected = numpy_result(numpy.i0, n)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert (ulps(got, expected) <= 16).all(), ulps(got, expected).max()   # Note [i0]


@pytest.mark.parametrize("layout", ["C", "negative", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_sinc(rng, dtype, layout):
    k, n = make(rng, layout, dtype, special_base(rng, dtype))
    got, expected = mf.sinc(k).get(), numpy_result(numpy.sinc, n)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    # Documented: kiln's sine is within the ulp bounds of
    # kiln/ufunc_transcendental.h (sin 2 ulp + NumPy's own 1.5, one more for
    # the division: 4; float16 rounds once: 1; complex: 4 eps normwise plus
    # the division's), and NaN signs may differ.
    nan = numpy.isnan(expected)
    assert (numpy.isnan(got) == nan).all()
    if numpy.dtype(dtype).kind == "c":
        eps = numpy.finfo(expected.real.dtype).eps
        ok = numpy.abs(got - expected) <= 8 * eps * numpy.abs(expected)
        assert (ok | nan | (got == expected)).all()
    else:
        assert (ulps(got, expected) <= (1 if expected.dtype == numpy.float16 else 4)).all()


def test_i0_sinc_scalars():
    assert_same_values(mf.i0(2).get(), numpy.asarray(numpy.i0(2)))
    assert_same_values(mf.sinc(0.25).get(), numpy.asarray(numpy.sinc(0.25)))
    assert_same_values(mf.sinc(True).get(), numpy.asarray(numpy.sinc(True)))


# ---- isclose, allclose, array_equal -------------------------------------------

PAIRS = [(numpy.float32, numpy.float32), (numpy.float32, numpy.float64), (numpy.float64, numpy.int8),
         (numpy.int64, numpy.int64), (numpy.uint64, numpy.int64), (numpy.float16, numpy.float16),
         (numpy.complex64, numpy.float32), (numpy.complex128, numpy.complex128),
         (numpy.bool_, numpy.bool_), (numpy.int8, numpy.float16)]


def close_pair(rng, da, db, layout="C"):
    """Arrays whose elements are equal, close, far, or special."""
    k, n = make(rng, layout, db, special_base(rng, db))
    nb = n
    na = numpy.asarray(nb).astype(da) if numpy.dtype(da).kind != "b" else nb.astype(da)
    flat = na.reshape(-1)
    if numpy.dtype(da).kind in "fc" and flat.size:
        with numpy.errstate(all="ignore"):
            flat[::3] = (flat[::3] * numpy.asarray(1 + 3e-6, da).astype(da)).astype(da)
            flat[1::4] = (flat[1::4] + numpy.asarray(1, da)).astype(da)
    elif flat.size:
        flat[::4] = flat[::4] + numpy.asarray(1).astype(da)
    return kiln.asarray(na), na, kiln.asarray(numpy.ascontiguousarray(nb)) if layout == "C" else k, nb


@pytest.mark.parametrize("da,db", PAIRS, ids=lambda d: name(d))
def test_isclose(rng, da, db):
    ka, na, kb, nb = close_pair(rng, da, db)
    for kw in [{}, dict(equal_nan=True), dict(rtol=1e-7, atol=0), dict(rtol=numpy.float64(1e-3)),
               dict(atol=numpy.float16(0.5))]:
        assert_same_values(mf.isclose(ka, kb, **kw).get(), numpy_result(numpy.isclose, na, nb, **kw))
        assert mf.allclose(ka, kb, **kw) is bool(numpy_result(numpy.allclose, na, nb, **kw))
        assert mf.allclose(ka, ka, **kw) is bool(numpy_result(numpy.allclose, na, na, **kw))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_isclose_layouts_and_broadcast(rng, layout):
    k, n = make(rng, layout, numpy.float32, special_base(rng, numpy.float32))
    kb, nb = make(rng, layout, numpy.float64)
    assert_same_values(mf.isclose(k, kb).get(), numpy.isclose(n, nb))
    assert_same_values(mf.isclose(k, 1).get(), numpy.asarray(numpy.isclose(n, 1)))
    assert_same_values(mf.isclose(2.5, k).get(), numpy.asarray(numpy.isclose(2.5, n)))
    assert mf.allclose(k, k, equal_nan=True) is bool(numpy.allclose(n, n, equal_nan=True))
    tol = kiln.asarray(numpy.linspace(0, 1, 3)[:, None, None][:, :0 if layout == "empty" else 1])
    if layout not in ("0-d",):
        assert_same_values(mf.isclose(k, kb, atol=tol).get(),
                         numpy.isclose(n, nb, atol=tol.get()))


def test_isclose_tolerance_warning():
    k = kiln.asarray(numpy.ones(2))
    with pytest.warns(RuntimeWarning, match="rtol or atol"):
        mf.isclose(k, k, atol=numpy.nan)
    with pytest.raises(TypeError, match="kiln.asarray"):
        mf.isclose(k, k, atol=numpy.ones(2))


def test_isclose_takes_host_operands():
    """a and b may be NumPy arrays or sequences (copied to the device), as
    numpy.isclose and CuPy's isclose take them; the result is kiln's."""
    n = numpy.array([1.0, 2.0, numpy.nan, 4.0], numpy.float32)
    k = kiln.asarray(n)
    other = numpy.array([1.0, 2.5, numpy.nan, 4.0 + 1e-6])
    res = mf.isclose(k, other, equal_nan=True)
    assert isinstance(res, kiln.ndarray)
    assert_same_values(res.get(), numpy.isclose(n, other, equal_nan=True))
    assert_same_values(mf.isclose([1, 3], k[:2]).get(), numpy.isclose([1, 3], n[:2]))
    assert mf.allclose(k[:2], numpy.array([1.0, 2.0])) is True
    assert mf.allclose(numpy.array([1.0, 2.5]), k[:2]) is False


@pytest.mark.parametrize("da,db", PAIRS, ids=lambda d: name(d))
def test_array_equal(rng, da, db):
    ka, na, kb, nb = close_pair(rng, da, db)
    for eq_nan in (False, True):
        assert mf.array_equal(ka, kb, equal_nan=eq_nan) is numpy.array_equal(na, nb, equal_nan=eq_nan)
        assert mf.array_equal(kb, kb, equal_nan=eq_nan) is numpy.array_equal(nb, nb, equal_nan=eq_nan)
        assert (mf.array_equal(ka, ka.copy(), equal_nan=eq_nan)
                is numpy.array_equal(na, na.copy(), equal_nan=eq_nan))
    assert mf.array_equal(ka, ka[:1]) is False
    assert mf.array_equal(kiln.asarray(numpy.int64(3)), 3) is True
    assert mf.array_equal(kiln.zeros((0, 3)), kiln.zeros((0, 3))) is True


# ---- ndarray methods -----------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float64, numpy.complex64], ids=name)
def test_methods(rng, dtype):
    k, n = make(rng, "F", dtype, special_base(rng, dtype))
    assert_same_values(k.conj().get(), n.conj())
    assert_same_values(k.conjugate().get(), n.conjugate())
    assert (k.conj() is k) == (n.conj() is n)      # a real array is its own conjugate, as NumPy's method says
    b = kiln.asarray(numpy.array([True, False]))
    assert b.conj() is b
    assert_same_values(k.round(1).get(), numpy_result(n.round, 1))
    kout, nout = kiln.empty(n.shape, dtype), numpy.empty(n.shape, dtype)
    assert k.round(out=kout) is kout
    numpy_result(n.round, out=nout)
    assert_same_values(kout.get(), nout)
    if numpy.dtype(dtype).kind != "c":
        assert_same_values(k.clip(1, 30).get(), numpy_result(n.clip, 1, 30))
        assert_same_values(k.clip(max=30).get(), numpy_result(n.clip, max=30))


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.clip(a, -1.0, 4.0, out=a[::-1]),
    lambda xp, a: xp.clip(a[:-1], a[1:], 4.0, out=a[1:]),
    lambda xp, a: xp.clip(a.reshape(2, 5)[:1], -1.0, 4.0, out=a.reshape(2, 5)),   # broadcast into out=
    lambda xp, a: xp.around(a[:-1], 1, out=a[1:]),
    lambda xp, a: xp.around(a[1:], -1, out=a[:-1]),
    lambda xp, a: xp.around(a, 2, out=a[::-1]),
    lambda xp, a: a[::2].clip(0.0, 2.0, out=a[:5]),
    lambda xp, a: xp.nan_to_num(a, copy=False),
], ids=["clip-reversed", "clip-bound-overlap", "clip-broadcast", "around-shifted", "around-neg-decimals",
        "around-reversed", "clip-method", "nan_to_num-in-place"])
def test_out_overlapping_an_input(call):
    # issue 21: out= overlapping an input gave order-dependent garbage; NumPy
    # reads the inputs first (its ufuncs copy an overlapping input).
    n = numpy.arange(10.0) * 1.37 - 3.0
    k = kiln.asarray(n)
    call(numpy, n)
    call(kiln, k)
    assert_same_values(k.get(), n)
