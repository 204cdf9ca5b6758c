"""Array creation routines against NumPy 2: values, dtypes, layouts, views
and errors, over every dtype and the input layouts of make()."""
import warnings

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, random_array, same_error
from conftest import make as _make

AxisError = numpy.exceptions.AxisError

NAME = lambda d: numpy.dtype(d).name  # noqa: E731


def make(rng, layout, dtype):
    """conftest.make over random_array's full value range."""
    return _make(rng, layout, dtype, base=random_array(rng, (6, 8), dtype))


# Tolerances, in one place. Spaced values (linspace, logspace, geomspace) are
# computed in double (complex double) and rounded once to the result dtype.
# NumPy rounds the same double arithmetic (same operations, same order) when
# its inputs are Python scalars or float64, so float64 results agree to the
# last bit on the host backend; a GPU may contract a*b+c into one FMA and its
# pow/log10 are within 2 ulp, hence 4 ulp. When NumPy computes in float32 or
# float16 (inputs of that dtype) it rounds after each of its ~3 operations;
# kiln.linspace then does the same operations in that dtype (bit for bit:
# test_linspace_in_the_ends_dtype_is_numpys_bit_for_bit); logspace and
# geomspace stay within ~3 ulp of NumPy: 4 ulp of the largest magnitude.
# Integer and bool results are exact (the tests pick values whose floor or
# truncation is not within an ulp of an integer boundary).
def assert_matches(got, expected, scale=None):
    assert isinstance(got, kiln.ndarray)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    host = got.get()
    if expected.dtype.kind in "fc":
        eps = numpy.finfo(expected.dtype).eps
        if scale is None:
            scale = numpy.abs(expected[numpy.isfinite(expected)]).max(initial=0)
        numpy.testing.assert_allclose(host, expected, rtol=4 * eps, atol=4 * eps * scale)
    else:
        numpy.testing.assert_array_equal(host, expected)


def same_strides(got, expected):
    """Strides agree (those of empty arrays are arbitrary, NumPy's too)."""
    return expected.size == 0 or got.strides == expected.strides


# --- array, asarray, copy ------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_array_from_host_any_layout(rng, dtype, layout):
    _, host = make(rng, layout, dtype)
    got = kiln.array(host)
    assert_matches(got, host)
    # order='K' keeps the host array's memory order (F stays F), as NumPy's copy does
    expected = numpy.array(host)
    assert same_strides(got, expected)
    assert kiln.asarray(host, order="F")._f_contiguous
    assert_matches(kiln.array(host.tolist(), dtype=dtype), numpy.array(host.tolist(), dtype=dtype))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_array_from_kiln_copies_per_numpy2_semantics(rng, dtype, layout):
    k, host = make(rng, layout, dtype)
    c = kiln.array(k)
    assert c.data.ptr != k.data.ptr or k.size == 0
    assert same_strides(c, numpy.array(host))          # order='K'
    assert_matches(c, host)
    assert kiln.array(k, copy=False) is k
    assert kiln.asarray(k) is k and kiln.asanyarray(k) is k
    f = kiln.asarray(k, order="F")
    assert f._f_contiguous and (f is k) == (k._f_contiguous)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_matches(kiln.asarray(k, dtype=numpy.float64), host.real.astype(numpy.float64))
    assert [w.category for w in caught] == ([numpy.exceptions.ComplexWarning] if host.dtype.kind == "c" else [])
    assert_matches(kiln.copy(k, order="F"), numpy.copy(host, order="F"))
    assert same_strides(kiln.copy(k), numpy.copy(host))
    a = kiln.ascontiguousarray(k)
    assert a._c_contiguous and a.ndim == max(host.ndim, 1)
    assert (a is k) == (k._c_contiguous and k.ndim > 0)
    assert_matches(a, numpy.ascontiguousarray(host))
    assert_matches(kiln.asfortranarray(k), numpy.asfortranarray(host))
    assert kiln.asfortranarray(k)._f_contiguous


