"""The CUDA Array Interface (v3), external streams and RMM-style allocators.

Import runs on every backend: the producers here describe kiln's own device
memory (host memory on the host backend, where kiln's device is the CPU), so
kiln.asarray's zero-copy path, its checks and its stream handling are tested
in CI. Export exists on the CUDA backend only (Note [CAI export])."""
import gc
import os
import subprocess
import sys
import weakref

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, random_array

ON_CUDA = kiln.get_backend() == "cuda"
cuda_only = pytest.mark.skipif(not ON_CUDA, reason="__cuda_array_interface__ exists on the CUDA backend only")


class Producer:
    """Another library's device array: only __cuda_array_interface__."""

    def __init__(self, cai, owner=None):
        self.__cuda_array_interface__ = cai
        self.owner = owner


def describe(a, version=3, stream=None, **extra):
    """The interface a producer would give for kiln array a's memory."""
    cai = {"shape": a.shape, "typestr": a.dtype.str, "data": (a.data.ptr, False), "version": version,
           "strides": None if a.flags.c_contiguous else a.strides}
    if version >= 3:
        cai["stream"] = stream
    cai.update(extra)
    return cai


def _views(a):
    return {"c": a, "t": a.T, "step": a[::2, 1::3], "neg": a[::-1, ::-2], "0d": a[1, 2], "empty": a[:0],
            "f": kiln.asfortranarray(a)}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_import_is_zero_copy_for_every_dtype(rng, dtype):
    h = random_array(rng, (4, 5), dtype)
    base = kiln.asarray(h)
    got = kiln.asarray(Producer(describe(base)))
    assert type(got) is kiln.ndarray and got.dtype == h.dtype and got.shape == h.shape
    assert got.data.ptr == base.data.ptr
    numpy.testing.assert_array_equal(got.get(), h)


def test_import_every_layout(rng):
    h = random_array(rng, (6, 7), numpy.float32)
    base = kiln.asarray(h)
    hv = {"c": h, "t": h.T, "step": h[::2, 1::3], "neg": h[::-1, ::-2], "0d": h[1, 2], "empty": h[:0],
          "f": h}
    for name, v in _views(base).items():
        got = kiln.asarray(Producer(describe(v)))
        # Without elements, an import that gives no strides has a new array's all-0 strides (CuPy's and NumPy 2's).
        assert got.shape == v.shape and got.strides == (v.strides if v.size else (0,) * v.ndim), name
        if v.size:
            assert got.data.ptr == v.data.ptr, name
        numpy.testing.assert_array_equal(got.get(), hv[name], err_msg=name)
    # Writes through the imported array land in the producer's memory.
    got = kiln.asarray(Producer(describe(base[::-1, ::-2])))
    got[0, 0] = 1234.0
    assert float(base[5, 6]) == 1234.0


def test_import_keeps_the_producer_alive():
    base = kiln.arange(10)
    p = Producer(describe(base), owner=base)
    alive = weakref.ref(p)
    got = kiln.asarray(p)
    view = got[2:5]
    del p, got
    gc.collect()
    assert alive() is not None, "kiln keeps the producer while its memory is used"
    assert view.get().tolist() == [2, 3, 4]
    del view
    gc.collect()
    assert alive() is None


def test_asarray_and_array_options():
    base = kiln.arange(6, dtype=kiln.int32)
    p = Producer(describe(base))
    assert kiln.asarray(p, copy=False).data.ptr == base.data.ptr
    c = kiln.array(p)           # array() copies by default, as numpy.array
    assert c.data.ptr != base.data.ptr and c.get().tolist() == list(range(6))
    f = kiln.asarray(p, dtype=kiln.float64)
    assert f.dtype == numpy.float64 and f.get().tolist() == list(range(6))
    with pytest.raises(ValueError, match="avoid copy"):
        kiln.asarray(p, dtype=kiln.float64, copy=False)


def test_stream_key():
    base = kiln.arange(4.0)
    s = kiln.cuda.Stream(non_blocking=True)
    for stream in (None, 1, 2, s.ptr if ON_CUDA else 7):
        assert kiln.asarray(Producer(describe(base, stream=stream))).data.ptr == base.data.ptr
    assert kiln.asarray(Producer(describe(base, version=2))).data.ptr == base.data.ptr
    with pytest.raises(ValueError, match="stream 0 is disallowed"):
        kiln.asarray(Producer(describe(base, stream=0)))


