"""kiln.cuda.runtime (CuPy's cupy.cuda.runtime names), Device attributes and
PCI bus ids: real calls on the CUDA backend, a clear error on the host
backend where CUDA has no meaning, the emulated device's attributes on the
host backend, stream/event handles on both."""
import numpy
import pytest

import kiln
from kiln.cuda import runtime

CUDA = kiln.get_backend() == "cuda"
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs the CUDA backend (the host backend has no CUDA runtime)")

CUDA_ONLY = [
    ("malloc", (16,)), ("mallocManaged", (16,)), ("hostAlloc", (16, 0)), ("mallocAsync", (16, 0)),
    ("memset", (0, 0, 0)), ("memcpy", (0, 0, 0)), ("deviceGetPCIBusId", (0,)),
    ("deviceCanAccessPeer", (0, 0)), ("deviceGetLimit", (runtime.cudaLimitStackSize,)),
    ("pointerGetAttributes", (0,)), ("ipcGetMemHandle", (0,)), ("profilerStart", ()), ("driverGetVersion", ()),
    ("runtimeGetVersion", ()),
]


@pytest.mark.skipif(CUDA, reason="the host backend's behaviour")
@pytest.mark.parametrize("name, args", CUDA_ONLY, ids=[c[0] for c in CUDA_ONLY])
def test_host_backend_has_no_cuda_runtime(name, args):
    with pytest.raises(runtime.CUDARuntimeError, match=r"kiln\.cuda\.runtime\.%s: the host backend has no CUDA "
                                                        r"runtime" % name):
        getattr(runtime, name)(*args)


@pytest.mark.skipif(CUDA, reason="the host backend's behaviour")
def test_host_backend_device_queries():
    # Note [Host device attributes]: the emulated device's limits, as CuPy code asks for them.
    attrs = kiln.cuda.Device().attributes
    assert attrs["MaxThreadsPerBlock"] == 1024 and attrs["WarpSize"] == 32 and attrs["CooperativeLaunch"] == 1
    assert (attrs["MaxBlockDimX"], attrs["MaxBlockDimZ"], attrs["MaxGridDimX"]) == (1024, 64, 2**31 - 1)
    assert attrs["MultiProcessorCount"] == kiln.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    assert (attrs["ComputeCapabilityMajor"], attrs["ComputeCapabilityMinor"]) == (0, 0)
    assert attrs["MaxSharedMemoryPerBlockOptin"] >= attrs["MaxSharedMemoryPerBlock"] == 48 * 1024
    assert runtime.deviceGetAttribute(runtime.cudaDevAttrCooperativeLaunch, 0) == 1
    with pytest.raises(runtime.CUDARuntimeError, match="does not emulate device attribute 14"):
        runtime.deviceGetAttribute(14, 0)
    with pytest.raises(Exception, match="device 1"):
        runtime.deviceGetAttribute(1, 1)
    with pytest.raises(runtime.CUDARuntimeError, match="host backend has no CUDA runtime"):
        kiln.cuda.Device().pci_bus_id


def test_stream_and_event_handles():
    s = runtime.streamCreateWithFlags(runtime.streamNonBlocking)
    e0, e1 = runtime.eventCreate(), runtime.eventCreate()
    ext = kiln.cuda.ExternalStream(s)
    runtime.eventRecord(e0, s)
    with ext:
        x = kiln.arange(1000, dtype=kiln.float32) * 2
    runtime.eventRecord(e1, s)
    runtime.streamWaitEvent(0, e1)
    runtime.eventSynchronize(e1)
    runtime.streamSynchronize(s)
    assert runtime.streamQuery(s) and runtime.eventQuery(e1)
    assert runtime.eventElapsedTime(e0, e1) >= 0
    assert x.get()[-1] == 1998
    for e in (e0, e1):
        runtime.eventDestroy(e)
    runtime.streamDestroy(s)


def test_constants_match_cuda():
    assert (runtime.memcpyDeviceToDevice, runtime.memcpyDefault) == (3, 4)
    assert (runtime.memoryTypeHost, runtime.memoryTypeDevice, runtime.memoryTypeManaged) == (1, 2, 3)
    assert (runtime.streamNonBlocking, runtime.streamPerThread, runtime.streamCaptureModeRelaxed) == (1, 2, 2)
    assert (runtime.cudaDevAttrComputeCapabilityMajor, runtime.cudaDevAttrMemoryPoolsSupported) == (75, 115)
    assert runtime.is_hip is False and runtime.getDeviceCount() >= 1


