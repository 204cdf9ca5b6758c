"""DLPack: the seeds' examples, round trips with NumPy, capsule ownership
(no leak, no double free), copy=/dl_device=/stream= semantics. Runs on
every backend; what differs (host memory is the host backend's device
memory) is said where it does."""
import gc
import sys

import numpy
import pytest

import kiln
from kiln import _core
from conftest import ALL_DTYPES, random_array

ON_CUDA = kiln.get_backend() == "cuda"
HERE = (2, 0) if ON_CUDA else (1, 0)


def _layouts(a):
    """Views of a (a 2-d array) in the layouts an export must describe."""
    return {"c": a, "t": a.T, "step": a[::2, 1::3], "neg": a[::-1, ::-2], "row": a[1], "0d": a[1, 2],
            "empty": a[:0], "f": kiln.asfortranarray(a)}


def test_seed_dlpack_example(rng):
    # seeds/000 "DLPack": toDlpack, then from_dlpack (and seeds/001's fromDlpack).
    cx1 = kiln.asarray(rng.standard_normal((1, 2, 3, 4))).astype(kiln.float32)
    dx = cx1.toDlpack()
    cx2 = kiln.from_dlpack(dx)
    assert cx2.data.ptr == cx1.data.ptr and cx2.shape == (1, 2, 3, 4) and cx2.dtype == numpy.float32
    cx3 = kiln.fromDlpack(cx1.toDlpack())
    assert cx3.data.ptr == cx1.data.ptr
    cx2[0, 0, 0, 0] = 5.0
    assert float(cx1[0, 0, 0, 0]) == 5.0 and float(cx3[0, 0, 0, 0]) == 5.0


def test_dlpack_device():
    assert kiln.zeros(2).__dlpack_device__() == HERE


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_every_dtype_round_trips(rng, dtype):
    h = random_array(rng, (3, 5), dtype)
    a = kiln.asarray(h)
    for versioned in (False, True):
        cap = a.__dlpack__(max_version=(1, 0) if versioned else None)
        b = kiln.from_dlpack(cap)
        assert b.dtype == h.dtype and b.data.ptr == a.data.ptr
        numpy.testing.assert_array_equal(b.get(), h)
    # NumPy as the producer: copied onto the device on every backend.
    c = kiln.from_dlpack(h)
    assert c.dtype == h.dtype
    numpy.testing.assert_array_equal(c.get(), h)
    if not ON_CUDA:  # NumPy as the consumer of host-backend arrays: a view
        n = numpy.from_dlpack(a)
        assert n.dtype == h.dtype and n.ctypes.data == a.data.ptr
        numpy.testing.assert_array_equal(n, h)


def test_capsule_names_follow_max_version():
    a = kiln.zeros(3)
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(2, 3)))
    assert '"dltensor"' in repr(a.__dlpack__())
    assert '"dltensor"' in repr(a.__dlpack__(max_version=(0, 8)))
    assert '"dltensor"' in repr(a.toDlpack())


def test_layouts_round_trip(rng):
    h = random_array(rng, (6, 7), numpy.float64)
    a = kiln.asarray(h)
    hv = _layouts(numpy.asarray(h))
    hv["f"] = numpy.asfortranarray(h)
    for name, v in _layouts(a).items():
        b = kiln.from_dlpack(v.__dlpack__(max_version=(1, 0)))
        assert b.shape == v.shape and (v.size == 0 or b.data.ptr == v.data.ptr), name
        assert b.strides == v.strides or v.size <= 1 or v.ndim == 0, name
        numpy.testing.assert_array_equal(b.get(), hv[name], err_msg=name)
        if not ON_CUDA:
            n = numpy.from_dlpack(v)
            numpy.testing.assert_array_equal(n, hv[name], err_msg=name)
            if v.size:
                assert n.ctypes.data == v.data.ptr, name


def test_strides_that_are_not_whole_elements_are_refused():
    a = kiln.zeros(8, kiln.float32)
    odd = _core._as_strided(a, (3,), (6,), 0)
    with pytest.raises(BufferError, match="multiple of the itemsize"):
        odd.__dlpack__()
    ok = _core._as_strided(a, (1, 3), (6, 4), 0)   # a length-1 axis: its stride is never followed
    assert kiln.from_dlpack(ok.__dlpack__()).shape == (1, 3)


def _used():
    gc.collect()
    return kiln.get_default_memory_pool().used_bytes()


