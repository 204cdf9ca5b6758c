"""kiln.allow_synchronize and kiln.DeviceSynchronized (cupyx's pair, which
CuPy deprecated in v10 and keeps): forbid explicit device synchronization in
a block of the current thread.

    with kiln.allow_synchronize(False):
        y = x * 2                       # fine: queued
        kiln.cuda.Device().synchronize()   # DeviceSynchronized

What is checked, as CuPy checks it: Device.synchronize, Stream.synchronize,
Event.synchronize and kiln.cuda.runtime.deviceSynchronize. A download (get,
item, a bool of an array) waits for its own stream and is not counted."""
import contextlib
import threading

_allowed = threading.local()


class DeviceSynchronized(RuntimeError):
    """Raised when device synchronization is asked for while
    allow_synchronize(False) is in force in the current thread."""

    def __init__(self, message=None):
        super().__init__(message or "Device synchronization was detected while disallowed.")


@contextlib.contextmanager
def allow_synchronize(allow):
    """Allows (True) or disallows (False) device synchronization in the
    current thread for the block; blocks nest."""
    previous = getattr(_allowed, "value", True)
    _allowed.value = bool(allow)
    try:
        yield
    finally:
        _allowed.value = previous


def check_synchronize():
    """Raises DeviceSynchronized where synchronization is disallowed."""
    if not getattr(_allowed, "value", True):
        raise DeviceSynchronized()
