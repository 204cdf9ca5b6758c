"""kiln's predicates against NumPy's: array_equiv, may_share_memory,
shares_memory, byte_bounds, isscalar, iscomplexobj, isrealobj, isfortran,
isneginf, isposinf, asarray_chkfinite and require."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_values, make, name

FLOAT_DTYPES = [d for d in ALL_DTYPES if numpy.dtype(d).kind == "f"]


# --- array_equiv -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("a, b", [
    ([0, 4, 1, 1], [0, 4, 1, 1]), ([0, 4, 1, 1], [0, 4, 0, 1]), ([0, 4, 0, 5], [0, 4, 0]),
    ([0, 4], [[0, 4], [0, 4]]), ([0, 4], [[0, 4], [0, 5]]), ([0, 4], [[0, 4, 0, 4]]), ([], []), ([1], [[]]),
    (1, [[1, 1]]),
], ids=repr)
def test_array_equiv(dtype, a, b):
    na, nb = numpy.array(a, dtype), numpy.array(b, dtype)
    got = kiln.array_equiv(kiln.asarray(na), kiln.asarray(nb))
    assert type(got) is bool and got == numpy.array_equiv(na, nb)


def test_array_equiv_mixed_dtypes_lists_and_nan():
    assert kiln.array_equiv(kiln.array([0.0, 1.0, 100.0]), kiln.array([0, 1, 100])) is True
    assert kiln.array_equiv(kiln.array([0.9e-5, 100.5]), kiln.array([0, 1000])) is False
    assert kiln.array_equiv([1, 2], [[1, 2], [1, 2]]) is True
    nan = [numpy.nan]
    assert kiln.array_equiv(kiln.array(nan), kiln.array(nan)) is numpy.array_equiv(nan, nan) is False


# --- may_share_memory, shares_memory, byte_bounds -------------------------------------------------------

def _views(base, size=4):
    """Slices of a 1-d and a 2-d view of `base` (kiln or NumPy), with every start, stop and step in -2..1."""
    slices = [slice(s, e, st) for s in range(size + 1) for e in range(s, size + 1) for st in (-2, -1, 1)]
    one = base[5:5 + size]
    two = base.reshape(size, size)
    out = [one[s] for s in slices]
    out += [two[s1, s2] for s1 in slices[::5] for s2 in slices[::4]]
    return out


def test_memory_questions_match_numpy_on_every_pair_of_views():
    ours, theirs = _views(kiln.empty(16)), _views(numpy.empty(16))
    for i, (a, na) in enumerate(zip(ours, theirs)):
        for b, nb in zip(ours[i::3], theirs[i::3]):
            assert kiln.may_share_memory(a, b) == numpy.may_share_memory(na, nb)
            assert kiln.shares_memory(a, b) == numpy.shares_memory(na, nb)
            assert kiln.may_share_memory(a, b, max_work=-1) == numpy.shares_memory(na, nb)


def test_shares_memory_exact_cases():
    for xp in (numpy, kiln):
        x = xp.arange(100)
        y = x.reshape(10, 10)
        results = [xp.shares_memory(x, x[1::4]), xp.shares_memory(x[0::2], x[1::4]),
                   xp.shares_memory(x[0::9], x[1::11]), xp.shares_memory(y[0::2], y[1::3]),
                   xp.shares_memory(y[0::2], y[1::4]), xp.shares_memory(y[0::2], y[::, 1::2]),
                   xp.may_share_memory(x[0::2], x[1::2]), xp.may_share_memory(x[0::2], x[1::2], max_work=0)]
        assert results == [True, False, True, True, False, True, True, True], xp
    z = kiln.zeros((2, 3), kiln.complex128)
    assert kiln.shares_memory(z, z.imag) is True and kiln.shares_memory(z.real, z.imag) is False
    x = kiln.arange(12)
    assert kiln.may_share_memory(x, kiln.arange(12)) is False
    assert kiln.may_share_memory(x[:0], x[:0]) is False and kiln.shares_memory(x[:0], x) is False
    assert kiln.shares_memory(x, numpy.arange(12)) is False and kiln.may_share_memory(numpy.ones(2), x) is False
    h = numpy.arange(4)
    assert kiln.shares_memory(h, h[1:]) is True   # two host arrays: NumPy's answer


def test_shares_memory_work_bound():
    x = kiln.arange(100)
    with pytest.raises(numpy.exceptions.TooHardError, match="Exceeded max_work"):
        kiln.shares_memory(x[0::2], x[1::2], max_work=10)
    assert kiln.shares_memory(x[0::2], x[1::2], max_work=100) is False
    with pytest.raises(numpy.exceptions.TooHardError, match="Exceeded max_work"):
        kiln.shares_memory(x[0::2], x[1::2], max_work=0)
    assert kiln.shares_memory(x[0:50], x[40:60], max_work=0) is True   # a contiguous view: no work
    assert kiln.shares_memory(x[0:50:2], x[60::2], max_work=0) is False   # spans apart: no work
    with pytest.raises(TypeError):
        kiln.shares_memory(x, x, max_work=1.5)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int16, numpy.float64, numpy.complex128], ids=name)
def test_byte_bounds_match_numpy_relative_to_the_first_element(rng, layout, dtype):
    k, h = make(rng, layout, dtype)
    low, high = kiln.byte_bounds(k)
    nlow, nhigh = numpy.lib.array_utils.byte_bounds(h)
    assert isinstance(low, int) and isinstance(high, int)
    first, nfirst = k.data.ptr, h.__array_interface__["data"][0]
    assert (low - first, high - first) == (nlow - nfirst, nhigh - nfirst)


def test_byte_bounds_exact_addresses():
    a = kiln.zeros((4, 7), kiln.float32)
    p = a.data.ptr
    assert kiln.byte_bounds(a) == (p, p + 4 * 7 * 4)
    assert kiln.byte_bounds(a[::2, ::2]) == (p, p + (2 * 7 + 6) * 4 + 4)   # a[2, 6] is the last
    assert kiln.byte_bounds(a[::-2, ::-2]) == (p + (1 * 7 + 0) * 4, p + 4 * 7 * 4)   # a[1, 0] ... a[3, 6]
    assert kiln.byte_bounds(a[::1, ::-1]) == (p, p + 4 * 7 * 4)
    e = kiln.zeros((19, 0, 4))
    assert kiln.byte_bounds(e) == (e.data.ptr, e.data.ptr)
    h = numpy.arange(3)
    assert kiln.byte_bounds(h) == numpy.lib.array_utils.byte_bounds(h)


# --- type predicates ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [0, 0.0, True, numpy.int32(1), numpy.array([1, 2]), numpy.complex128(1j), None,
                                   "abc", "", int, numpy.int32, object(), b"x", [1]],
                         ids=lambda v: type(v).__name__)
def test_isscalar(value):
    assert kiln.isscalar(value) == numpy.isscalar(value)


def test_isscalar_of_kiln_arrays_and_signature():
    import inspect
    assert kiln.isscalar(kiln.zeros(())) is False and kiln.isscalar(kiln.zeros(3)) is False
    assert inspect.signature(kiln.isscalar) == inspect.signature(numpy.isscalar)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_iscomplexobj_isrealobj(dtype):
    for x, nx in [(kiln.ones(5, dtype), numpy.ones(5, dtype)), (numpy.dtype(dtype).type(3),) * 2,
                  (numpy.ones((2, 3), dtype).tolist(),) * 2]:
        assert kiln.iscomplexobj(x) == numpy.iscomplexobj(nx)
        assert kiln.isrealobj(x) == numpy.isrealobj(nx)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_isfortran(rng, layout):
    k, h = make(rng, layout, numpy.float32)
    assert kiln.isfortran(k) == numpy.isfortran(h)
    assert kiln.isfortran(kiln.ones((4, 6), order="F")) is True and kiln.isfortran(kiln.ones(24)) is False


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [numpy.int32, numpy.uint8, numpy.bool_], ids=name)
def test_isneginf_isposinf(dtype):
    values = [-numpy.inf, numpy.inf, numpy.nan, 0.0, -0.0, 1.0, -2.0]
    h = numpy.array(values if numpy.dtype(dtype).kind == "f" else [0, 1, 1, 0], dtype)
    k = kiln.asarray(h)
    for fn in ("isneginf", "isposinf"):
        assert_same_values(getattr(kiln, fn)(k).get(), getattr(numpy, fn)(h))
        assert_same_values(getattr(kiln, fn)(k[::-2]).get(), getattr(numpy, fn)(h[::-2]))
        out = kiln.zeros(h.shape, kiln.bool_)
        assert getattr(kiln, fn)(k, out=out) is out
        assert_same_values(out.get(), getattr(numpy, fn)(h))
    assert_same_values(kiln.isneginf(kiln.asarray(h[0])).get(), numpy.asarray(numpy.isneginf(h[0])))


def test_isneginf_complex_is_type_error():
    for fn in ("isneginf", "isposinf"):
        with pytest.raises(TypeError) as expected:
            getattr(numpy, fn)(numpy.ones(2, numpy.complex64))
        with pytest.raises(TypeError) as got:
            getattr(kiln, fn)(kiln.ones(2, kiln.complex64))
        assert str(got.value) == str(expected.value)


# --- asarray_chkfinite, require -------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_asarray_chkfinite(dtype, order):
    got = kiln.asarray_chkfinite([[0, 4], [0, 5]], dtype=dtype, order=order)
    assert_same_values(got.get(), numpy.asarray_chkfinite([[0, 4], [0, 5]], dtype=dtype, order=order))
    k = kiln.asarray(numpy.arange(4).astype(dtype))
    assert kiln.asarray_chkfinite(k) is k


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d is not numpy.bool_], ids=name)
def test_asarray_chkfinite_non_finite(dtype):
    values = [-numpy.inf, 0.0, numpy.inf, numpy.nan]
    with pytest.raises(Exception) as expected:
        numpy.asarray_chkfinite(values, dtype=dtype)
    with pytest.raises(expected.type) as got:
        kiln.asarray_chkfinite(values, dtype=dtype)
    if expected.type is ValueError:
        assert str(got.value) == str(expected.value) == "array must not contain infs or NaNs"
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        kiln.asarray_chkfinite(kiln.asarray(numpy.array([1.0, numpy.nan]))[::-1])


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.float32, numpy.complex128], ids=name)
def test_require(dtype):
    x = kiln.zeros((2, 3, 4), dtype)
    assert kiln.require(x) is x and kiln.require(x, dtype, []) is x
    for flags, attr in [(["C_CONTIGUOUS"], "c_contiguous"), (["F"], "f_contiguous"), ("C", "c_contiguous"),
                        (["fortran"], "f_contiguous")]:
        arr = kiln.require(x, dtype, flags)
        assert getattr(arr.flags, attr) and arr.dtype == dtype
    assert kiln.require(x, None, ["C"]) is x
    view = x[:, ::2]
    owned = kiln.require(view, dtype, ["O"])
    assert owned.flags.owndata and kiln.shares_memory(owned, x) is False
    assert_same_values(owned.get(), view.get())
    converted = kiln.require(x, numpy.complex128, ["F", "O"])
    assert converted.dtype == numpy.complex128 and converted.flags.f_contiguous and converted.flags.owndata


def test_require_errors():
    x = kiln.zeros((2, 3))
    with pytest.raises(ValueError, match='Cannot specify both "C" and "F" order'):
        kiln.require(x, None, ["C", "F"])
    with pytest.raises(ValueError, match='Incorrect flag "W" in requirements'):
        kiln.require(x, None, ["W"])
    with pytest.raises(ValueError, match='Incorrect dtype "random" provided'):
        kiln.require(x, "random", "C")