def test_array_copy_false_raises_when_a_copy_is_needed(rng):
    k, host = make(rng, "negative", numpy.int32)
    for call in (lambda: kiln.array(k, copy=False, order="C"),
                 lambda: kiln.asarray(k, dtype=numpy.int64, copy=False),
                 lambda: kiln.array(host, copy=False),           # an upload is a copy
                 lambda: kiln.asarray([1, 2], copy=False)):
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            call()
    assert kiln.asarray(k, order="K", copy=False) is k


def test_array_order_and_ndmin(rng):
    k, host = make(rng, "C", numpy.float32)
    with pytest.raises(ValueError, match="order must be one of 'C', 'F', 'A', or 'K' \\(got 'X'\\)"):
        kiln.array(k, order="X")
    with pytest.raises(ValueError, match="order must be"):
        kiln.copy(k, order="Q")
    v = kiln.array(k, copy=False, ndmin=4)
    assert v.shape == (1, 1, 6, 8) and v.base is k
    assert_matches(v, numpy.array(host, ndmin=4))
    assert kiln.array(3.5, ndmin=2).shape == (1, 1)
    assert kiln.array(k, order="A").strides == numpy.array(host, order="A").strides
    kt = k.T
    assert kiln.array(kt, order="A")._f_contiguous


def test_array_of_sequences_holding_kiln_arrays(rng):
    a, ha = make(rng, "strided", numpy.float32)
    b = kiln.asarray(numpy.arange(3, dtype=numpy.int8))
    got = kiln.array([a, ha * 2, [b, [1, 2, 3], b]])
    expected = numpy.array([ha, ha * 2, [numpy.arange(3, dtype=numpy.int8), [1, 2, 3],
                                         numpy.arange(3, dtype=numpy.int8)]])
    assert_matches(got, expected)
    assert_matches(kiln.array((b, b), dtype=numpy.complex64, order="F"),
                   numpy.array((numpy.arange(3), numpy.arange(3)), dtype=numpy.complex64))
    assert kiln.array([b, b], order="F")._f_contiguous
    with pytest.raises(ValueError, match="inhomogeneous shape after 1 dimensions"):
        kiln.array([b, kiln.arange(4)])


def test_conversions_reject_bad_input():
    for convert in (kiln.array, kiln.asarray, kiln.asanyarray, kiln.ascontiguousarray, kiln.asfortranarray):
        with pytest.raises(ValueError, match="numbers only"):
            convert(["a", "b"])
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        kiln.asanyarray(numpy.ones(2), copy=False)
    with pytest.raises(ValueError, match="order must be one of"):
        kiln.asarray(kiln.ones(2), order="G")
    with pytest.raises(ValueError, match="ndmin bigger than"):
        kiln.array([1], ndmin=65)


# --- new arrays ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_filled_arrays(rng, dtype):
    assert_matches(kiln.zeros((2, 3), dtype), numpy.zeros((2, 3), dtype))
    assert_matches(kiln.ones(4, dtype), numpy.ones(4, dtype))
    e = kiln.empty((3, 2), dtype, order="F")
    assert e.dtype == dtype and e.shape == (3, 2) and e._f_contiguous
    assert_matches(kiln.ones((2, 2), dtype, order="F"), numpy.ones((2, 2), dtype, order="F"))
    row = random_array(rng, (3,), dtype)
    assert_matches(kiln.full((2, 3), row), numpy.full((2, 3), row))
    assert_matches(kiln.full((2, 3), kiln.asarray(row)), numpy.full((2, 3), row))
    assert_matches(kiln.full(5, 7, dtype=dtype), numpy.full(5, 7, dtype=dtype))
    assert_matches(kiln.full((), 1, dtype=dtype), numpy.full((), 1, dtype=dtype))
    assert kiln.full(2, 1).dtype == numpy.full(2, 1).dtype == numpy.int64
    assert kiln.ones(3).dtype == numpy.float64


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_like_routines_keep_layout(rng, dtype, layout):
    k, host = make(rng, layout, dtype)
    for order in ("K", "A", "C", "F"):
        e = kiln.empty_like(k, order=order)
        expected = numpy.empty_like(host, order=order)
        assert e.shape == expected.shape and e.dtype == expected.dtype
        assert same_strides(e, expected), order
        assert e.flags.owndata
    assert_matches(kiln.zeros_like(k), numpy.zeros_like(host))
    assert_matches(kiln.ones_like(k, dtype=numpy.float32), numpy.ones_like(host, dtype=numpy.float32))
    fill = random_array(rng, (), dtype)
    assert_matches(kiln.full_like(k, fill), numpy.full_like(host, fill))
    assert_matches(kiln.full_like(host, 3, shape=(2, 5)), numpy.full_like(host, 3, shape=(2, 5)))
    assert kiln.zeros_like(k, shape=4).shape == (4,)


