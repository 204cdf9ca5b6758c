"""ndarray attributes: base/owndata, real/imag, view(dtype), set/get, iteration,
device, __array_priority__ and the refusal of implicit host conversion."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, make, random_array


COMPLEX = [numpy.complex64, numpy.complex128]


def test_base_and_owndata_follow_numpy():
    h = numpy.arange(24.0)
    k = kiln.asarray(h)
    assert k.base is None and k.flags.owndata and k.flags["OWNDATA"]
    kv, hv = k.reshape(4, 6), h.reshape(4, 6)
    for kview, hview in [(kv[1:], hv[1:]), (kv[::2, 1], hv[::2, 1]), (kv.T, hv.T), (kv[..., None], hv[..., None]),
                         (kv.view(numpy.int64), hv.view(numpy.int64)), (kv[1:][::-1], hv[1:][::-1])]:
        # NumPy points a view of a view at the array that owns the memory.
        assert (kview.base is k) == (hview.base is h) and kview.base is k
        assert not kview.flags.owndata
        for name in ("fnc", "forc", "c_contiguous", "f_contiguous"):    # NumPy's derived flags too
            assert getattr(kview.flags, name) == getattr(hview.flags, name), name
        for key in ("C", "F", "FNC", "FORC", "O", "W"):
            assert kview.flags[key] == hview.flags[key], key
    assert k.copy().base is None and k.astype(numpy.float32).base is None


def test_base_keeps_the_owner_alive():
    v = kiln.asarray(numpy.arange(10.0))[2:5]
    import gc
    gc.collect()
    numpy.testing.assert_array_equal(v.get(), [2.0, 3.0, 4.0])
    assert v.base.shape == (10,)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: numpy.dtype(d).name)
def test_real_imag_are_views(rng, dtype, layout):
    k, h = make(rng, layout, dtype)
    h = numpy.array(h)
    numpy.testing.assert_array_equal(k.real.get(), h.real)
    numpy.testing.assert_array_equal(k.imag.get(), h.imag)
    assert k.real.dtype == h.real.dtype and k.imag.strides == k.strides
    k.real = 3.5
    h.real = 3.5
    k.imag[...] = -2
    h.imag[...] = -2
    numpy.testing.assert_array_equal(k.get(), h)
    if h.size:
        k.imag = kiln.asarray(numpy.full(h.shape, 7, dtype=h.real.dtype))
        h.imag = 7
        numpy.testing.assert_array_equal(k.get(), h)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_shape_assignment_matches_numpy(rng, layout):
    """a.shape = s reshapes in place where a view can, as NumPy (one -1, an
    int); AttributeError where it would need a copy, ValueError for a wrong size."""
    for new in ((-1,), -1, (1, -1), (-1, 1, 1), (2, -1), (-1, 2), (3, 16), (4,)):
        k, x = make(rng, layout, numpy.float32)
        x = x if isinstance(x, numpy.ndarray) else numpy.array(x)   # 0-d: an array, not a NumPy scalar
        expected = outcome_of(lambda: setattr(x, "shape", new))
        got = outcome_of(lambda: setattr(k, "shape", new))
        if isinstance(expected, Exception):
            assert type(got) is type(expected), (layout, new, got, expected)
            if isinstance(expected, AttributeError):
                assert str(got) == str(expected)
            continue
        assert not isinstance(got, Exception), (layout, new, got)
        assert k.shape == x.shape, (layout, new)
        assert [s for s, n in zip(k.strides, k.shape) if n > 1] == [s for s, n in zip(x.strides, x.shape) if n > 1]
        numpy.testing.assert_array_equal(k.get(), x)


def outcome_of(f):
    try:
        return f()
    except Exception as e:   # noqa: BLE001  (the outcome is compared with NumPy's)
        return e


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.bool_], ids=lambda d: numpy.dtype(d).name)
def test_real_imag_of_real_arrays(rng, dtype):
    h = random_array(rng, (3, 4), dtype)
    k = kiln.asarray(h)
    assert k.real is k and h.real is h    # NumPy gives the array itself
    assert kiln.real(k) is k
    numpy.testing.assert_array_equal(k.real.get(), h.real)
    numpy.testing.assert_array_equal(k.imag.get(), h.imag)
    assert k.imag.dtype == h.imag.dtype
    k.real = 1
    numpy.testing.assert_array_equal(k.get(), numpy.ones_like(h))
    with pytest.raises(TypeError, match="imaginary part"):
        k.imag = 1


@pytest.mark.parametrize("to", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("src", [numpy.uint8, numpy.int32, numpy.float64, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).name)
def test_view_dtype_matches_numpy(rng, src, to):
    h = random_array(rng, (4, 16), src)
    k = kiln.asarray(h)
    to = numpy.dtype(to)
    hv = h.view(to)
    kv = k.view(to)
    assert kv.shape == hv.shape and kv.strides == hv.strides and kv.dtype == to
    numpy.testing.assert_array_equal(kv.get().view(numpy.uint8), hv.view(numpy.uint8))
    # Writes through the view land in the original.
    kv[0] = kiln.asarray(numpy.zeros(hv.shape[1:], to))
    hv[0] = 0
    numpy.testing.assert_array_equal(k.get().view(numpy.uint8), h.view(numpy.uint8))


@pytest.mark.parametrize("make_empty", [lambda xp: xp.zeros((0,), numpy.int32), lambda xp: xp.zeros((3, 0), numpy.int32),
                                        lambda xp: xp.ones((3, 20), numpy.int16)[:0, ::2],
                                        lambda xp: xp.zeros((0, 4), numpy.int32, order="F")])
def test_view_of_empty_arrays(make_empty):
    """Without elements a view to another itemsize needs no contiguous last
    axis (NumPy's rule); the last axis is rescaled as usual, or ValueError."""
    for to in (numpy.int8, numpy.int16, numpy.int64, numpy.complex128):
        try:
            h = make_empty(numpy).view(to)
        except ValueError as e:
            with pytest.raises(ValueError, match="must be a divisor"):
                make_empty(kiln).view(to)
            assert "must be a divisor" in str(e)
            continue
        k = make_empty(kiln).view(to)
        assert k.shape == h.shape and k.strides[-1] == h.strides[-1] and k.dtype == to
        assert (k.flags.c_contiguous, k.flags.f_contiguous) == (h.flags.c_contiguous, h.flags.f_contiguous)


def test_view_errors_and_types(rng):
    k = kiln.asarray(numpy.arange(12, dtype=numpy.float32).reshape(3, 4))
    with pytest.raises(ValueError, match="last axis must be contiguous"):
        k.T.view(numpy.float64)
    with pytest.raises(ValueError, match="divisor"):
        k[:, :3].view(numpy.float64)
    with pytest.raises(ValueError, match="0d array"):
        k[0, 0].view(numpy.float64)
    for host_type in (lambda: k.view(numpy.ndarray), lambda: k.view(type=numpy.ndarray)):   # CuPy's ValueError
        with pytest.raises(ValueError, match="cannot be viewed as <class 'numpy.ndarray'>: its memory is device"):
            host_type()
    with pytest.raises(TypeError, match="view's type must be kiln.ndarray"):
        k.view(type=object)
    assert k.view(kiln.ndarray).dtype == k.dtype and k.view().base is k
    assert k.view(type=kiln.ndarray).shape == (3, 4)
    assert k[0, 0].view(numpy.int32).shape == ()
    numpy.testing.assert_array_equal(k[:, 2:4].view(numpy.float64).get(),
                                     k[:, 2:4].get().view(numpy.float64))
    with pytest.raises(ValueError, match="not be aligned for float64"):   # Note [Aligned arrays]
        k[:, 1:3].view(numpy.float64)
    with pytest.raises(ValueError, match="not be aligned for complex128"):
        kiln.zeros((3, 5), dtype=numpy.float32)[:, :4].view(numpy.complex128)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_set_writes_every_layout(rng, dtype, layout):
    k, h = make(rng, layout, dtype)
    new = numpy.asarray(random_array(rng, h.shape, dtype))
    k.set(new)
    numpy.testing.assert_array_equal(k.get(), new)
    if layout != "C" and k.base is not None and h.base is not None:
        h[...] = new   # the base sees the write, exactly where NumPy's does
        numpy.testing.assert_array_equal(k.base.get(), h.base if h.base.shape == k.base.shape else k.base.get())


def test_set_errors():
    k = kiln.zeros((2, 3))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        k.set([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError, match="int64 array cannot be set to float64"):
        k.set(numpy.zeros((2, 3), numpy.int64))
    with pytest.raises(ValueError, match="Shape mismatch"):
        k.set(numpy.zeros((3, 2)))
    k.set(numpy.asfortranarray(numpy.arange(6.0).reshape(2, 3)))
    numpy.testing.assert_array_equal(k.get(), numpy.arange(6.0).reshape(2, 3))
    k.set(numpy.arange(12.0).reshape(2, 6)[:, ::2])
    numpy.testing.assert_array_equal(k.get(), numpy.arange(12.0).reshape(2, 6)[:, ::2])


@pytest.mark.parametrize("out_layout", ["C", "F", "strided"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_get_into_out(rng, layout, out_layout):
    k, h = make(rng, layout, numpy.float32)
    h = numpy.asarray(h)
    if out_layout == "C":
        out = numpy.empty(h.shape, h.dtype)
    elif out_layout == "F":
        out = numpy.empty(h.shape, h.dtype, order="F")
    else:
        out = numpy.empty(tuple(2 * n for n in h.shape), h.dtype)[(slice(None, None, 2),) * h.ndim + (...,)]
    assert k.get(out=out) is out
    numpy.testing.assert_array_equal(out, h)
    out2 = numpy.empty_like(out)
    assert kiln.asnumpy(k, out=out2) is out2
    numpy.testing.assert_array_equal(out2, h)
    got = k.get(order="F")
    assert got.flags.f_contiguous
    numpy.testing.assert_array_equal(got, h)


def test_get_out_errors():
    k = kiln.zeros((2, 3), dtype=numpy.float32)
    with pytest.raises(ValueError, match="shape"):
        k.get(out=numpy.empty((3, 2), numpy.float32))
    with pytest.raises(ValueError, match="dtype"):
        k.get(out=numpy.empty((2, 3), numpy.float64))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        k.get(out=[0] * 6)
    ro = numpy.empty((2, 3), numpy.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        k.get(out=ro)
    with pytest.raises(ValueError, match="order"):
        k.get(order="X")


def test_iteration_yields_views_of_the_first_axis(rng):
    h = random_array(rng, (4, 3), numpy.int32)
    k = kiln.asarray(h)
    rows = list(k)
    assert len(rows) == 4 and all(r.base is k for r in rows)
    for r, e in zip(rows, h):
        numpy.testing.assert_array_equal(r.get(), e)
    assert [int(x) for x in k[0]] == list(h[0])
    assert list(kiln.zeros((0, 3))) == []
    with pytest.raises(TypeError, match="0-d"):
        iter(kiln.zeros(()))


def test_device_priority_and_implicit_conversion():
    k = kiln.zeros(3)
    assert k.device.id == kiln.cuda.Device().id
    assert k.__array_priority__ > numpy.zeros(1).__array_priority__
    with pytest.raises(TypeError, match="asnumpy"):
        numpy.asarray(k)
    with pytest.raises(TypeError, match="asnumpy"):
        numpy.array([k, k])


def test_module_utilities():
    assert kiln.get_array_module(kiln.zeros(1)) is kiln
    assert kiln.get_array_module(numpy.zeros(1), 3, kiln.zeros(1)) is kiln
    assert kiln.get_array_module(numpy.zeros(1), 3) is numpy
    assert kiln.get_array_module() is numpy
    assert isinstance(kiln.zeros(1), kiln.ndarray) and not isinstance(numpy.zeros(1), kiln.ndarray)
    assert kiln.newaxis is None and kiln.pi == numpy.pi and kiln.e == numpy.e
    assert kiln.inf == numpy.inf and numpy.isnan(kiln.nan)
    assert kiln.float16 is numpy.float16 and kiln.zeros(1, kiln.complex64).dtype == numpy.complex64


@pytest.mark.parametrize("bad", [object, str, "U5", "S3"])   # datetime64, timedelta64 and V<n> are held as bytes
def test_non_numeric_dtypes_are_refused(bad):
    """ValueError, as CuPy's "Unsupported dtype" (creation and uploads alike)."""
    with pytest.raises(ValueError, match="Unsupported dtype .*numbers only"):
        kiln.zeros(2, dtype=bad)
    with pytest.raises(ValueError, match="Unsupported dtype"):
        kiln.asarray(numpy.zeros(2, dtype=bad) if bad is not object else numpy.array([None, 1]))
