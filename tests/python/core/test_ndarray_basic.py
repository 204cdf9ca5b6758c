"""The part of the ndarray this issue needs: creation, transfers, attributes."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, random_array

SHAPES = [(), (0,), (7,), (3, 4), (2, 3, 5), (4, 0, 2)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip(rng, dtype, shape):
    host = random_array(rng, shape, dtype)
    a = kiln.asarray(host)
    assert a.shape == host.shape and a.dtype == host.dtype
    assert a.ndim == host.ndim and a.size == host.size and a.nbytes == host.nbytes
    assert a.itemsize == host.itemsize
    back = kiln.asnumpy(a)
    assert back.dtype == host.dtype and back.shape == host.shape
    numpy.testing.assert_array_equal(back, host)
    numpy.testing.assert_array_equal(a.get(), host)


@pytest.mark.parametrize("layout", ["fortran", "strided", "negative"])
def test_upload_any_host_layout(rng, layout):
    base = random_array(rng, (6, 8), numpy.float64)
    host = {"fortran": numpy.asfortranarray(base), "strided": base[::2, 1::3],
            "negative": base[::-1, ::-2]}[layout]
    numpy.testing.assert_array_equal(kiln.asarray(host).get(), host)


def test_get_fortran_order(rng):
    host = random_array(rng, (3, 5), numpy.int32)
    out = kiln.asarray(host).get(order="F")
    assert out.flags.f_contiguous
    numpy.testing.assert_array_equal(out, host)


def test_asnumpy_out(rng):
    host = random_array(rng, (4, 4), numpy.float32)
    out = numpy.empty((4, 4), numpy.float32)
    assert kiln.asnumpy(kiln.asarray(host), out=out) is out
    numpy.testing.assert_array_equal(out, host)
    with pytest.raises(ValueError, match="out must have shape"):
        kiln.asnumpy(kiln.asarray(host), out=numpy.empty(3, numpy.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_empty_and_zeros(dtype):
    z = kiln.zeros((3, 2), dtype=dtype)
    assert z.dtype == numpy.dtype(dtype) and z.shape == (3, 2) and z.strides == (2 * z.itemsize, z.itemsize)
    numpy.testing.assert_array_equal(z.get(), numpy.zeros((3, 2), dtype))
    e = kiln.empty(5, dtype=dtype)
    assert e.shape == (5,) and e.data.ptr != 0
    f = kiln.empty((3, 2), dtype=dtype, order="F")
    assert f.strides == (f.itemsize, 3 * f.itemsize)


def test_default_dtype_is_float64():
    assert kiln.zeros(3).dtype == numpy.float64
    assert kiln.empty((2, 2)).dtype == numpy.float64


def test_non_numeric_dtypes_are_refused():
    for bad in (object, str, "datetime64[s]", "U5"):
        with pytest.raises(TypeError, match="numbers only"):
            kiln.zeros(3, dtype=bad)


def test_bad_shapes():
    with pytest.raises(ValueError, match="negative dimensions"):
        kiln.empty((2, -1))
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        kiln.empty((2, 1.5))
    with pytest.raises(ValueError, match="order must be one of"):
        kiln.empty(3, order="X")


@pytest.mark.parametrize("args,dtype", [((10,), None), ((2, 20, 3), None), ((25,), "float32"),
                                        ((-5, 5), "int8"), ((0.5, 4.0, 0.25), None),
                                        ((10, 0, -3), "int64"), ((5, 1), None),
                                        ((1000,), "uint16"), ((3,), "float64")])
def test_arange_matches_numpy(args, dtype):
    expected = numpy.arange(*args, dtype=dtype)
    got = kiln.arange(*args, dtype=dtype)
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got.get(), expected)


def test_reshape_is_a_view():
    a = kiln.arange(24, dtype=kiln.int32)
    b = a.reshape(2, 3, 4)
    c = a.reshape((4, -1))
    assert b.shape == (2, 3, 4) and c.shape == (4, 6)
    assert b.data.ptr == a.data.ptr == c.data.ptr
    with pytest.raises(ValueError, match="cannot reshape array of size 24"):
        a.reshape(5, 5)


def test_no_implicit_host_conversion():
    a = kiln.zeros(3)
    with pytest.raises(TypeError, match="kiln.asnumpy"):
        numpy.asarray(a)


def test_repr_and_str_match_numpy():
    host = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    a = kiln.asarray(host)
    assert repr(a) == repr(host)
    assert str(a) == str(host)
    assert len(a) == 2
    with pytest.raises(TypeError, match="unsized"):
        len(kiln.zeros(()))
