"""Runtime-API-style functions, named as in cupy.cuda.runtime."""
from kiln import _core
from kiln._core import CUDADriverError as CUDARuntimeError
from kiln.cuda._synchronize import check_synchronize


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
