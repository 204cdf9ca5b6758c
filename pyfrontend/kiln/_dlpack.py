"""DLPack: ndarray.__dlpack__ / __dlpack_device__ (the array API's exchange
protocol, DLPack 1.x), kiln.from_dlpack, and the older spellings
ndarray.toDlpack / kiln.fromDlpack.

    t = torch.from_dlpack(a)          # a kiln array on the GPU, zero-copy
    b = kiln.from_dlpack(t)           # and back
    h = numpy.from_dlpack(a)          # host backend: a NumPy view of a
    c = kiln.from_dlpack(numpy_arr)   # host data: copied onto the device

Capsules, the deleter rules and the stream hand-off are C++
(pyfrontend/dlpack_binding.cpp, Note [DLPack capsules]); this module handles
the protocol's arguments.
"""
import numpy

from kiln import _core
from kiln._core import ndarray

_CPU, _CUDA, _CUDA_HOST, _CUDA_MANAGED = 1, 2, 3, 13
_MANAGED_MEMORY = 3   # cudaMemoryTypeManaged, as kiln.cuda.runtime.pointerGetAttributes reports it


class _NeedsCopy(BufferError, ValueError):
    """copy=False where DLPack needs a copy: the array API's BufferError, and CuPy's ValueError."""
_DEVICE_NAMES = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan", 8: "kDLMetal",
                 9: "kDLVPI", 10: "kDLROCM", 11: "kDLROCMHost", 12: "kDLExtDev", 13: "kDLCUDAManaged",
                 14: "kDLOneAPI"}


_CAPS = _core._backend_caps()             # the backend is chosen once, at import (Note [Backend traits])
_HOST_MEMORY = _CAPS["host_addressable"]  # kiln's memory is host memory: kDLCPU tensors are viewed in place
_CUDA_INTEROP = _CAPS["cuda_interop"]     # kiln's memory and streams are CUDA's


# Note [DLPack streams]
# The consumer names the stream it will use (stream=): None means CUDA's
# legacy default stream, -1 asks for no synchronization, 1/2 are the
# legacy/per-thread default streams, anything else a CUstream handle. kiln
# makes that stream wait on the device for the work queued so far on kiln's
# current stream (an event: the host never blocks). Importing, kiln passes its
# current stream, so the producer orders its work the same way. On the host
# backend (kDLCPU) all work is finished when a call returns: no stream.
#
# ndarray.__dlpack__ and __dlpack_device__ are C functions
# (pyfrontend/dlpack_binding.cpp, Note [DLPack fast path]); __dlpack__ hands
# the calls with dl_device or a copy to _export.
def _export(self, stream, max_version, dl_device, copy):
    """ndarray.__dlpack__ with any arguments (its docstring has them)."""
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    here = self.__dlpack_device__()
    if dl_device is not None and tuple(dl_device) != here:
        dl_device = tuple(dl_device)
        if dl_device[0] != _CPU or _HOST_MEMORY:
            raise BufferError("kiln cannot export to DLPack device %s (its arrays are on %s)"
                              % (_describe(dl_device), _describe(here)))
        managed = self.data.ptr and _core._rt_pointer_attributes(self.data.ptr)[0] == _MANAGED_MEMORY
        if managed and copy is not True:
            _core.synchronize_device()   # the host reads managed memory in place, as CuPy exports it
            return _core._to_dlpack(self, versioned, False, -1, True)
        if copy is False:
            raise _NeedsCopy("exporting device memory to the host (kDLCPU) needs a copy, and copy=False was given")
        host = self.get()
        return host.__dlpack__(max_version=max_version, copy=False) if versioned else host.__dlpack__()
    source = self.copy() if copy else self
    return _core._to_dlpack(source, versioned, bool(copy), stream)


def toDlpack(self):
    """A legacy DLPack capsule ('dltensor') viewing this array (CuPy's older
    spelling; consumers synchronize with kiln's current stream themselves)."""
    return _core._to_dlpack(self, False, False)


