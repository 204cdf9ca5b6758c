"""kiln.copyto against numpy.copyto: every dtype pair, layouts, broadcasting,
where=, casting= errors with NumPy's messages, host sources, overlap."""
import warnings

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name, random_array, same_error



def both(dst_host, src_host, upload=True, **kw):
    """(kiln's result, NumPy's) for copyto into a copy of dst_host; NumPy
    arrays among src and where are uploaded first unless upload=False."""
    dst = kiln.asarray(dst_host)
    expected = numpy.array(dst_host, copy=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        numpy.copyto(expected, src_host, **kw)
        if upload:
            kw = {k: (kiln.asarray(v) if isinstance(v, numpy.ndarray) and k == "where" else v) for k, v in kw.items()}
            src_host = kiln.asarray(src_host) if isinstance(src_host, numpy.ndarray) else src_host
        kiln.copyto(dst, src_host, **kw)
    return dst.get(), expected


@pytest.mark.parametrize("masked", [False, True], ids=["all", "where"])
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=name)
def test_every_dtype_pair(rng, src, dst, masked):
    _, src_host = make(rng, "C", src)
    _, dst_host = make(rng, "C", dst)
    kw = {"casting": "unsafe"}
    if masked:
        kw["where"] = rng.integers(0, 2, size=dst_host.shape).astype(bool)
    got, expected = both(dst_host, src_host, **kw)
    assert_same_bits(got, expected)


@pytest.mark.parametrize("masked", [False, True], ids=["all", "where"])
@pytest.mark.parametrize("src_layout", ["same", "C", "F"])
@pytest.mark.parametrize("dst_layout", LAYOUTS)
def test_layouts(rng, dst_layout, src_layout, masked):
    # dst in every layout; src in the same layout (other strides and dtype),
    # or C or F ordered with dst's shape; where C ordered.
    dst, dst_host = make(rng, dst_layout, numpy.float32)
    if src_layout == "same":
        src, src_host = make(rng, dst_layout, numpy.int16)
    else:
        src_host = random_array(rng, dst_host.shape, numpy.int16)
        src = kiln.asarray(src_host).astype(numpy.int16, order=src_layout)
    mask_host = rng.integers(0, 2, size=dst_host.shape).astype(bool)
    expected = numpy.array(dst_host, copy=True)
    numpy.copyto(expected, src_host, where=mask_host if masked else True)
    kiln.copyto(dst, src, where=kiln.asarray(mask_host) if masked else True)
    assert_same_bits(kiln.asnumpy(dst), expected)


def test_writes_only_the_view(rng):
    base_host = random_array(rng, (6, 8), numpy.int32)
    base = kiln.asarray(base_host)
    view = kiln._core._as_strided(base, (3, 4), (64, 8), 4)   # base_host[::2, 1::2]
    kiln.copyto(view, numpy.int32(-7))
    base_host[::2, 1::2] = -7
    assert_same_bits(base.get(), base_host)


@pytest.mark.parametrize("src_shape,where_shape", [
    ((8,), None), ((6, 1), None), ((1, 6, 8), None), ((), None), ((1,), None),
    ((6, 8), (8,)), ((8,), (6, 1)), ((1, 8), ()), ((), (1, 8)), ((1, 1, 8), (6, 8)),
])
def test_broadcasting(rng, src_shape, where_shape):
    dst_host = random_array(rng, (6, 8), numpy.float64)
    src_host = random_array(rng, src_shape, numpy.float32)
    kw = {}
    if where_shape is not None:
        kw["where"] = rng.integers(0, 2, size=where_shape).astype(bool)
    got, expected = both(dst_host, src_host, **kw)
    assert_same_bits(got, expected)


@pytest.mark.parametrize("src_shape,where_shape", [
    ((4,), None), ((2, 3), None), ((3,), (2, 1)), ((3,), (4,)), ((3,), (1, 3))])
def test_broadcast_errors(src_shape, where_shape):
    kw = {} if where_shape is None else {"where": numpy.ones(where_shape, bool)}
    kkw = {} if where_shape is None else {"where": kiln.asarray(kw["where"])}
    same_error(lambda: kiln.copyto(kiln.zeros(3, dtype=kiln.int8), kiln.zeros(src_shape, dtype=kiln.int8), **kkw),
               lambda: numpy.copyto(numpy.zeros(3, numpy.int8), numpy.zeros(src_shape, numpy.int8), **kw))


