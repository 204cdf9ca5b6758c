"""Objects that stand for device arrays (Note [Foreign device operands]):
one with __cupy_get_ndarray__ (CuPy's protocol: it returns the array) and
one with __cuda_array_interface__ (another library's memory, viewed in
place) are taken wherever a kiln array is: ufuncs and operators,
reductions, ElementwiseKernel and ReductionKernel arguments, indexing,
assignment, creation (nested too), asnumpy and min_scalar_type. Results
are compared with the same call on the kiln array itself.

The interface producer describes kiln's own memory, so this runs on every
backend (the host backend's device memory is host memory)."""
import numpy
import pytest

import kiln
from conftest import random_array


class GetNDArray:
    """CuPy's __cupy_get_ndarray__ protocol."""

    def __init__(self, a):
        self.a = a

    def __cupy_get_ndarray__(self):
        return self.a


class Interface:
    """Only __cuda_array_interface__ (version 3, no stream)."""

    def __init__(self, a):
        self.a = a   # keeps the memory alive
        self.__cuda_array_interface__ = {
            "shape": a.shape, "typestr": a.dtype.str, "data": (a.data.ptr, False), "version": 3, "stream": None,
            "strides": a.strides}


KINDS = [GetNDArray, Interface]
ADD = kiln.ElementwiseKernel("T x, T y", "T z", "z = x + y", "foreign_add")
SUM = kiln.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "foreign_sum")


def same(got, want):
    assert isinstance(got, kiln.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    numpy.testing.assert_array_equal(got.get(), want.get())


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("layout", ["C", "transposed", "negative"])
def test_operands(rng, kind, layout):
    a = kiln.asarray(random_array(rng, (6, 5), numpy.int32))
    a = {"C": a, "transposed": a.T, "negative": a[::-1, ::2]}[layout]
    f = kind(a)
    same(kiln.add(f, 3), a + 3)
    same(a * f, a * a)
    same(f - a, a - a)
    same(kiln.sum(f, axis=0), a.sum(axis=0))
    same(kiln.add.reduce(f, axis=1), kiln.add.reduce(a, axis=1))
    same(ADD(f, a), a + a)
    same(ADD(a, f), a + a)
    same(SUM(f, axis=0), SUM(a, axis=0))
    same(SUM(f), SUM(a))
    numpy.testing.assert_array_equal(kiln.asnumpy(f), a.get())
    assert kiln.min_scalar_type(f) == a.dtype


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_creation_indexing_and_assignment(rng, kind):
    a = kiln.asarray(random_array(rng, (4, 3), numpy.float32))
    f = kind(a)
    b = kiln.asarray(f)
    assert b.shape == a.shape and b.data.ptr == a.data.ptr   # a view, no copy
    if kind is GetNDArray:
        assert b is a
    same(kiln.array([f, f]), kiln.stack([a, a]))
    same(kiln.asarray([f, f]), kiln.stack([a, a]))
    assert kiln.min_scalar_type([f, f]) == a.dtype
    idx = kiln.asarray(numpy.array([3, 0, 2]))
    same(a[kind(idx)], a[idx])
    same(a[kind(idx), 1:], a[idx, 1:])
    target = kiln.zeros((4, 3), numpy.float32)
    target[...] = f
    same(target, a)
    target.fill(0)
    target[1:] = kind(a[:3])
    same(target[1:], a[:3])


def test_protocol_errors():
    class Bad:
        def __cupy_get_ndarray__(self):
            return numpy.zeros(3)
    with pytest.raises(TypeError, match="__cupy_get_ndarray__ of Bad returned numpy.ndarray, not a kiln.ndarray"):
        kiln.add(Bad(), 1)
    with pytest.raises(TypeError, match="Unsupported type"):
        kiln.add(object(), 1)
    with pytest.raises(TypeError, match="unsupported type"):
        ADD(object(), 1)