def test_like_keeps_a_permuted_stride_order():
    host = numpy.ones((2, 3, 4), numpy.int16)[:, ::-1, ::2].transpose(2, 0, 1)
    k = kiln.asarray(numpy.ones((2, 3, 4), numpy.int16))[:, ::-1, ::2].transpose(2, 0, 1)
    assert kiln.empty_like(k).strides == numpy.empty_like(host).strides
    assert kiln.copy(k).strides == numpy.copy(host, order="K").strides
    assert kiln.empty_like(k, shape=(3, 3, 3)).strides == numpy.empty_like(host, shape=(3, 3, 3)).strides
    assert kiln.empty_like(k, shape=(3, 3)).strides == numpy.empty_like(host, shape=(3, 3)).strides


def test_new_array_errors():
    for make_array in (kiln.empty, kiln.zeros, kiln.ones):
        with pytest.raises(TypeError, match=r"Use \(\) not None as shape arguments"):
            make_array(None)
        with pytest.raises(ValueError, match=r"native byte-order values: dtype\('>i4'\) is byte-swapped"):
            make_array(3, dtype=">i4")
    for make_like in (kiln.empty_like, kiln.zeros_like, kiln.ones_like):
        with pytest.raises(TypeError, match="subok=True is not supported"):
            make_like(kiln.ones(2), subok=True)
    with pytest.raises(TypeError, match="subok=True is not supported"):
        kiln.full_like(kiln.ones(2), 1, subok=True)
    for make_array in (kiln.empty, kiln.zeros, kiln.ones):
        with pytest.raises(ValueError, match="negative dimensions"):
            make_array((2, -1))
        with pytest.raises(TypeError, match="shape must be an int or a sequence of ints"):
            make_array(2.0)
    with pytest.raises(ValueError, match="order must be one of 'C' or 'F'"):
        kiln.zeros(2, order="K")
    with pytest.raises(ValueError, match="negative dimensions"):
        kiln.ones_like(kiln.ones(2), shape=(-1,))
    with pytest.raises(ValueError, match="could not broadcast"):
        kiln.full((2, 2), [1, 2, 3])
    with pytest.raises(ValueError, match="order must be one of"):
        kiln.zeros_like(kiln.ones(2), order="X")
    with pytest.raises(ValueError, match="order must be one of"):
        kiln.empty_like([1, 2], order="Z")
    with pytest.raises(ValueError, match="could not broadcast"):
        kiln.full_like(kiln.ones(2), [1, 2, 3])


# --- linspace, logspace, geomspace -----------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_linspace_scalars_every_dtype(dtype):
    # Dyadic ends: every value is exact in double, so floors are exact too.
    for start, stop, num, endpoint in [(-2.5, 2.5, 5, True), (0, 12, 7, False), (3, -5, 9, True),
                                       (1, 1, 1, True), (0.5, 8, 0, True)]:
        got = kiln.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
        assert_matches(got, numpy.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))
    assert_matches(kiln.linspace(0.1, 2.7, 50, dtype=dtype), numpy.linspace(0.1, 2.7, 50, dtype=dtype))


