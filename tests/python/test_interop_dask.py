"""Dask arrays with kiln chunks (seeds: "Dask, the engine kiln users scale
out with"): dask.array.from_array(kiln_array, chunks=..., asarray=False),
computed with dask.compute; every chunk result is a kiln array."""
import numpy
import pytest

import kiln
from conftest import random_array

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


@pytest.fixture
def pair(rng):
    h = random_array(rng, (8, 6), numpy.float64)
    return h, da.from_array(kiln.asarray(h), chunks=(4, 3), asarray=False)


def _check(got, want):
    assert type(got) is kiln.ndarray
    numpy.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-12)


def test_chunks_stay_kiln_arrays(pair):
    h, d = pair
    assert type(d._meta) is kiln.ndarray and d.numblocks == (2, 2)
    got, = dask.compute(d)
    _check(got, h)
    got, = dask.compute(d[1:7, ::2].T)
    _check(got, h[1:7, ::2].T)


def test_reductions(pair):
    h, d = pair
    s, m0, m, v1, mx = dask.compute(d.sum(), d.mean(axis=0), d.mean(), d.var(axis=1), d.max(axis=1))
    _check(s, h.sum())
    _check(m0, h.mean(axis=0))
    _check(m, h.mean())
    _check(v1, h.var(axis=1))
    _check(mx, h.max(axis=1))


def test_elementwise_and_numpy_functions(pair):
    h, d = pair
    e, = dask.compute((d * 2 + 1).sum(axis=1))
    _check(e, (h * 2 + 1).sum(axis=1))
    s, = dask.compute(numpy.sin(d) + numpy.abs(d))
    _check(s, numpy.sin(h) + numpy.abs(h))
    c, = dask.compute(da.concatenate([d, d], axis=0))
    _check(c, numpy.concatenate([h, h], axis=0))


def test_svd(pair):
    # seeds: numpy.linalg.svd on a Dask array of kiln chunks. Until kiln has
    # linalg (issue 9) the chunk-level call raises TypeError naming it.
    h, _ = pair
    tall = da.from_array(kiln.asarray(h), chunks=(4, 6), asarray=False)
    u, s, v = numpy.linalg.svd(tall)
    if not hasattr(getattr(kiln, "linalg", None), "qr"):
        with pytest.raises(TypeError, match=r"numpy\.linalg\.qr"):
            dask.compute(s)
        return
    got, = dask.compute(s)
    numpy.testing.assert_allclose(kiln.asnumpy(got), numpy.linalg.svd(h, compute_uv=False), rtol=1e-10)
