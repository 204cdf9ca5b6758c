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


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32])
def test_svd(rng, dtype):
    # seeds: numpy.linalg.svd on a Dask array of kiln chunks (Dask's tsqr:
    # numpy.linalg.qr on every row block, then qr and svd of the stacked Rs,
    # all dispatched to kiln.linalg), u, s and v computed together.
    h = random_array(rng, (40, 6), dtype)
    tall = da.from_array(kiln.asarray(h), chunks=(10, 6), asarray=False)
    u, s, v = numpy.linalg.svd(tall)
    u, s, v = dask.compute(u, s, v)
    assert all(type(x) is kiln.ndarray for x in (u, s, v))
    assert (u.shape, s.shape, v.shape) == ((40, 6), (6,), (6, 6))
    assert u.dtype == s.dtype == v.dtype == dtype
    eps = numpy.finfo(dtype).eps
    want = numpy.linalg.svd(h.astype(numpy.float64), compute_uv=False)
    # singular values are well conditioned: error <= a few eps * s_max * sqrt(m)
    numpy.testing.assert_allclose(s.get(), want, rtol=0, atol=40 * eps * want[0])
    hu, hv = u.get().astype(numpy.float64), v.get().astype(numpy.float64)
    numpy.testing.assert_allclose(hu.T @ hu, numpy.eye(6), rtol=0, atol=40 * eps)
    numpy.testing.assert_allclose((hu * s.get()) @ hv, h, rtol=0, atol=40 * eps * want[0])


def test_seed_example_random_input():
    # The seeds' exact spelling, smaller: kiln.random.random, chunks of rows.
    x = kiln.random.random((3000, 20))
    dx = da.from_array(x, chunks=(1000, 20), asarray=False)
    u, s, v = numpy.linalg.svd(dx)
    u, s, v = dask.compute(u, s, v)
    want = numpy.linalg.svd(x.get(), compute_uv=False)
    numpy.testing.assert_allclose(s.get(), want, rtol=1e-12)
    numpy.testing.assert_allclose((u.get() * s.get()) @ v.get(), x.get(), rtol=0, atol=1e-12 * want[0])