def test_linspace_retstep_and_defaults():
    got, step = kiln.linspace(0.1, 2.7, 13, retstep=True)
    expected, expected_step = numpy.linspace(0.1, 2.7, 13, retstep=True)
    assert_matches(got, expected)
    assert step == expected_step and type(step) is type(expected_step)
    got, step = kiln.linspace(numpy.float32(1), 2, 4, endpoint=False, retstep=True)
    expected, expected_step = numpy.linspace(numpy.float32(1), 2, 4, endpoint=False, retstep=True)
    assert_matches(got, expected)
    assert step == expected_step and step.dtype == numpy.float32
    assert numpy.isnan(kiln.linspace(0, 1, 1, retstep=True)[1])
    assert_matches(kiln.linspace(2, 3), numpy.linspace(2, 3))
    assert_matches(kiln.linspace(1 + 2j, -3j, 7), numpy.linspace(1 + 2j, -3j, 7))
    assert_matches(kiln.linspace(0, 1e-320, 5), numpy.linspace(0, 1e-320, 5), scale=1e-320)  # step underflows


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_linspace_array_ends_any_layout(rng, dtype, layout):
    k, host = make(rng, layout, dtype)
    stop = host.dtype.type(1) if host.dtype.kind != "b" else True
    scale = max(numpy.abs(host).max(initial=0), 1)
    for axis in (0, -1):
        got = kiln.linspace(k, stop, 5, axis=axis)
        assert_matches(got, numpy.linspace(host, stop, 5, axis=axis), scale=scale)
    got, step = kiln.linspace(stop, k, 4, endpoint=False, retstep=True)
    expected, expected_step = numpy.linspace(stop, host, 4, endpoint=False, retstep=True)
    assert_matches(got, expected, scale=scale)
    assert_matches(step, numpy.asarray(expected_step), scale=scale)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.complex64])
def test_linspace_in_the_ends_dtype_is_numpys_bit_for_bit(dtype):
    start, stop = numpy.array([0, 120, -3.3], dtype), numpy.array([100, 0, 7.1], dtype)
    for num, endpoint, axis, out in [(50, True, 0, None), (7, False, -1, None), (9, True, 1, numpy.int16),
                                     (1, True, 0, None), (0, False, 0, numpy.float64)]:
        if out is numpy.int16 and dtype == numpy.complex64:
            continue
        want = numpy.linspace(start, stop, num, endpoint=endpoint, axis=axis, dtype=out)
        got = kiln.linspace(kiln.asarray(start), stop, num, endpoint=endpoint, axis=axis, dtype=out)
        assert got.dtype == want.dtype and got.shape == want.shape
        numpy.testing.assert_array_equal(got.get(), want)
    got, step = kiln.linspace(kiln.asarray(start[:1]), kiln.asarray(stop[:1]), 5, retstep=True)
    want, want_step = numpy.linspace(start[:1], stop[:1], 5, retstep=True)
    numpy.testing.assert_array_equal(step.get(), want_step)


def test_linspace_host_array_ends_and_axis():
    start, stop = numpy.array([0.0, 1, -4]), numpy.array([[2.0], [8]])
    for axis in (0, 1, 2, -1):
        assert_matches(kiln.linspace(start, stop, 6, axis=axis), numpy.linspace(start, stop, 6, axis=axis))
    got, step = kiln.linspace(start, stop, 5, retstep=True)
    assert_matches(step, numpy.linspace(start, stop, 5, retstep=True)[1])


def test_linspace_errors():
    with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative"):
        kiln.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        kiln.linspace(0, 1, 2.5)
    with pytest.raises(AxisError, match="axis 2 is out of bounds for array of dimension 1"):
        kiln.linspace(0, 1, 3, axis=2)
    with pytest.raises(TypeError, match="complex"):
        kiln.linspace(1j, 2j, 3, dtype=int)
    with pytest.raises(ValueError, match="shape mismatch"):
        kiln.linspace([1, 2], [1, 2, 3], 3)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_logspace_and_geomspace_every_dtype(dtype):
    # Exponents and ratios with exact powers of ten: integer truncation is exact.
    assert_matches(kiln.logspace(0, 3, 4, dtype=dtype), numpy.logspace(0, 3, 4, dtype=dtype))
    assert_matches(kiln.logspace(0, 4, 5, base=2, dtype=dtype), numpy.logspace(0, 4, 5, base=2, dtype=dtype))
    assert_matches(kiln.geomspace(1, 1000, 4, dtype=dtype), numpy.geomspace(1, 1000, 4, dtype=dtype))
    if dtype not in (numpy.bool_,) and numpy.dtype(dtype).kind != "u":
        assert_matches(kiln.geomspace(-1, -100, 3, dtype=dtype), numpy.geomspace(-1, -100, 3, dtype=dtype))


