"""Host <-> device transfers: asarray/asnumpy/get/set over layouts, through the
direct path and through pinned staging (forced small here so that it runs on
every backend with many chunks), on the current stream and on a given one."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, make, random_array



@pytest.fixture(params=["direct", "staged"])
def staging(request):
    """Direct copies, or pinned staging of every transfer in 1000-byte chunks
    (an odd size, so chunks straddle elements)."""
    previous = kiln._core._set_staging(*((0, 1 << 23) if request.param == "direct" else (1, 1000)))
    yield request.param
    kiln._core._set_staging(*previous)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_round_trip_every_dtype(rng, staging, dtype):
    h = random_array(rng, (37, 29), dtype)
    k = kiln.asarray(h)
    numpy.testing.assert_array_equal(kiln.asnumpy(k), h)
    numpy.testing.assert_array_equal(k.get(), h)
    h2 = random_array(rng, (37, 29), dtype)
    k.set(h2)
    numpy.testing.assert_array_equal(k.get(), h2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_downloads_of_every_layout(rng, staging, layout):
    k, h = make(rng, layout, numpy.int64)
    numpy.testing.assert_array_equal(kiln.asnumpy(k), h)
    numpy.testing.assert_array_equal(kiln.asnumpy(k, order="F"), h)


@pytest.mark.parametrize("host_layout", ["F", "negative", "sliced"])
def test_uploads_of_host_layouts(rng, staging, host_layout):
    h = random_array(rng, (50, 40), numpy.float64)
    h = {"F": numpy.asfortranarray(h), "negative": h[::-1, ::-2], "sliced": h[3:40:3, 1:]}[host_layout]
    numpy.testing.assert_array_equal(kiln.asarray(h).get(), h)


def test_transfers_on_a_given_stream(rng, staging):
    h = random_array(rng, (1000,), numpy.float32)
    stream = kiln.cuda.Stream(non_blocking=True)
    with stream:
        k = kiln.asarray(h)
    out = numpy.empty_like(h)
    got = kiln.asnumpy(k, stream=stream, out=out, blocking=False)
    assert got is out
    stream.synchronize()
    numpy.testing.assert_array_equal(out, h)
    numpy.testing.assert_array_equal(k.get(stream=stream), h)


def test_non_blocking_download_into_pinned_memory(rng):
    h = random_array(rng, (4096,), numpy.float64)
    k = kiln.asarray(h)
    mem = kiln.cuda.alloc_pinned_memory(h.nbytes)
    out = numpy.frombuffer(mem, numpy.float64, h.size)
    stream = kiln.cuda.Stream()
    kiln.asnumpy(k, stream=stream, out=out, blocking=False)
    stream.synchronize()
    numpy.testing.assert_array_equal(out, h)


def test_staging_settings_are_checked():
    with pytest.raises(ValueError, match="chunk"):
        kiln._core._set_staging(1, 0)


@pytest.mark.parametrize("dtype", [">i4", ">f8", "<u2", ">c16", ">f2"])
def test_non_native_byte_order_is_converted(rng, dtype):
    h = numpy.arange(-5, 7).astype(dtype).reshape(3, 4)
    k = kiln.asarray(h)
    assert k.dtype == h.dtype.newbyteorder("=")
    numpy.testing.assert_array_equal(k.get(), h)
    k[1:] = h[1:] * 2
    numpy.testing.assert_array_equal(k[1:].get(), h[1:] * 2)


def test_complex_to_real_casts_warn():
    z = kiln.asarray(numpy.array([1 + 2j, 3 - 1j]))
    with pytest.warns(numpy.exceptions.ComplexWarning):
        r = z.astype(numpy.float64)
    numpy.testing.assert_array_equal(r.get(), [1.0, 3.0])
    x = kiln.zeros(2)
    with pytest.warns(numpy.exceptions.ComplexWarning):
        x[...] = z
    numpy.testing.assert_array_equal(x.get(), [1.0, 3.0])