@pytest.mark.parametrize("versioned", [False, True])
def test_unconsumed_capsule_frees_its_memory_once(versioned):
    before = _used()
    a = kiln.empty(1 << 16, kiln.uint8)
    cap = a.__dlpack__(max_version=(1, 0) if versioned else None)
    del a
    assert _used() == before + (1 << 16), "the capsule holds the memory"
    del cap
    assert _used() == before


@pytest.mark.parametrize("versioned", [False, True])
def test_consumed_capsule_hands_ownership_to_the_consumer(versioned):
    before = _used()
    a = kiln.empty(1 << 16, kiln.uint8)
    cap = a.__dlpack__(max_version=(1, 0) if versioned else None)
    b = kiln.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    with pytest.raises(ValueError, match="already consumed"):
        kiln.from_dlpack(cap)
    del a, cap
    assert _used() == before + (1 << 16), "b holds the memory"
    del b
    assert _used() == before


@pytest.mark.skipif(ON_CUDA, reason="NumPy consumes host (kDLCPU) tensors: the host backend's")
def test_numpy_consumer_releases_kiln_memory():
    before = _used()
    a = kiln.empty(1 << 16, kiln.uint8)
    n = numpy.from_dlpack(a)
    n[:4] = [1, 2, 3, 4]
    assert a[:4].get().tolist() == [1, 2, 3, 4], "numpy.from_dlpack views the host backend's memory"
    del a
    assert _used() == before + (1 << 16)
    del n
    assert _used() == before


@pytest.mark.parametrize("versioned", [False, True])
def test_foreign_capsule_deleter_runs_once_when_kiln_lets_go(versioned):
    # kiln viewing NumPy's memory in place (the path every device capsule
    # takes; host memory only viewed when asked): NumPy's deleter drops its
    # reference to the array exactly once, when the last kiln view goes.
    h = numpy.arange(12.0)
    refs = sys.getrefcount(h)
    cap = h.__dlpack__(max_version=(1, 0) if versioned else None)
    a, where, readonly = _core._from_dlpack_capsule(cap, True)
    if ON_CUDA:
        assert a is None and where == (1, 0)
        del cap
    else:
        assert where == (1, 0) and readonly is False and a.data.ptr == h.ctypes.data
        del cap
        v = a[2:5]
        del a
        assert sys.getrefcount(h) > refs
        numpy.testing.assert_array_equal(v.get(), h[2:5])
        del v
    gc.collect()
    assert sys.getrefcount(h) == refs


def test_read_only_tensors_are_copied():
    h = numpy.arange(6.0)
    h.flags.writeable = False
    a, _, readonly = _core._from_dlpack_capsule(h.__dlpack__(max_version=(1, 0)), True)
    assert readonly is True
    b = kiln.from_dlpack(h)
    b[0] = 9.0
    assert h[0] == 0.0
    with pytest.raises(BufferError):
        kiln.from_dlpack(h, copy=False)