@needs_cuda
def test_malloc_memset_memcpy_roundtrip():
    n = 4096
    p = runtime.malloc(n)
    try:
        runtime.memset(p, 7, n)
        a = kiln.zeros(n, dtype=kiln.uint8)
        runtime.memcpy(a.data.ptr, p, n, runtime.memcpyDeviceToDevice)
        assert (a.get() == 7).all()
        s = kiln.cuda.Stream()
        runtime.memsetAsync(p, 9, n // 2, s.ptr)
        runtime.memcpyAsync(a.data.ptr, p, n, runtime.memcpyDefault, s.ptr)
        s.synchronize()
        numpy.testing.assert_array_equal(a.get(), numpy.r_[numpy.full(n // 2, 9), numpy.full(n // 2, 7)])
    finally:
        runtime.free(p)


@needs_cuda
def test_pointer_attributes_tell_memory_kinds():
    a = kiln.empty(4, dtype=kiln.float32)
    attrs = runtime.pointerGetAttributes(a.data.ptr)
    assert attrs.type == runtime.memoryTypeDevice and attrs.device == 0 and attrs.devicePointer == a.data.ptr
    pinned = runtime.hostAlloc(16, runtime.hostAllocPortable)
    managed = runtime.mallocManaged(16)
    try:
        assert runtime.pointerGetMemoryType(pinned) == runtime.memoryTypeHost
        assert runtime.pointerGetAttributes(pinned).hostPointer == pinned
        assert runtime.pointerGetMemoryType(managed) == runtime.memoryTypeManaged
    finally:
        runtime.freeHost(pinned)
        runtime.free(managed)


@needs_cuda
def test_device_attributes_and_pci_bus_id():
    d = kiln.cuda.Device()
    attrs = d.attributes
    assert attrs["MaxThreadsPerBlock"] == 1024 and attrs["WarpSize"] == 32
    assert "%d%d" % (attrs["ComputeCapabilityMajor"], attrs["ComputeCapabilityMinor"]) == d.compute_capability
    assert runtime.deviceGetAttribute(runtime.cudaDevAttrMultiProcessorCount, 0) == attrs["MultiProcessorCount"]
    bus = d.pci_bus_id
    assert len(bus.split(":")) == 3 and kiln.cuda.Device.from_pci_bus_id(bus) == d
    with pytest.raises(runtime.CUDARuntimeError):
        kiln.cuda.Device.from_pci_bus_id("fake:id")
    with pytest.raises(runtime.CUDARuntimeError, match="invalid device ordinal"):
        runtime.deviceGetAttribute(1, runtime.getDeviceCount())


@needs_cuda
def test_limits_versions_peer_profiler_ipc():
    old = runtime.deviceGetLimit(runtime.cudaLimitStackSize)
    runtime.deviceSetLimit(runtime.cudaLimitStackSize, old + 1024)
    assert runtime.deviceGetLimit(runtime.cudaLimitStackSize) >= old + 1024
    runtime.deviceSetLimit(runtime.cudaLimitStackSize, old)
    assert runtime.runtimeGetVersion() >= 12000 and runtime.driverGetVersion() >= 12000
    if runtime.getDeviceCount() > 1:
        assert runtime.deviceCanAccessPeer(0, 1) in (False, True)
    runtime.profilerStart()
    runtime.profilerStop()
    p = runtime.malloc(1 << 21)
    try:
        assert len(runtime.ipcGetMemHandle(p)) == 64
    finally:
        runtime.free(p)


@pytest.mark.parametrize("get", [kiln.cuda.get_cublas_handle, kiln.cuda.device.get_cusolver_handle],
                         ids=["cublas", "cusolver"])
def test_library_handles_are_per_thread(get):
    if not CUDA:
        with pytest.raises(runtime.CUDARuntimeError, match="host backend has no CUDA runtime"):
            get()
        return
    import threading
    handles = [get(), None, None]

    def other():
        handles[1], handles[2] = get(), get()

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert handles[0] and handles[0] == get() and handles[1] == handles[2] != handles[0]
