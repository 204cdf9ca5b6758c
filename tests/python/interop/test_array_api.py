"""The array API standard's keywords on kiln's functions (issue 24): device=
on the creation functions, descending= on sort/argsort, dtype= on
fftfreq/rfftfreq, __array_api_version__; against NumPy."""
import numpy
import pytest

import kiln

CREATIONS = [
    ("empty", lambda d: kiln.empty((2, 3), device=d), None),
    ("zeros", lambda d: kiln.zeros((2, 3), device=d), numpy.zeros((2, 3))),
    ("ones", lambda d: kiln.ones(4, dtype=kiln.int8, device=d), numpy.ones(4, numpy.int8)),
    ("full", lambda d: kiln.full((2,), 7.5, device=d), numpy.full((2,), 7.5)),
    ("arange", lambda d: kiln.arange(1, 9, 3, device=d), numpy.arange(1, 9, 3)),
    ("eye", lambda d: kiln.eye(3, k=1, device=d), numpy.eye(3, k=1)),
    ("linspace", lambda d: kiln.linspace(0, 1, 5, device=d), numpy.linspace(0, 1, 5)),
    ("asarray", lambda d: kiln.asarray([[1, 2], [3, 4]], device=d), numpy.asarray([[1, 2], [3, 4]])),
    ("zeros_like", lambda d: kiln.zeros_like(kiln.ones((2, 2)), device=d), numpy.zeros((2, 2))),
    ("ones_like", lambda d: kiln.ones_like(kiln.zeros(3, kiln.int32), device=d), numpy.ones(3, numpy.int32)),
    ("empty_like", lambda d: kiln.empty_like(kiln.zeros(3), device=d), None),
    ("full_like", lambda d: kiln.full_like(kiln.zeros(3), 2, device=d), numpy.full(3, 2.0)),
    ("fftfreq", lambda d: kiln.fft.fftfreq(5, 0.5, device=d), numpy.fft.fftfreq(5, 0.5)),
]


@pytest.mark.parametrize("name, make, expected", CREATIONS, ids=[c[0] for c in CREATIONS])
def test_creation_functions_take_device(name, make, expected):
    x = kiln.zeros(1)
    for device in (None, x.device, kiln.__array_namespace_info__().devices()[0], kiln.cuda.Device()):
        got = make(device)
        assert got.device == kiln.cuda.Device()
        if expected is not None:
            numpy.testing.assert_array_equal(kiln.asnumpy(got), expected)
            assert got.dtype == expected.dtype
    for bad in ("cpu", 0, object()):
        with pytest.raises(ValueError, match="is not a device kiln can use"):
            make(bad)


def test_asarray_to_another_device_and_copy():
    a = kiln.arange(3.0)
    assert kiln.asarray(a, device=a.device) is a
    b = kiln.asarray(a, device=a.device, copy=True)
    assert b is not a and kiln.asnumpy(b).tolist() == [0.0, 1.0, 2.0]
    if kiln.cuda.runtime.getDeviceCount() > 1:
        other = kiln.cuda.Device(1)
        c = kiln.asarray(a, device=other)
        assert c.device == other and kiln.asnumpy(c).tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(ValueError, match="copy=False"):
            kiln.asarray(a, device=other, copy=False)


@pytest.mark.parametrize("axis", [-1, 0, None])
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32])
def test_descending_sorts_keep_ties_in_order(rng, axis, dtype):
    xn = rng.integers(0, 4, (5, 7)).astype(dtype)      # many ties
    x = kiln.asarray(xn)
    flat = xn.reshape(-1) if axis is None else xn
    ax = 0 if axis is None else axis
    # Stable descending: sort -x ascending (exact for these values), stably.
    want = numpy.argsort(-flat, axis=ax, kind="stable")
    got = kiln.argsort(x, axis=axis, descending=True)
    numpy.testing.assert_array_equal(kiln.asnumpy(got), want)
    numpy.testing.assert_array_equal(kiln.asnumpy(kiln.sort(x, axis=axis, descending=True)),
                                     numpy.take_along_axis(flat, want, ax))
    numpy.testing.assert_array_equal(kiln.asnumpy(kiln.sort(x, axis=axis)), numpy.sort(xn, axis=axis))


def test_descending_zero_d_and_empty():
    assert kiln.asnumpy(kiln.argsort(kiln.asarray(3.0), descending=True)).tolist() == [0]
    assert kiln.sort(kiln.zeros((0, 3)), axis=0, descending=True).shape == (0, 3)
    assert kiln.argsort(kiln.zeros((2, 0)), descending=True).shape == (2, 0)


def test_fftfreq_dtype_and_version():
    f = kiln.fft.rfftfreq(8, 0.1, dtype=kiln.float32)
    assert f.dtype == numpy.float32
    numpy.testing.assert_allclose(kiln.asnumpy(f), numpy.fft.rfftfreq(8, 0.1), rtol=1e-6)
    assert kiln.fft.fftfreq(4, dtype=numpy.float64).dtype == numpy.float64
    with pytest.raises(ValueError, match="real floating-point"):
        kiln.fft.fftfreq(4, dtype=kiln.int32)
    assert kiln.__array_api_version__ == "2023.12"
    assert kiln.zeros(1).__array_namespace__().__array_api_version__ == "2023.12"


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128])
def test_finfo_floats_are_python_floats(dtype):
    for arg in (dtype, kiln.zeros(1, dtype)):
        f, ref = kiln.finfo(arg), numpy.finfo(dtype)
        for name in ("eps", "max", "min", "smallest_normal", "tiny", "resolution"):
            assert type(getattr(f, name)) is float and getattr(f, name) == float(getattr(ref, name))
        assert f.bits == ref.bits and f.dtype == ref.dtype and f.precision == ref.precision and f == ref
    with pytest.raises(ValueError):
        kiln.finfo(numpy.int32)
