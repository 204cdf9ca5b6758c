"""packbits, unpackbits, binary_repr and base_repr against NumPy over
dtypes, layouts, axes and bit orders, with NumPy's errors
(arraycore/bit_packing.h)."""
import numpy
import pytest

import kiln
from conftest import LAYOUTS, assert_same_bits, make, same_error


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint16, numpy.int64], ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis,order", [(None, "big"), (0, "little"), (-1, "big")])
def test_packbits(rng, dtype, layout, axis, order):
    k, n = make(rng, layout, dtype, rng.integers(0, 2, (6, 8)).astype(dtype))
    assert_same_bits(kiln.packbits(k, axis=axis, bitorder=order).get(), numpy.packbits(n, axis=axis, bitorder=order))


@pytest.mark.parametrize("layout", ["C", "F", "negative", "empty"])
@pytest.mark.parametrize("axis,count,order", [(None, None, "big"), (1, None, "little"), (0, -3, "big"),
                                              (1, 13, "little"), (None, 5, "big")])
def test_unpackbits(rng, layout, axis, count, order):
    k, n = make(rng, layout, numpy.uint8)
    if n.size == 0 and count:   # NumPy leaves a positive count's bits past an empty input uninitialised
        return
    if count is not None and count < 0 and n.size == 0:
        same_error(lambda: kiln.unpackbits(k, axis, count, order), lambda: numpy.unpackbits(n, axis, count, order))
        return
    assert_same_bits(kiln.unpackbits(k, axis=axis, count=count, bitorder=order).get(),
                     numpy.unpackbits(n, axis=axis, count=count, bitorder=order))


def test_packing_errors():
    f, i = numpy.array([1.0, 2.0]), numpy.array([10, 20, 30])
    same_error(lambda: kiln.packbits(kiln.asarray(f)), lambda: numpy.packbits(f))
    same_error(lambda: kiln.unpackbits(kiln.asarray(i)), lambda: numpy.unpackbits(i))
    same_error(lambda: kiln.packbits(kiln.asarray(i), bitorder="r"), lambda: numpy.packbits(i, bitorder="r"))
    same_error(lambda: kiln.packbits(kiln.asarray(i), bitorder=10.4), lambda: numpy.packbits(i, bitorder=10.4))
    u = numpy.array([3], numpy.uint8)
    assert_same_bits(kiln.unpackbits(kiln.asarray(u), count=12).get(), numpy.unpackbits(u, count=12))   # zeros past the end
    same_error(lambda: kiln.unpackbits(kiln.asarray(u), count=-20), lambda: numpy.unpackbits(u, count=-20))


def test_binary_and_base_repr():
    assert kiln.binary_repr(-5, width=8) == numpy.binary_repr(-5, width=8)
    assert kiln.base_repr(255, 16, 2) == numpy.base_repr(255, 16, 2)