def test_logspace_values():
    assert_matches(kiln.logspace(-1.5, 2.25, 11), numpy.logspace(-1.5, 2.25, 11))
    assert_matches(kiln.logspace(0.5, 2, 6, endpoint=False, base=3.5), numpy.logspace(0.5, 2, 6, endpoint=False,
                                                                                      base=3.5))
    base = numpy.array([[2.0], [10.0], [0.5]])
    for axis in (0, 1, -1):
        assert_matches(kiln.logspace([0, 1], 3, 4, base=base, axis=axis),
                       numpy.logspace([0, 1], 3, 4, base=base, axis=axis))
    assert_matches(kiln.logspace(0, 2, 5, base=kiln.asarray(base)), numpy.logspace(0, 2, 5, base=base))
    assert_matches(kiln.logspace(numpy.float32(0), 2, 5), numpy.logspace(numpy.float32(0), 2, 5))
    assert_matches(kiln.logspace(1j, 2 + 1j, 5), numpy.logspace(1j, 2 + 1j, 5))
    assert_matches(kiln.logspace(0, 3, 4, base=1 + 1j), numpy.logspace(0, 3, 4, base=1 + 1j))
    with pytest.raises(ValueError, match="Number of samples"):
        kiln.logspace(0, 1, -2)


def test_geomspace_values():
    for start, stop, num, endpoint in [(1, 256, 9, True), (0.3, 7e5, 20, False), (-2, -1e-3, 7, True),
                                       (1j, 1000j, 4, True), (-1 + 0j, 1 + 0j, 5, True), (3 + 4j, -1e3j, 10, False),
                                       (5, 5, 1, True), (2, 8, 0, True)]:
        assert_matches(kiln.geomspace(start, stop, num, endpoint=endpoint),
                       numpy.geomspace(start, stop, num, endpoint=endpoint))
    start, stop = numpy.array([1.0, -2, 10]), numpy.array([[100.0], [-1e-3]])
    with numpy.errstate(invalid="ignore"):
        for axis in (0, 2):
            assert_matches(kiln.geomspace(kiln.asarray(start), stop, 5, axis=axis),
                           numpy.geomspace(start, stop, 5, axis=axis))
    assert_matches(kiln.geomspace(numpy.float32(1), numpy.float32(10), 4),
                   numpy.geomspace(numpy.float32(1), numpy.float32(10), 4))
    with pytest.raises(ValueError, match="Geometric sequence cannot include zero"):
        kiln.geomspace(0, 10, 3)
    with pytest.raises(ValueError, match="Geometric sequence cannot include zero"):
        kiln.geomspace(1, kiln.zeros(2), 3)


# --- matrices -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_eye_identity_tri(dtype):
    for n, m, k in [(4, None, 0), (3, 5, 1), (5, 3, -2), (3, 3, 7), (3, 4, -9), (0, 2, 0), (1, 1, 0)]:
        assert_matches(kiln.eye(n, m, k, dtype=dtype), numpy.eye(n, m, k, dtype=dtype))
        assert_matches(kiln.tri(n, m, k, dtype=dtype), numpy.tri(n, m, k, dtype=dtype))
    f = kiln.eye(3, 4, 1, dtype=dtype, order="F")
    assert f._f_contiguous
    assert_matches(f, numpy.eye(3, 4, 1, dtype=dtype, order="F"))
    assert_matches(kiln.identity(3, dtype), numpy.identity(3, dtype))
    assert_matches(kiln.tri(-1), numpy.tri(-1))
    assert kiln.identity(2).dtype == kiln.eye(2).dtype == kiln.tri(2).dtype == numpy.float64