def test_host_producers_copy_or_refuse_copy_false(rng):
    h = random_array(rng, (4, 3), numpy.float32)
    a = kiln.from_dlpack(h)
    a[0, 0] = 100.0
    assert h[0, 0] != 100.0, "kiln.from_dlpack(numpy array) copies onto the device"
    with pytest.raises(BufferError, match="copy=False"):
        kiln.from_dlpack(h, copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        kiln.from_dlpack(h.__dlpack__(), copy=False)
    numpy.testing.assert_array_equal(kiln.from_dlpack(h.__dlpack__(max_version=(1, 0))).get(), h)


def test_copy_keyword_of_from_dlpack_and_dlpack():
    a = kiln.arange(5.0)
    assert kiln.from_dlpack(a).data.ptr == a.data.ptr
    c = kiln.from_dlpack(a, copy=True)
    assert c.data.ptr != a.data.ptr
    numpy.testing.assert_array_equal(c.get(), a.get())
    c2 = kiln.from_dlpack(a.__dlpack__(max_version=(1, 0), copy=True))
    assert c2.data.ptr != a.data.ptr
    assert kiln.from_dlpack(a.__dlpack__(max_version=(1, 0), copy=False)).data.ptr == a.data.ptr
    if not ON_CUDA:
        n = numpy.from_dlpack(a, copy=True)
        n[0] = 7.0
        assert float(a[0]) == 0.0


class _OldProducer:
    """A producer from before DLPack 1.0's keywords: __dlpack__(stream) only."""

    def __init__(self, a):
        self.a = a
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.a.toDlpack()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_producers_without_1_0_keywords():
    a = kiln.arange(4.0)
    p = _OldProducer(a)
    assert kiln.from_dlpack(p).data.ptr == a.data.ptr
    assert kiln.from_dlpack(p, copy=True).data.ptr != a.data.ptr
    # kiln names its current stream to device producers (1: the null stream).
    assert p.streams == ([1, 1] if ON_CUDA else [None, None])


@pytest.mark.skipif(not ON_CUDA, reason="managed memory is CUDA's; the host backend's memory is host memory")
def test_managed_memory_exports_to_the_host_in_place():
    """Managed memory goes to a kDLCPU consumer without a copy (unless copy=True),
    as CuPy exports it; device memory needs a copy, and copy=False is refused
    with an error that is the array API's BufferError and CuPy's ValueError."""
    pool = kiln.cuda.MemoryPool(kiln.cuda.malloc_managed)
    with kiln.cuda.using_allocator(pool.malloc):
        a = kiln.arange(6.0).reshape(2, 3)[:, 1:]
    assert a.__dlpack_device__() == HERE
    for copy in (None, False):
        h = numpy.from_dlpack(a, device="cpu", copy=copy)
        assert h.ctypes.data == a.data.ptr and h.strides == a.strides
        numpy.testing.assert_array_equal(h, a.get())
    h = numpy.from_dlpack(a, device="cpu", copy=True)
    assert h.ctypes.data != a.data.ptr
    numpy.testing.assert_array_equal(h, a.get())
    with pytest.raises(ValueError, match="copy=False"):
        kiln.arange(3.0).__dlpack__(dl_device=(1, 0), copy=False)


def test_dl_device_and_stream_arguments():
    a = kiln.arange(3.0)
    assert kiln.from_dlpack(a.__dlpack__(dl_device=HERE)).data.ptr == a.data.ptr
    if ON_CUDA:
        host = numpy.from_dlpack(a, device="cpu")   # dl_device=(kDLCPU, 0): a host copy
        numpy.testing.assert_array_equal(host, [0.0, 1.0, 2.0])
        with pytest.raises(BufferError, match="copy=False"):
            a.__dlpack__(dl_device=(1, 0), copy=False)
        other = kiln.cuda.Stream(non_blocking=True)
        for stream in (None, -1, 1, 2, other.ptr):
            assert kiln.from_dlpack(a.__dlpack__(stream=stream)).data.ptr == a.data.ptr
    else:
        with pytest.raises(BufferError, match="kDLCUDA"):
            a.__dlpack__(dl_device=(2, 0))
    # The stream is checked on every backend (the host backend has nothing to wait for).
    for bad in (-2, "1", 1.0):
        with pytest.raises(ValueError, match="stream must be None, -1 or a CUDA stream"):
            a.__dlpack__(stream=bad)
    with pytest.raises(ValueError, match="stream must be None, -1 or a CUDA stream"):
        a.__dlpack__(stream=-2, copy=True)
    for copy in (None, True):   # 0, older PyTorch's default stream: the legacy default stream, with a warning
        with pytest.warns(UserWarning, match="Stream 0 is not a valid DLPack stream"):
            capsule = a.__dlpack__(stream=0, copy=copy)
        assert kiln.from_dlpack(capsule).get().tolist() == a.get().tolist()
    with pytest.raises(TypeError, match="keyword arguments only"):
        a.__dlpack__(None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'strem'"):
        a.__dlpack__(strem=1)
    assert kiln.from_dlpack(a.__dlpack__(stream=-1, max_version=(1, 3))).data.ptr == a.data.ptr
    # max_version: legacy below 1.0, versioned from 1.0 on, any sequence of ints
    assert "dltensor_versioned" not in repr(a.__dlpack__(max_version=(0, 8)))
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=[1, 0]))
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(2, 0)))


def test_from_dlpack_argument_errors():
    with pytest.raises(TypeError, match="__dlpack__"):
        kiln.from_dlpack([1, 2, 3])
    with pytest.raises(ValueError, match="kiln device"):
        kiln.from_dlpack(kiln.zeros(1), device="tpu")
    a = kiln.zeros(2)
    b = kiln.from_dlpack(a, device=kiln.cuda.Device())
    assert b.data.ptr == a.data.ptr and b is not a
