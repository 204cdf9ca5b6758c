"""kiln.gradient against numpy.gradient.

kiln runs NumPy's steps with NumPy's operand types (Note [Gradient steps]
in arraycore/numeric_calculus.h), so results are compared value for value
(assert_same_values): spacing as a Python scalar (weak), a NumPy scalar or
0-d array (strong), uniform and non-uniform coordinates, edge_order 1 and
2, over layouts and dtypes; errors are NumPy's.
"""
import numpy
import pytest

import kiln
from conftest import LAYOUTS, assert_same_values, make, same_error


def check(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same_values(g.get(), e)
    else:
        assert isinstance(got, kiln.ndarray)
        assert_same_values(got.get(), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts(rng, layout):
    k, a = make(rng, layout, numpy.float64)
    if a.ndim and min(a.shape) < 2:
        same_error(lambda: kiln.gradient(k), lambda: numpy.gradient(a))
        return
    check(kiln.gradient(k), numpy.gradient(a))
    if a.ndim:
        got = kiln.gradient(k, axis=-1)
        assert got.strides == numpy.gradient(a, axis=-1).strides   # np.empty_like's memory order
        check(kiln.gradient(k, 2.0, axis=(1, 0), edge_order=2), numpy.gradient(a, 2.0, axis=(1, 0), edge_order=2))


# (dtype, spacing kind, edge_order): each spacing kind takes its own operand types.
CASES = [
    (numpy.float32, "python", 1), (numpy.float32, "numpy", 2), (numpy.float16, "python", 2),
    (numpy.float16, "coords", 1), (numpy.complex64, "coords", 2), (numpy.int16, "int", 1),
    (numpy.uint8, "uniform_coords", 2), (numpy.float64, "mixed", 2), (numpy.int64, "zero_d", 1),
]


def spacing(kind, shape, xp):
    if kind == "python":
        return (0.75,)
    if kind == "int":
        return (3,)
    if kind == "numpy":
        return (numpy.float32(0.3), numpy.float64(1.5))
    if kind == "zero_d":
        return (xp.asarray(numpy.float32(0.5)),)
    if kind == "uniform_coords":
        return tuple(xp.arange(n) * 2 for n in shape)
    x0 = numpy.cumsum(numpy.linspace(0.5, 2.0, shape[0]))
    x1 = numpy.arange(shape[1], dtype=numpy.int32) ** 2
    if kind == "mixed":
        return (xp.asarray(x0), 2)
    return (xp.asarray(x0.astype(numpy.float32)), xp.asarray(x1))


@pytest.mark.parametrize("dtype,kind,edge_order", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_spacing(rng, dtype, kind, edge_order):
    k, a = make(rng, "C", dtype)
    expected = numpy.gradient(a, *spacing(kind, a.shape, numpy), edge_order=edge_order)
    check(kiln.gradient(k, *spacing(kind, a.shape, kiln), edge_order=edge_order), expected)


def test_one_axis_and_1d(rng):
    k, a = make(rng, "negative", numpy.float32)
    check(kiln.gradient(k, axis=1), numpy.gradient(a, axis=1))
    check(kiln.gradient(k, 0.5, axis=(0,)), numpy.gradient(a, 0.5, axis=(0,)))
    check(kiln.gradient(k[0]), numpy.gradient(a[0]))
    check(kiln.gradient(k[:2, 0]), numpy.gradient(a[:2, 0]))        # two points: edges only
    check(kiln.gradient(kiln.asarray(numpy.float64(2.0))), numpy.gradient(numpy.float64(2.0)))


def test_errors(rng):
    k, a = make(rng, "C", numpy.float64)
    same_error(lambda: kiln.gradient(k, 1.0, 2.0, 3.0), lambda: numpy.gradient(a, 1.0, 2.0, 3.0))
    same_error(lambda: kiln.gradient(k, kiln.arange(6)), lambda: numpy.gradient(a, numpy.arange(6)))
    same_error(lambda: kiln.gradient(k, 1.0, kiln.arange(7)), lambda: numpy.gradient(a, 1.0, numpy.arange(7)))
    same_error(lambda: kiln.gradient(k, 1.0, kiln.ones((2, 4))), lambda: numpy.gradient(a, 1.0, numpy.ones((2, 4))))
    same_error(lambda: kiln.gradient(k, edge_order=3), lambda: numpy.gradient(a, edge_order=3))
    same_error(lambda: kiln.gradient(k[:2], axis=0, edge_order=2), lambda: numpy.gradient(a[:2], axis=0, edge_order=2))
    same_error(lambda: kiln.gradient(k, axis=2), lambda: numpy.gradient(a, axis=2))
    same_error(lambda: kiln.gradient(k, axis=(0, -2)), lambda: numpy.gradient(a, axis=(0, -2)))
    b = a > 50
    same_error(lambda: kiln.gradient(kiln.asarray(b)), lambda: numpy.gradient(b))