def test_matrix_errors():
    with pytest.raises(ValueError, match="negative dimensions"):
        kiln.eye(-1)
    with pytest.raises(ValueError, match="negative dimensions"):
        kiln.identity(-2)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        kiln.tri(3, k=1.5)
    with pytest.raises(ValueError, match="Input must be 1- or 2-d"):
        kiln.diag(kiln.zeros((2, 2, 2)))
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        kiln.diagflat([1, 2], k=0.5)
    with pytest.raises(TypeError, match="tril\\(\\) needs an array of at least 1 dimension"):
        kiln.tril(kiln.asarray(3.0))
    with pytest.raises(TypeError, match="triu\\(\\) needs an array of at least 1 dimension"):
        kiln.triu(5)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_diag_tril_triu_any_layout(rng, dtype, layout):
    k, host = make(rng, layout, dtype)
    if host.ndim == 2:
        for offset in (0, 1, -2, 9):
            d = kiln.diag(k, offset)
            assert_matches(d, numpy.diag(host, offset))
            assert d.base is (k.base if k.base is not None else k)     # a view, as NumPy's
            assert_matches(kiln.tril(k, offset), numpy.tril(host, offset))
            assert_matches(kiln.triu(k, offset), numpy.triu(host, offset))
    line = k.ravel() if k.ndim else k.reshape(1)
    hline = host.ravel() if host.ndim else host.reshape(1)
    for offset in (0, 2, -1):
        assert_matches(kiln.diag(line, offset), numpy.diag(hline, offset))
        assert_matches(kiln.diagflat(k, offset), numpy.diagflat(host, offset))
        assert_matches(kiln.tril(line, offset), numpy.tril(hline, offset))
        assert_matches(kiln.triu(line, offset), numpy.triu(hline, offset))


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.complex128], ids=NAME)
def test_tril_triu_on_stacks(rng, dtype):
    host = random_array(rng, (2, 3, 4, 5), dtype)
    k = kiln.asarray(host)
    for offset in (0, 1, -1, 3):
        assert_matches(kiln.tril(k, offset), numpy.tril(host, offset))
        assert_matches(kiln.triu(k.transpose(0, 1, 3, 2), offset), numpy.triu(host.transpose(0, 1, 3, 2), offset))
    assert_matches(kiln.tril(host.tolist()), numpy.tril(host.tolist()))


def test_diag_of_a_matrix_is_a_writable_view():
    k = kiln.zeros((3, 3), numpy.int32)
    kiln.diag(k, 1)[...] = 7
    assert_matches(k, numpy.diag([7, 7], 1).astype(numpy.int32))


# --- grids ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_meshgrid(rng, dtype):
    x, y, z = (random_array(rng, n, dtype) for n in (3, 4, 2))
    kx, ky, kz = (kiln.asarray(v) for v in (x, y, z))
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            got = kiln.meshgrid(kx, ky, kz, sparse=sparse, indexing=indexing)
            expected = numpy.meshgrid(x, y, z, sparse=sparse, indexing=indexing)
            assert isinstance(got, tuple) and len(got) == 3
            for g, e in zip(got, expected):
                assert_matches(g, e)
                assert g.flags.owndata
    views = kiln.meshgrid(kx, ky, copy=False)
    for view, source, expected in zip(views, (kx, ky), numpy.meshgrid(x, y, copy=False)):
        assert view.base is source                                  # broadcast views, as NumPy's
        assert_matches(view, expected)
    assert_matches(kiln.meshgrid(x.reshape(1, 3))[0], numpy.meshgrid(x.reshape(1, 3))[0])
    assert kiln.meshgrid() == ()


def test_meshgrid_errors():
    with pytest.raises(ValueError, match="Valid values for `indexing` are 'xy' and 'ij'"):
        kiln.meshgrid([1], [2], indexing="x")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=NAME)
