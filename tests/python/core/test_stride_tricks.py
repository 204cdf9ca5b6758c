"""kiln.lib.stride_tricks against NumPy: as_strided and sliding_window_view
over layouts, with NumPy's errors (arraycore/stride_tricks.h)."""
import numpy
import pytest

import kiln
from kiln.lib.stride_tricks import as_strided, sliding_window_view
from conftest import assert_same_bits, make, same_error
from numpy.lib import stride_tricks as nst


@pytest.mark.parametrize("layout", ["C", "F", "negative"])
@pytest.mark.parametrize("window,axis", [((2, 3), None), (3, 1), ((2, 2), (0, 0)), (0, -1)])
def test_sliding_window_view(rng, layout, window, axis):
    k, n = make(rng, layout, numpy.float32)
    got = sliding_window_view(k, window, axis)
    assert_same_bits(got.get(), nst.sliding_window_view(n, window, axis))
    assert not got.flags.writeable and got.base is not None


def test_sliding_window_errors():
    n = numpy.zeros((3, 4))
    k = kiln.asarray(n)
    for window, axis in [((2,), None), (-1, 0), (5, 0), ((2, 2), 0), (2, 3)]:
        same_error(lambda: sliding_window_view(k, window, axis), lambda: nst.sliding_window_view(n, window, axis))


def test_as_strided():
    n = numpy.arange(12, dtype=numpy.int32)
    k = kiln.asarray(n)
    got = as_strided(k, (3, 4), (8, 4))
    assert_same_bits(got.get(), nst.as_strided(n, (3, 4), (8, 4)))
    got[0, 1] = 100                                      # writable by default: writes k
    assert int(k[1]) == 100
    assert not as_strided(k, writeable=False).flags.writeable
    assert_same_bits(as_strided(k[::-2]).get(), k.get()[::-2])
    with pytest.raises(ValueError):
        as_strided(k, (13,), (4,))                       # outside the memory: refused (NumPy reads it)