@pytest.mark.parametrize("where", [
    False, None, 0, 1, "x", "", numpy.int64(1), numpy.int64(0), numpy.bool_(False), [1, 0, 1], [0.5, 0, 2.0],
    [True, False, True], numpy.array([True, False, False]), numpy.array(True), numpy.array(False)],
    ids=repr)
def test_where_values(where):
    dst_host = numpy.zeros(3)
    got, expected = both(dst_host, numpy.array([1.0, 2.0, 3.0]), where=where)
    assert_same_bits(got, expected)


@pytest.mark.parametrize("where", [numpy.array([1, 0, 1]), numpy.array(1.0), numpy.array([1, 0, 1]).astype(object),
                                   numpy.array([1.0, 0, 1], numpy.float32)], ids=repr)
def test_where_must_be_bool(where):
    src = numpy.arange(3, dtype=numpy.int8)
    same_error(lambda: kiln.copyto(kiln.zeros(3, dtype=kiln.int8), src, where=where),
               lambda: numpy.copyto(numpy.zeros(3, numpy.int8), src, where=where))
    if where.dtype != object:   # a kiln array as where: the same rule
        same_error(lambda: kiln.copyto(kiln.zeros(3, dtype=kiln.int8), src, where=kiln.asarray(where)),
                   lambda: numpy.copyto(numpy.zeros(3, numpy.int8), src, where=where))


def test_where_broadcast_error_comes_after_the_dtype_check():
    same_error(lambda: kiln.copyto(kiln.zeros(3, dtype=kiln.int8), numpy.zeros(3, numpy.int8), where=numpy.zeros(4)),
               lambda: numpy.copyto(numpy.zeros(3, numpy.int8), numpy.zeros(3, numpy.int8), where=numpy.zeros(4)))


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=name)
def test_casting_rule_like_numpy(src, dst, casting):
    # Whether it raises, and NumPy's message when it does, for arrays and 0-d arrays.
    for shape in [(2,), ()]:
        src_host = numpy.ones(shape, src)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
                numpy.copyto(numpy.zeros(2, dst), src_host, casting=casting)
        except TypeError as e:
            with pytest.raises(TypeError) as got:
                kiln.copyto(kiln.zeros(2, dtype=dst), kiln.asarray(src_host), casting=casting)
            assert str(got.value) == str(e)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
                kiln.copyto(kiln.zeros(2, dtype=dst), kiln.asarray(src_host), casting=casting)


PY_SCALARS = [True, False, 0, 1, -1, 3, 127, 128, 255, 256, -129, 300, 2 ** 31, 2 ** 63 - 1, 2 ** 64 - 1,
              1.5, -2.25, 1e300, float("inf"), float("nan"), -0.0, 1 + 2 ** -11 + 2 ** -40, 65520.0,
              1j, 2.5 - 3j, complex(1e300, 1)]


@pytest.mark.parametrize("casting", ["no", "same_kind", "unsafe"])
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
def test_python_scalars_are_weak(dst, casting):
    # NEP 50: Python int/float/complex take dst's dtype where their kind
    # allows; ints out of dst's range raise OverflowError; bool is strong.
    for value in PY_SCALARS:
        dst_host = numpy.zeros(2, dst)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
                warnings.simplefilter("ignore", RuntimeWarning)
                numpy.copyto(dst_host, value, casting=casting)
        except (TypeError, OverflowError) as e:
            with pytest.raises(type(e)) as got, warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                kiln.copyto(kiln.zeros(2, dtype=dst), value, casting=casting)
            if isinstance(e, TypeError) or "out of bounds" in str(e):
                assert str(got.value) == str(e), value
            continue
        d = kiln.zeros(2, dtype=dst)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            kiln.copyto(d, value, casting=casting)
        assert_same_bits(d.get(), dst_host)


@pytest.mark.parametrize("src", [
    [1, 2, 3], [1.5, -2.0, 3.25], [[1], [2]], numpy.float32(2.5), numpy.int64(7), numpy.arange(6.0)[::2],
    numpy.arange(3, dtype=">i4"), numpy.array([1 + 2j, 3, 4j], numpy.complex64), numpy.array(9, numpy.uint8),
    numpy.array([True, False, True])], ids=repr)
