"""kiln.histogramdd against numpy.histogramdd: counts are exact, weight sums
of integer-valued weights too (Note [Atomic bin sums]); edges are NumPy's."""
import numpy
import pytest

import kiln
from conftest import same_error


def check(got, expected):
    (h, edges), (eh, eedges) = got, expected
    numpy.testing.assert_array_equal(h.get(), eh)
    assert h.dtype == eh.dtype and len(edges) == len(eedges)
    for e, ee in zip(edges, eedges):
        g = e.get()
        assert g.dtype == ee.dtype
        numpy.testing.assert_array_equal(g, ee)


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.float64], ids=lambda d: numpy.dtype(d).name)
def test_histogramdd(rng, dtype):
    s = (rng.random((200, 3)) * 100).astype(dtype)
    s[:3] = [[0, 0, 0], [99, 99, 99], [50, 10, 40]]
    ks = kiln.asarray(s)
    check(kiln.histogramdd(ks), numpy.histogramdd(s))
    check(kiln.histogramdd(ks, bins=(4, 6, 5), range=((20, 50), (10, 100), (0, 40))),
          numpy.histogramdd(s, bins=(4, 6, 5), range=((20, 50), (10, 100), (0, 40))))
    w = rng.integers(0, 5, 200)
    edges = [numpy.arange(0, 100, 9), numpy.array([0.0, 10, 50, 99]), numpy.arange(30)]
    check(kiln.histogramdd(ks[::-1], bins=[kiln.asarray(e) for e in edges], weights=kiln.asarray(w), density=True),
          numpy.histogramdd(s[::-1], bins=edges, weights=w, density=True))
    cols = [s[:, 0], s[:, 2]]
    check(kiln.histogramdd([kiln.asarray(c) for c in cols], bins=7), numpy.histogramdd(cols, bins=7))
    check(kiln.histogramdd(ks[:, 1], bins=5), numpy.histogramdd(s[:, 1], bins=5))
    check(kiln.histogramdd(ks[:0]), numpy.histogramdd(s[:0]))


def test_errors(rng):
    s = rng.random((16, 2)) * 100
    ks = kiln.asarray(s)
    same_error(lambda: kiln.histogramdd(ks, bins=[kiln.arange(5)] * 3),
               lambda: numpy.histogramdd(s, [numpy.arange(5)] * 3))
    same_error(lambda: kiln.histogramdd(ks, bins=0), lambda: numpy.histogramdd(s, bins=0))
    same_error(lambda: kiln.histogramdd(ks, bins=[kiln.asarray([0, 5, 2]), 3]),
               lambda: numpy.histogramdd(s, bins=[numpy.array([0, 5, 2]), 3]))
    same_error(lambda: kiln.histogramdd(ks, range=((0, 1),) * 3), lambda: numpy.histogramdd(s, range=((0, 1),) * 3))
    same_error(lambda: kiln.histogramdd(ks, bins=[1.5, 2]), lambda: numpy.histogramdd(s, bins=[1.5, 2]))
    same_error(lambda: kiln.histogramdd(ks, weights=kiln.ones(3)), lambda: numpy.histogramdd(s, weights=numpy.ones(3)))
