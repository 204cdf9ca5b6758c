"""Runtime-API-style functions, named as in cupy.cuda.runtime.

Pointers, streams and events are integers. Each function is one or two CUDA
Driver API calls on the current device (runtime/cuda/runtime_functions.h);
on the host backend the memory, device and IPC functions raise
CUDARuntimeError ("the host backend has no CUDA runtime"), while streams and
events by handle work on every backend, and deviceGetAttribute answers for
the device the host backend emulates (Note [Host device attributes])."""
import collections

from kiln import _core
from kiln._core import CUDADriverError as CUDARuntimeError
from kiln.cuda._synchronize import check_synchronize

is_hip = False

# cudaMemcpyKind (copies use unified addressing: every kind is accepted)
memcpyHostToHost, memcpyHostToDevice, memcpyDeviceToHost, memcpyDeviceToDevice, memcpyDefault = range(5)
# cudaHostAlloc flags, cudaMemoryType, stream and event flags
hostAllocDefault, hostAllocPortable, hostAllocMapped, hostAllocWriteCombined = 0, 1, 2, 4
memoryTypeUnregistered, memoryTypeHost, memoryTypeDevice, memoryTypeManaged = range(4)
streamDefault, streamNonBlocking, streamLegacy, streamPerThread = 0, 1, 1, 2
eventDefault, eventBlockingSync, eventDisableTiming, eventInterprocess = 0, 1, 2, 4
cudaMemAttachGlobal, cudaMemAttachHost, cudaIpcMemLazyEnablePeerAccess = 1, 2, 1
cudaLimitStackSize, cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize = 0, 1, 2
streamCaptureModeGlobal, streamCaptureModeThreadLocal, streamCaptureModeRelaxed = 0, 1, 2
streamCaptureStatusNone, streamCaptureStatusActive, streamCaptureStatusInvalidated = 0, 1, 2
cudaGraphDebugDotFlagsVerbose = 1
# cudaDeviceAttr (the driver's CU_DEVICE_ATTRIBUTE_* values)
cudaDevAttrMaxThreadsPerBlock, cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ = 1, 2, 3, 4
cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ = 5, 6, 7
cudaDevAttrMaxSharedMemoryPerBlock, cudaDevAttrTotalConstantMemory, cudaDevAttrWarpSize = 8, 9, 10
cudaDevAttrMaxRegistersPerBlock, cudaDevAttrClockRate, cudaDevAttrMultiProcessorCount = 12, 13, 16
cudaDevAttrIntegrated, cudaDevAttrCanMapHostMemory = 18, 19
cudaDevAttrPciBusId, cudaDevAttrPciDeviceId, cudaDevAttrPciDomainId = 33, 34, 50
cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth, cudaDevAttrL2CacheSize = 36, 37, 38
cudaDevAttrMaxThreadsPerMultiProcessor, cudaDevAttrUnifiedAddressing = 39, 41
cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMinor = 75, 76
cudaDevAttrManagedMemory, cudaDevAttrPageableMemoryAccess, cudaDevAttrConcurrentManagedAccess = 83, 88, 89
cudaDevAttrCooperativeLaunch, cudaDevAttrMaxSharedMemoryPerBlockOptin = 95, 97
cudaDevAttrMemoryPoolsSupported = 115
# cudaChannelFormatKind*, cudaAddressMode*, cudaFilterMode*, cudaReadMode*, cudaResourceType*, cudaArray* (kiln.cuda.texture)
from kiln._core._texture_enums import *  # noqa: E402,F401,F403

PointerAttributes = collections.namedtuple("PointerAttributes", "type device devicePointer hostPointer")


def getDeviceCount():
    """Number of devices of the current backend (1 on the host backend)."""
    return _core.get_device_count()


def getDevice():
    return _core.get_device()


def setDevice(device):
    _core.set_device(device)


def deviceSynchronize():
    check_synchronize()
    _core.synchronize_device()


def memGetInfo():
    """(free, total) bytes of the current device."""
    return tuple(_core.mem_get_info())