def test_host_sources(src):
    dst_host = numpy.zeros((2, 3), numpy.float64)
    got, expected = both(dst_host, src, upload=False, casting="unsafe")
    assert_same_bits(got, expected)


def test_non_numeric_host_sources():
    for src in ["a", None, object()]:
        same_error(lambda: kiln.copyto(kiln.zeros(3, dtype=kiln.int8), src),
                   lambda: numpy.copyto(numpy.zeros(3, numpy.int8), src))


def test_bad_arguments():
    same_error(lambda: kiln.copyto(kiln.zeros(3), kiln.zeros(3), casting="foo"),
               lambda: numpy.copyto(numpy.zeros(3), numpy.zeros(3), casting="foo"))
    with pytest.raises(TypeError, match="copyto\\(\\) argument 1 must be a kiln.ndarray, not list"):
        kiln.copyto([1, 2], kiln.zeros(2))
    with pytest.raises(TypeError, match="copyto\\(\\) argument 1 must be a kiln.ndarray, not ndarray"):
        kiln.copyto(numpy.zeros(2), kiln.zeros(2))


def test_complex_to_real_warns_like_numpy():
    with pytest.warns(numpy.exceptions.ComplexWarning, match="Casting complex values to real discards"):
        kiln.copyto(kiln.zeros(2, dtype=kiln.float32), kiln.asarray(numpy.ones(2, numpy.complex64)), casting="unsafe")
    with pytest.warns(numpy.exceptions.ComplexWarning):
        kiln.copyto(kiln.zeros(2, dtype=kiln.float32), 1 + 2j, casting="unsafe")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kiln.copyto(kiln.zeros(2, dtype=kiln.complex64), kiln.asarray(numpy.ones(2, numpy.complex128)))


@pytest.mark.parametrize("shift", [1, -1, 3])
@pytest.mark.parametrize("masked", [False, True], ids=["all", "where"])
def test_overlapping_source_is_read_first(rng, shift, masked):
    host = numpy.arange(20, dtype=numpy.int64)
    a = kiln.asarray(host)
    n = 20 - abs(shift)
    lo, hi = max(shift, 0), max(-shift, 0)
    dst = kiln._core._as_strided(a, (n,), (8,), 8 * lo)
    src = kiln._core._as_strided(a, (n,), (8,), 8 * hi)
    mask_host = rng.integers(0, 2, size=n).astype(bool)
    numpy.copyto(host[lo:lo + n], host[hi:hi + n], where=mask_host if masked else True)
    kiln.copyto(dst, src, where=kiln.asarray(mask_host) if masked else True)
    assert_same_bits(a.get(), host)
    # The very same view as source: a no-op.
    kiln.copyto(dst, dst)
    assert_same_bits(a.get(), host)


def test_where_bytes_other_than_0_and_1():
    # Note [Bool bytes]: a mask byte that is neither 0 nor 1 selects, as in NumPy.
    raw = numpy.array([2, 0, 1, 255, 0, 64], numpy.uint8)
    expected = numpy.zeros(6)
    numpy.copyto(expected, 5.0, where=raw.view(numpy.bool_))
    dst = kiln.zeros(6)
    kiln.copyto(dst, 5.0, where=kiln.asarray(raw).view(numpy.bool_))
    assert_same_bits(dst.get(), expected)


def test_copy_where_core_entry_point(rng):
    src, dst = kiln.arange(6, dtype=kiln.float32), kiln.zeros(6, dtype=kiln.int16)
    mask = kiln.asarray(numpy.array([1, 0, 1, 1, 0, 0], bool))
    kiln._core._copy_where(dst, src, mask)
    assert_same_bits(dst.get(), numpy.array([0, 0, 2, 3, 0, 0], numpy.int16))
    with pytest.raises(ValueError, match="shapes differ"):
        kiln._core._copy_where(dst, src, kiln.asarray(numpy.ones(5, bool)))
    with pytest.raises(ValueError, match="mask must be bool"):
        kiln._core._copy_where(dst, src, kiln.asarray(numpy.ones(6, numpy.int8)))