def _describe(device):
    return "(%s, %d)" % (_DEVICE_NAMES.get(device[0], str(device[0])), device[1])


class _HostCapsule:
    """A host (kDLCPU) capsule dressed as a DLPack producer, so that
    numpy.from_dlpack consumes it (kiln then copies NumPy's view)."""

    def __init__(self, capsule, device):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, **kwargs):
        capsule, self._capsule = self._capsule, None
        return capsule

    def __dlpack_device__(self):
        return self._device


def _from_host(obj, copy):
    """Host data (a kDLCPU producer or capsule): kiln memory is device memory
    on every backend (Note [Host producers]), so this is always a copy."""
    if copy is False:
        raise BufferError("the DLPack tensor is in host memory (kDLCPU): kiln needs a copy to put it on "
                          "the device, and copy=False was given")
    return _core._from_numpy(numpy.from_dlpack(obj))


# Note [Host producers]
# kiln.from_dlpack(numpy_array) copies onto the device on every backend, the
# host backend included (whose device memory happens to be host memory), so a
# program behaves the same everywhere: writes to the kiln array never reach
# NumPy's. Capsules kiln itself exported are kiln memory and are viewed.
def from_dlpack(x, /, *, device=None, copy=None):
    """A kiln array from any DLPack producer (an object with ``__dlpack__``,
    such as a PyTorch tensor, a JAX or NumPy array) or a DLPack capsule, as
    the array API's from_dlpack: zero-copy for device memory, on kiln's
    current stream (the producer orders its work before it). Host memory is
    copied onto the device, or BufferError with ``copy=False``; ``copy=True``
    always copies. Read-only tensors are copied (kiln arrays are writable)."""
    if device is not None and not _is_kiln_device(device):
        raise ValueError("kiln.from_dlpack puts arrays on a kiln device, got device=%r" % (device,))
    if type(x).__name__ == "PyCapsule":
        return _from_capsule(x, copy, copy)
    if isinstance(x, ndarray):
        return x.copy() if copy else x.view()
    if not hasattr(x, "__dlpack__"):
        raise TypeError("kiln.from_dlpack takes an object with __dlpack__ or a DLPack capsule, got '%s'"
                        % type(x).__name__)
    where = tuple(x.__dlpack_device__())
    if where[0] == _CPU and not _HOST_MEMORY:
        return _from_host(x, copy)
    stream = _core._current_stream_int() if _CUDA_INTEROP and where[0] in (_CUDA, _CUDA_MANAGED) else None
    try:
        capsule = x.__dlpack__(stream=stream, max_version=(1, 1), copy=copy)
        copy_here = False        # the producer copied if asked to
    except TypeError:   # a producer older than DLPack 1.0's keywords: kiln copies if asked to
        capsule = x.__dlpack__(stream=stream)
        copy_here = bool(copy)
    return _from_capsule(capsule, copy, copy_here)


def _from_capsule(capsule, copy, copy_here):
    a, where, readonly = _core._from_dlpack_capsule(capsule)
    if a is None:
        if where[0] == _CPU:
            return _from_host(_HostCapsule(capsule, where), copy)
        raise BufferError("kiln (%s backend) cannot import a DLPack tensor on device %s"
                          % (_core.get_backend(), _describe(where)))
    if readonly or copy_here:
        if copy is False:
            raise BufferError("the DLPack tensor is read-only and kiln arrays are writable: a copy is needed, "
                              "and copy=False was given")
        return a.copy()
    return a


def fromDlpack(capsule):
    """kiln.from_dlpack (CuPy's older spelling, for capsules)."""
    return from_dlpack(capsule)


def _is_kiln_device(device):
    from kiln.cuda import Device
    return isinstance(device, Device) or device == "gpu"


ndarray.toDlpack = toDlpack