def getDeviceProperties(device):
    return _core.device_properties(device)


driverGetVersion = _core._rt_driver_version
runtimeGetVersion = _core._rt_runtime_version  # the CUDA version of kiln's NVRTC
deviceGetAttribute = _core._rt_device_attribute  # (attribute, device)
deviceGetPCIBusId = _core._rt_device_pci_bus_id
deviceGetByPCIBusId = _core._rt_device_by_pci_bus_id
deviceCanAccessPeer = _core._rt_device_can_access_peer  # (device, peer) -> bool
deviceDisablePeerAccess = _core._rt_disable_peer_access
deviceGetLimit, deviceSetLimit = _core._rt_device_limit, _core._rt_set_device_limit
deviceGetStreamPriorityRange = _core._rt_stream_priority_range  # (least, greatest)
malloc, free = _core._rt_malloc, _core._rt_free
mallocAsync, freeAsync = _core._rt_malloc_async, _core._rt_free_async  # (size, stream), (ptr, stream)
hostAlloc, freeHost = _core._rt_host_alloc, _core._rt_free_host  # (size, flags), (ptr)
memsetAsync = _core._rt_memset_async  # (ptr, value, size, stream)
streamDestroy = _core._rt_stream_destroy  # waits for the stream first, as kiln's pool must forget it
streamQuery, streamWaitEvent = _core._rt_stream_query, _core._rt_stream_wait_event
eventDestroy, eventRecord, eventQuery = _core._rt_event_destroy, _core._rt_event_record, _core._rt_event_query
eventElapsedTime = _core._rt_event_elapsed_time
ipcGetMemHandle, ipcCloseMemHandle = _core._rt_ipc_get_mem_handle, _core._rt_ipc_close_mem_handle
profilerStart, profilerStop = _core._rt_profiler_start, _core._rt_profiler_stop


def deviceEnablePeerAccess(peerDevice, flags=0):
    """Let the current device access ``peerDevice``'s memory."""
    _core._rt_enable_peer_access(peerDevice)


def mallocManaged(size, flags=cudaMemAttachGlobal):
    return _core._rt_malloc_managed(size, flags)


def mallocHost(size, flags=hostAllocDefault):
    return _core._rt_host_alloc(size, flags)


def memcpy(dst, src, size, kind=memcpyDefault):
    """Copy ``size`` bytes and wait for it (any direction: unified addressing)."""
    _core._rt_memcpy(dst, src, size)


def memcpyAsync(dst, src, size, kind, stream):
    _core._rt_memcpy_async(dst, src, size, stream)


def memset(ptr, value, size):
    _core._rt_memset(ptr, value, size)


def streamCreate():
    return _core._rt_stream_create_default(False)


def streamCreateWithFlags(flag):
    return _core._rt_stream_create_default(bool(flag & streamNonBlocking))


def streamCreateWithPriority(flag, priority):
    return _core._rt_stream_create(flag, priority)


def streamSynchronize(stream):
    check_synchronize()
    _core._rt_stream_synchronize(stream)


def eventCreate():
    return _core._rt_event_create(True)


def eventCreateWithFlags(flags):
    if flags & eventInterprocess:
        raise NotImplementedError("interprocess events are not supported by kiln")
    return _core._rt_event_create(not flags & eventDisableTiming)


def eventSynchronize(event):
    check_synchronize()
    _core._rt_event_synchronize(event)


def pointerGetAttributes(ptr):
    """type (memoryType*), device, devicePointer, hostPointer of ``ptr``."""
    return PointerAttributes(*_core._rt_pointer_attributes(ptr))


def pointerGetMemoryType(ptr):
    return pointerGetAttributes(ptr).type


def ipcOpenMemHandle(handle, flags=cudaIpcMemLazyEnablePeerAccess):
    """The device pointer of another process's memory, from its 64-byte handle."""
    return _core._rt_ipc_open_mem_handle(bytes(handle), flags)
