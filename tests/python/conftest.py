"""Shared fixtures. Every test runs on whatever backend kiln selected
(KILN_BACKEND=host in CI, KILN_BACKEND=cuda on the GPU machine)."""
import numpy
import pytest

import kiln

# Remember every kernel source compiled during the session: test_nvrtc_sources
# (run last) compiles each again with NVRTC for sm_90.
kiln._core._record_sources(True)

ALL_DTYPES = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64,
              numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64,
              numpy.float16, numpy.float32, numpy.float64,
              numpy.complex64, numpy.complex128]


def pytest_configure(config):
    config.addinivalue_line("markers", "run_last: run after every other test")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("run_last") is not None)


@pytest.fixture
def rng():
    return numpy.random.default_rng(12345)


def random_array(rng, shape, dtype):
    """Random values of ``dtype``, spanning negatives where the dtype has them."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape,
                            endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


@pytest.fixture
def on_gpu():
    return kiln.get_backend() == "cuda"