def test_indices_and_fromfunction(dtype):
    # bool indices: axes of length 2 at most, as NumPy's
    shape, sparse_shape = ((2, 1, 2), (1, 2)) if dtype == numpy.bool_ else ((2, 3, 4), (3, 2))
    assert_matches(kiln.indices(shape, dtype=dtype), numpy.indices(shape, dtype=dtype))
    for g, e in zip(kiln.indices(sparse_shape, dtype=dtype, sparse=True),
                    numpy.indices(sparse_shape, dtype=dtype, sparse=True)):
        assert_matches(g, e)
    if dtype == numpy.bool_:
        same_error(lambda: kiln.indices((1, 2, 3), dtype=bool), lambda: numpy.indices((1, 2, 3), dtype=bool))
    assert_matches(kiln.indices((0, 2), dtype=dtype), numpy.indices((0, 2), dtype=dtype))
    assert_matches(kiln.indices(()), numpy.indices(()))
    got = kiln.fromfunction(lambda i, j, k=None: j if k else i, (2, 2), dtype=dtype, k=True)
    assert_matches(got, numpy.fromfunction(lambda i, j, k=None: j if k else i, (2, 2), dtype=dtype, k=True))


def test_indices_and_fromfunction_errors():
    with pytest.raises(TypeError, match="not iterable"):
        kiln.indices(3)
    with pytest.raises(ValueError, match="negative dimensions"):
        kiln.indices((2, -1))
    with pytest.raises(TypeError, match="not iterable"):
        kiln.fromfunction(lambda i: i, 3)


def test_module_docstring_example_runs():
    import kiln._creation
    doc = kiln._creation.__doc__
    block = "\n".join(line[4:] for line in doc.splitlines() if line.startswith("    "))
    namespace = {}
    exec(block, namespace)
    assert_matches(namespace["x"], numpy.linspace(0, 1, 5))
    assert_matches(namespace["m"], numpy.tril(numpy.ones((3, 3), numpy.int32)))
    assert namespace["xx"].shape == namespace["yy"].shape == (2, 3)
    assert kiln.asnumpy(kiln.eye(2, k=1)).tolist() == [[0.0, 1.0], [0.0, 0.0]]


# --- diagonal (kiln.diagonal, ndarray.diagonal, kiln.linalg.diagonal and trace) ----

@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
def test_diagonal_is_a_view_over_any_axes(rng, layout):
    k, host = make(rng, layout, numpy.float64)
    assert host.ndim == 2
    k3 = kiln.stack([k, k * 2, k * 3], axis=1)      # (rows, 3, cols)
    h3 = numpy.stack([host, host * 2, host * 3], axis=1)
    for offset in (0, 1, -2, 3, 9, -9):
        assert_matches(kiln.diagonal(k, offset), numpy.diagonal(host, offset))
        assert_matches(k.diagonal(offset), host.diagonal(offset))
        for a1, a2 in ((0, 2), (2, 0), (-1, 1), (1, -3)):
            got = kiln.diagonal(k3, offset, a1, a2)
            assert_matches(got, numpy.diagonal(h3, offset, a1, a2))
            assert_matches(k3.diagonal(offset=offset, axis1=a1, axis2=a2), h3.diagonal(offset, a1, a2))
        assert_matches(kiln.linalg.diagonal(k3.transpose(1, 0, 2), offset=offset),
                       numpy.linalg.diagonal(h3.transpose(1, 0, 2), offset=offset))
    d = kiln.diagonal(k, 1)
    d[...] = -7      # writes into k: kiln's view is writable (NumPy's is read-only)
    assert (numpy.diagonal(k.get(), 1) == -7).all()
    assert_matches(kiln.diagonal(kiln.zeros((0, 3))), numpy.diagonal(numpy.zeros((0, 3))))


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float32, numpy.complex64], ids=NAME)
def test_linalg_trace(rng, dtype):
    host = random_array(rng, (2, 4, 5), dtype)
    k = kiln.asarray(host)
    for offset in (0, 2, -1, 7):
        assert_matches(kiln.linalg.trace(k, offset=offset), numpy.linalg.trace(host, offset=offset),
                       scale=numpy.abs(host).sum())
    assert_matches(kiln.linalg.trace(k, dtype=numpy.float64), numpy.linalg.trace(host, dtype=numpy.float64),
                   scale=numpy.abs(host).sum())
    assert_matches(numpy.linalg.trace(k), numpy.linalg.trace(host), scale=numpy.abs(host).sum())   # dispatch


