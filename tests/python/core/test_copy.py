"""The copy/cast kernel: astype, copy, ascontiguousarray and strided downloads,
against NumPy over dtype pairs and layouts."""
import warnings

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name

FLOATISH = [numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=name)
def test_astype_matches_numpy(rng, src, dst, layout):
    k, host = make(rng, layout, src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        expected = host.astype(dst)
        got = k.astype(dst)
    assert_same_bits(got.get(), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_download_and_copy_any_layout(rng, dtype, layout):
    k, host = make(rng, layout, dtype)
    assert_same_bits(kiln.asnumpy(k), host)
    c = k.copy()
    assert c._c_contiguous and c.data.ptr != k.data.ptr
    assert_same_bits(c.get(), host)
    f = k.copy(order="F")
    assert f._f_contiguous
    assert_same_bits(f.get(), host)
    a = kiln.ascontiguousarray(k)
    assert a._c_contiguous and a.ndim == max(host.ndim, 1)
    assert_same_bits(a.get(), numpy.ascontiguousarray(host).reshape(a.shape))


# Values that test float16's rounding: ties to even at both ends of the
# normal range, the subnormals and the underflow to zero, the overflow at
# 65520, +-inf, NaN (and a NaN payload), -0.0, and 1 + 2^-11 + 2^-40, which
# float64 rounds up directly to float16 but would tie (and round to even,
# down) through float32.
def special_values():
    v = [0.0, -0.0, 1.0, -1.0, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -11 + 2.0 ** -40,
         1 + 2.0 ** -11 - 2.0 ** -30, 2049.0, 2051.0, 2.0 ** -14, 2.0 ** -14 * (1 - 2.0 ** -11),
         2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * (1 + 2.0 ** -20), 1.5 * 2.0 ** -24, 2.5 * 2.0 ** -24,
         2.0 ** -26, 1e-30, 65504.0, 65519.0, 65519.99, 65520.0, 65536.0, 1e10, -70000.0, 1e300,
         numpy.inf, -numpy.inf, numpy.nan, -numpy.nan, 3.14159, -2.71828, 1e-5, 6.1e-5, 123.456]
    return numpy.array(v + [-x for x in v[2:26]], dtype=numpy.float64)


def special_source(dtype):
    v = special_values()
    dtype = numpy.dtype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if dtype.kind == "c":
            return (v + 1j * v[::-1]).astype(dtype)
        out = v.astype(dtype)
        if dtype == numpy.float32:   # a NaN with a payload float16 keeps in part
            out = numpy.concatenate([out, numpy.array([0x7fa01234, 0xff800001], numpy.uint32).view(numpy.float32)])
        elif dtype == numpy.float64:
            out = numpy.concatenate([out, numpy.array([0x7ff4000000001234], numpy.uint64).view(numpy.float64)])
        return out


@pytest.mark.parametrize("layout", ["C", "strided"])
@pytest.mark.parametrize("dst", [numpy.bool_] + FLOATISH, ids=name)
@pytest.mark.parametrize("src", FLOATISH, ids=name)
def test_special_values_convert_bit_exactly(src, dst, layout):
    host = special_source(src)
    k = kiln.asarray(host)
    if layout == "strided":
        host, k = host[::3], kiln._core._as_strided(k, ((host.size + 2) // 3,), (3 * host.itemsize,), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = host.astype(dst)
        got = k.astype(dst).get()
    assert_same_bits(got, expected)


@pytest.mark.parametrize("dst", [d for d in ALL_DTYPES if numpy.dtype(d).kind in "iu"], ids=name)
@pytest.mark.parametrize("src", FLOATISH, ids=name)
def test_floats_truncate_to_integers(src, dst):
    # Finite values in dst's range only (other values are undefined in NumPy).
    v = numpy.array([0.0, -0.0, 0.5, 0.99, 1.0, 1.5, 2.5, 7.9, 100.25, 127.0, 126.6, 2.0 ** -24], numpy.float64)
    if numpy.dtype(dst).kind == "i":
        v = numpy.concatenate([v, -v, [-128.0, -127.9]])
    if numpy.dtype(dst).itemsize > 1:
        v = numpy.concatenate([v, [255.0, 1000.7, 2049.0, 32752.0 if numpy.dtype(dst) == numpy.int16 else 65504.0]])
    host = (v + 1j * 3).astype(src) if numpy.dtype(src).kind == "c" else v.astype(src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        expected = host.astype(dst)
    assert_same_bits(kiln.asarray(host).astype(dst).get(), expected)


@pytest.mark.parametrize("dst", [d for d in ALL_DTYPES if numpy.dtype(d).kind in "iu"], ids=name)
@pytest.mark.parametrize("src", FLOATISH, ids=name)
def test_out_of_range_floats_to_integers_are_numpys_on_x86(src, dst):
    # Note [Float to integer casts]: NaN, inf, huge and negative-to-unsigned
    # values give NumPy-on-x86's results on every backend (PTX would saturate).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        host = numpy.concatenate([special_source(src), numpy.array([300.0, -300.0, 70000.5, 3e9, -3e9, 1e19, 2.0 ** 63,
                                                                    -(2.0 ** 63), 2.0 ** 64]).astype(src)])
        expected = host.astype(dst)
        if numpy.dtype(dst) == numpy.uint32:   # NumPy's scalar cast, not its length-dependent SIMD loop
            expected = numpy.concatenate([host[i:i + 1].astype(dst) for i in range(host.size)])
        if not numpy_casts_as_documented():
            pytest.skip("this NumPy's out-of-range casts are not the SSE/AVX2 ones kiln documents")
    assert_same_bits(kiln.asarray(host).astype(dst).get(), expected)


DOCUMENTED_CASTS = {   # Note [Float to integer casts], from [nan, inf, -inf, 1e300, 1e10, -1.0, 300.0, -3e9]
    numpy.int8: [0, 0, 0, 0, 0, -1, 44, 0],
    numpy.uint16: [0, 0, 0, 0, 0, 65535, 300, 0],
    numpy.int32: [-2 ** 31] * 5 + [-1, 300, -2 ** 31],
    numpy.int64: [-2 ** 63] * 4 + [10 ** 10, -1, 300, -3 * 10 ** 9],
    numpy.uint32: [0, 0, 0, 0, 1410065408, 2 ** 32 - 1, 300, 1294967296],
    numpy.uint64: [2 ** 63, 0, 2 ** 63, 0, 10 ** 10, 2 ** 64 - 1, 300, 2 ** 64 - 3 * 10 ** 9],
}
DOCUMENTED_SOURCE = [numpy.nan, numpy.inf, -numpy.inf, 1e300, 1e10, -1.0, 300.0, -3e9]


def numpy_casts_as_documented():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        v = numpy.array(DOCUMENTED_SOURCE)
        return all([v[i:i + 1].astype(t)[0] for i in range(v.size)] == want for t, want in DOCUMENTED_CASTS.items())


@pytest.mark.parametrize("src", [numpy.float64, numpy.float32, numpy.complex128], ids=name)
def test_out_of_range_float_casts_have_the_documented_values(src):
    k = kiln.asarray(numpy.array(DOCUMENTED_SOURCE, dtype=src))
    for dst, want in DOCUMENTED_CASTS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
            got = k.astype(dst).get().tolist()
        assert got == want, (dst, got)


@pytest.mark.parametrize("dst", FLOATISH, ids=name)
@pytest.mark.parametrize("src", [numpy.bool_, numpy.int64, numpy.uint64, numpy.int32, numpy.uint16], ids=name)
def test_integers_round_to_floats(src, dst):
    info = numpy.iinfo(src) if numpy.dtype(src).kind != "b" else None
    if info is None:
        host = numpy.array([True, False])
    else:
        vals = [0, 1, 2047, 2049, 2051, 4097, 65504, 65519, 65520, 65535, info.max, info.max - 1,
                2 ** 24 + 1, 2 ** 53 + 1, 2 ** 63 - 1, -1, -2049, -65520, info.min]
        host = numpy.array([x for x in vals if info.min <= x <= info.max], dtype=src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = host.astype(dst)
    assert_same_bits(kiln.asarray(host).astype(dst).get(), expected)


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


@pytest.mark.parametrize("layout", ["C", "strided"])
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
def test_bool_bytes_other_than_0_and_1(dst, layout):
    # Note [Bool bytes]: any nonzero byte is True (bool -> bool keeps the bytes).
    host = numpy.array([2, 0, 1, 255, 128, 7], numpy.uint8).view(numpy.bool_)
    k = kiln.asarray(numpy.array([2, 0, 1, 255, 128, 7], numpy.uint8)).view(numpy.bool_)
    if layout == "strided":
        host, k = host[::2], kiln._core._as_strided(k, (3,), (2,), 0)
    expected = host.astype(dst)
    got = k.astype(dst).get()
    assert_same_bits(got.view(numpy.uint8) if got.dtype == numpy.bool_ else got,
                     expected.view(numpy.uint8) if expected.dtype == numpy.bool_ else expected)


def test_copy_supported_everywhere():
    # Every pair converts (the NotImplementedError of the old copy kernel is gone).
    for src in ALL_DTYPES:
        for dst in (numpy.float16, numpy.complex64):
            assert kiln.zeros(1, dtype=src).astype(dst).dtype == dst


def test_views_out_of_bounds_are_refused():
    a = kiln.zeros(10, dtype=kiln.int32)
    with pytest.raises(ValueError, match="outside the array's memory"):
        kiln._core._as_strided(a, (11,), (4,), 0)
    with pytest.raises(ValueError, match="outside the array's memory"):
        kiln._core._as_strided(a, (2,), (-4,), 0)