def test_malformed_interfaces_are_refused():
    base = kiln.arange(4.0)
    with pytest.raises(ValueError, match="does not support a __cuda_array_interface__ with a mask"):
        kiln.asarray(Producer(describe(base, mask=base)))
    with pytest.raises(ValueError, match="byte-order values: typestr '>f8' is byte-swapped"):
        kiln.asarray(Producer(describe(base, typestr=">f8")))
    with pytest.raises(ValueError, match="numbers only"):
        kiln.asarray(Producer(describe(base, typestr="|O")))
    bad = describe(base)
    del bad["data"]
    with pytest.raises(TypeError, match="'data'"):
        kiln.asarray(Producer(bad))
    with pytest.raises(TypeError, match="dict"):
        kiln.asarray(Producer([1, 2]))
    with pytest.raises(ValueError, match="differ in length"):
        kiln.asarray(Producer(describe(base, strides=(8, 8))))


def test_sync_opt_out_is_read_from_the_environment():
    code = "import kiln, kiln._interop_cai as m; print(m.SYNC)"
    for value, want in (("0", "False"), ("1", "True")):
        env = dict(os.environ, KILN_CUDA_ARRAY_INTERFACE_SYNC=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == want


def test_import_without_sync(monkeypatch):
    from kiln import _interop_cai
    monkeypatch.setattr(_interop_cai, "SYNC", False)
    base = kiln.arange(4.0)
    assert kiln.asarray(Producer(describe(base, stream=2))).data.ptr == base.data.ptr


@cuda_only
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_export_every_layout(rng, dtype):
    h = random_array(rng, (6, 7), dtype)
    base = kiln.asarray(h)
    for name, v in _views(base).items():
        cai = v.__cuda_array_interface__
        assert set(cai) >= {"shape", "typestr", "data", "strides", "version", "stream", "descr"}, name
        assert cai["version"] == 3 and cai["shape"] == v.shape and cai["typestr"] == numpy.dtype(dtype).str
        assert cai["descr"] == [("", numpy.dtype(dtype).str)]
        assert cai["data"] == ((v.data.ptr if v.size else 0), False), name
        assert cai["strides"] == (None if v.flags.c_contiguous else v.strides), name
        assert cai["stream"] == 1, "kiln's null stream is the legacy default stream"
        back = kiln.asarray(Producer(cai))
        numpy.testing.assert_array_equal(back.get(), v.get(), err_msg=name)


@cuda_only
def test_export_names_the_current_stream():
    a = kiln.zeros(3)
    s = kiln.cuda.Stream()
    with s:
        assert a.__cuda_array_interface__["stream"] == s.ptr
    assert a.__cuda_array_interface__["stream"] == 1


def test_external_stream():
    own = kiln.cuda.Stream()
    ext = kiln.cuda.ExternalStream(own.ptr)
    assert ext.ptr == own.ptr and isinstance(ext, kiln.cuda.Stream)
    with ext:
        assert kiln.cuda.get_current_stream().ptr == own.ptr
        a = kiln.arange(5) + 1
    ext.synchronize()
    assert a.get().tolist() == [1, 2, 3, 4, 5]
    assert kiln.cuda.get_current_stream().ptr == 0
    ext.use()
    try:
        assert kiln.cuda.get_current_stream() is ext
    finally:
        kiln.cuda.Stream.null.use()
    del ext   # kiln never destroys an external stream: own stays usable
    own.synchronize()
    assert kiln.cuda.ExternalStream(0).ptr == 0
    with pytest.raises(ValueError, match="device"):
        kiln.cuda.ExternalStream(own.ptr, device_id=kiln.cuda.runtime.getDeviceCount())


class _DeviceBuffer:
    """What RMM's allocator owns per allocation (rmm.DeviceBuffer's role)."""

    def __init__(self, size, stream_ptr):
        self.stream_ptr = stream_ptr
        self._mem = kiln.get_default_memory_pool().malloc(size)
        self.ptr, self.size = self._mem.ptr, size


def test_set_allocator_takes_rmm_style_allocators():
    # The shape of rmm.rmm_cupy_allocator, written against kiln: a buffer
    # made on the current stream, wrapped in UnownedMemory (device_id -1 when
    # the pointer is set: "find out") and returned as a MemoryPointer.
    buffers = []

    def rmm_style_allocator(nbytes):
        stream = kiln.cuda.get_current_stream()
        buf = _DeviceBuffer(nbytes, stream.ptr)
        buffers.append(weakref.ref(buf))
        dev_id = -1 if buf.ptr else kiln.cuda.runtime.getDevice()
        mem = kiln.cuda.UnownedMemory(ptr=buf.ptr, size=buf.size, owner=buf, device_id=dev_id)
        return kiln.cuda.MemoryPointer(mem, 0)

    kiln.cuda.set_allocator(rmm_style_allocator)
    try:
        a = kiln.arange(1000, dtype=kiln.float32)
        b = a * 2
        assert a.device.id == kiln.cuda.runtime.getDevice()
        assert b.get().tolist() == [2.0 * i for i in range(1000)]
        assert all(r() is not None for r in buffers)
    finally:
        kiln.cuda.set_allocator(None)
    assert len(buffers) >= 2
    del a, b
    gc.collect()
    assert all(r() is None for r in buffers), "each buffer is released with its array"