def test_diagonal_errors():
    for module in (numpy, kiln):
        with pytest.raises(ValueError, match="diag requires an array of at least two dimensions"):
            module.diagonal(module.ones(3))
        with pytest.raises(ValueError, match="diag requires an array of at least two dimensions"):
            module.linalg.diagonal(module.ones(3))
        with pytest.raises(AxisError, match="axis2: axis 5 is out of bounds for array of dimension 2"):
            module.diagonal(module.ones((3, 3)), 0, 0, 5)
        with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same"):
            module.diagonal(module.ones((3, 3)), 0, 1, -1)
        with pytest.raises(TypeError):
            module.diagonal(module.ones((3, 3)), 1.0)


def test_sizes_beyond_int64_are_numpys_value_error():
    # Note [Array size limit]: checked before anything is allocated.
    for make in (lambda: kiln.empty((2**32, 2**32), dtype=kiln.int8), lambda: kiln.ones((2**33, 2**31)),
                 lambda: kiln.arange(2**62), lambda: kiln.tri(2**32), lambda: kiln.full((2**40, 2**40), 1.0)):
        with pytest.raises(ValueError, match="array is too big"):
            make()
    with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
        kiln.zeros(2**64)


def test_full_converts_python_scalars_as_numpy():
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        kiln.full(2, 300, dtype=kiln.int8)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        kiln.arange(300, 302, dtype=kiln.int8)
    assert kiln.full(2, numpy.array([300, 1]), dtype=kiln.int8).tolist() == [44, 1]   # arrays cast unsafely


def test_new_empty_arrays_have_zero_strides_and_no_memory():
    for shape in [(0,), (2, 0, 3), (0, 4)]:
        for order in "CF":
            assert kiln.empty(shape, order=order).strides == numpy.empty(shape, order=order).strides
        assert kiln.zeros(shape).data.ptr == 0 and kiln.zeros(shape).data.mem.size == 0
    assert kiln.asarray(numpy.zeros((3, 0))).strides == (0, 0)
    a = kiln.arange(12.0).reshape(3, 4)[:0]            # a view keeps its strides, as NumPy's
    assert a.strides == numpy.arange(12.0).reshape(3, 4)[:0].strides


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.bool_])
def test_arange_float16_and_bool(dtype):
    for args in [(2,), (1, 3), (1, -1, -1), (0, 0), (0, 10, None)]:
        try:
            want = numpy.arange(*args, dtype=dtype)
        except TypeError as e:
            with pytest.raises(TypeError, match="at most length 2"):
                kiln.arange(*args, dtype=dtype)
            assert "at most length 2" in str(e)
            continue
        got = kiln.arange(*args, dtype=dtype)
        assert got.dtype == want.dtype
        numpy.testing.assert_array_equal(got.get(), want)


def test_blocking_uploads_and_byte_swapped_host_data():
    host = numpy.arange(24, dtype=">i4").reshape(2, 3, 4)
    for convert in (kiln.array, kiln.asarray, kiln.asanyarray):
        got = convert(host, blocking=True)
        assert got.dtype == numpy.int32
        numpy.testing.assert_array_equal(got.get(), host)
    assert kiln.result_type(host, numpy.int8) == numpy.int32


def test_pinned_host_arrays():
    a = kiln.empty_pinned((3, 4), numpy.float32)
    assert isinstance(a, numpy.ndarray) and a.shape == (3, 4) and a.dtype == numpy.float32
    assert isinstance(a.base, kiln.cuda.PinnedMemoryPointer) and a.base.ptr == a.ctypes.data
    k = kiln.arange(12.0).reshape(3, 4)
    out = kiln.asnumpy(k, out=kiln.empty_like_pinned(k))
    numpy.testing.assert_array_equal(out, numpy.arange(12.0).reshape(3, 4))
    f = kiln.zeros_like_pinned(kiln.asfortranarray(k))             # order 'K' keeps the layout
    assert f.flags.f_contiguous and not f.any()
    assert kiln.zeros_pinned(5, numpy.int16).tolist() == [0] * 5
    assert kiln.empty_pinned(0).size == 0
