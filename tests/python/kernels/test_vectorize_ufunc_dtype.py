"""kiln ufuncs called with dtype= inside a vectorized or kiln.jit function:
NumPy's loop for that dtype (transpiler/builtins.cpp ufunc_call), and
NumPy's casting error where the inputs cannot be cast to it."""
import numpy
import pytest

import kiln
from kiln import jit


def test_ufunc_dtype_keyword():
    def add_as_float32(a, b):
        return kiln.add(a, b, dtype=numpy.float32)

    def np_add_as_float32(a, b):
        return numpy.add(a, b, dtype=numpy.float32)

    a = numpy.arange(6, dtype=numpy.int16).reshape(2, 3)[:, ::-1]
    b = numpy.array([0.25, 1.5, -2.0], dtype=numpy.float64)
    got = kiln.vectorize(add_as_float32)(kiln.asarray(a), kiln.asarray(b))
    want = numpy.vectorize(np_add_as_float32, otypes=[numpy.float32])(a, b)
    assert got.dtype == numpy.float32
    numpy.testing.assert_array_equal(kiln.asnumpy(got), want)


def test_ufunc_dtype_keyword_that_numpy_cannot_cast():
    def add_as_int32(a, b):
        return kiln.add(a, b, dtype=numpy.int32)

    with pytest.raises(TypeError, match="same_kind"):
        numpy.add(numpy.float64(1.5), numpy.float64(2.0), dtype=numpy.int32)
    x = kiln.asarray([1.5, 2.5])
    with pytest.raises(TypeError, match="same_kind"):
        kiln.vectorize(add_as_int32)(x, x)


@jit.rawkernel()
def multiply_as_float32(x, out, n):
    i = jit.grid(1)
    if i < n:
        out[i] = kiln.multiply(x[i], 0.5, dtype=numpy.float32)


def test_jit_kernel_ufunc_dtype_keyword():
    x = kiln.arange(8, dtype=numpy.float64)
    out = kiln.zeros(8, dtype=numpy.float32)
    multiply_as_float32((1,), (8,), (x, out, numpy.int32(8)))
    numpy.testing.assert_array_equal(kiln.asnumpy(out), numpy.arange(8, dtype=numpy.float32) * 0.5)
