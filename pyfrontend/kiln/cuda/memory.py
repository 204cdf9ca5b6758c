"""Device memory: pools, pointers, user allocators (the RMM convention)."""
import contextlib
import threading

from kiln import _core
from kiln._core import MemoryPointer, Memory, alloc, OutOfMemoryError, PinnedMemoryPointer

OutOfMemoryError.__module__ = "kiln.cuda.memory"

_allocator = [None]
_pinned_allocator = [None]
_scoped = threading.local()  # using_allocator blocks open in this thread


class UnownedMemory:
    """Device memory that another library owns: ``ptr``, ``size`` and the
    ``owner`` object kept alive while kiln uses the memory. ``device_id``
    None or negative (RMM's allocator passes -1) means the current device."""

    def __init__(self, ptr, size, owner, device_id=None):
        self.ptr = int(ptr)
        self.size = int(size)
        self.owner = owner
        self.device_id = device_id if device_id is not None and device_id >= 0 else _core.get_device()


def set_allocator(allocator=None):
    """Route every device allocation through ``allocator(nbytes)``, which
    returns an object with a ``.ptr`` (a MemoryPointer, say); kiln keeps that
    object alive while the memory is in use. ``None`` restores the pool."""
    if allocator is not None and not callable(allocator):
        raise TypeError("allocator must be callable or None")
    if getattr(_scoped, "depth", 0):
        raise ValueError("set_allocator cannot be called inside a using_allocator block")
    _core._set_allocator(allocator)
    _allocator[0] = allocator


def get_allocator():
    """The allocator set with set_allocator, or None for the default pool."""
    return _allocator[0]


@contextlib.contextmanager
def using_allocator(allocator=None):
    """Route allocations through ``allocator`` (None: the default pool) for
    the block, then restore the previous one. The allocator is process-wide
    in kiln, so blocks in other threads see it too."""
    previous = _allocator[0]
    _scoped.depth = getattr(_scoped, "depth", 0) + 1
    _core._set_allocator(allocator)
    _allocator[0] = allocator
    try:
        yield
    finally:
        _scoped.depth -= 1
        _core._set_allocator(previous)
        _allocator[0] = previous


def malloc_managed(size):
    """A MemoryPointer to ``size`` bytes of managed (unified) memory
    (cuMemAllocManaged), usable as an allocator: ``set_allocator(malloc_managed)``.
    On the host backend all memory is host memory: a pool allocation."""
    return _core._malloc_managed(size)


def malloc_async(size):
    """A MemoryPointer to ``size`` bytes from the driver's stream-ordered pool
    (cuMemAllocAsync on the current stream; freed on that stream). On the
    host backend, where all work runs in order: a pool allocation."""
    from kiln.cuda.stream import get_current_stream
    return _core._malloc_async(size, get_current_stream())


class MemoryAsyncPool:
    """The driver's stream-ordered pool of the current device (cuMemAllocAsync):
    ``set_allocator(MemoryAsyncPool().malloc)``."""

    def __init__(self, pool_handles="current"):
        if pool_handles != "current":
            raise ValueError("kiln supports only the device's current pool (pool_handles='current')")

    def malloc(self, size):
        return malloc_async(size)


class MemoryPool:
    """A stream-ordered pool of device memory of its own, on the current
    device: ``set_allocator(MemoryPool().malloc)``. With ``allocator`` (a
    callable such as malloc_managed), the pool's segments come from it:
    ``MemoryPool(malloc_managed)`` pools managed memory, as CuPy's does.
    kiln.get_default_memory_pool() is the pool kiln allocates from by default."""

    def __init__(self, allocator=None):
        self._pool = _core._MemoryPool(allocator)

    def malloc(self, size):
        """A MemoryPointer to ``size`` bytes from the pool."""
        return self._pool.malloc(size)

    def used_bytes(self):
        return self._pool.used_bytes()

    def total_bytes(self):
        return self._pool.total_bytes()

    def free_bytes(self):
        return self._pool.free_bytes()

    def n_free_blocks(self):
        return self._pool.n_free_blocks()

    def free_all_blocks(self, stream=None):
        """Give every cached segment that is wholly unused back."""
        self._pool.free_all_blocks()

    def set_limit(self, size=None, fraction=None):
        """Cap the pool at ``size`` bytes, or ``fraction`` of device memory; 0 = none."""
        self._pool.set_limit(_limit_bytes(size, fraction))

    def get_limit(self):
        return self._pool.get_limit()


def _limit_bytes(size, fraction):
    if size is not None and fraction is not None:
        raise ValueError("give size or fraction, not both")
    if fraction is not None:
        if not 0 <= fraction <= 1:
            raise ValueError("fraction must be between 0 and 1, got %r" % (fraction,))
        size = int(_core.mem_get_info()[1] * fraction)
    return int(size or 0)


class _DefaultMemoryPool(MemoryPool):
    """The pool kiln allocates from by default (one per device underneath):
    kiln.get_default_memory_pool()."""

    class _Current:   # the default pool of the current device, asked at each call
        malloc = staticmethod(_core._pool_malloc)
        used_bytes = staticmethod(_core._pool_used_bytes)
        total_bytes = staticmethod(_core._pool_total_bytes)
        free_bytes = staticmethod(_core._pool_free_bytes)
        n_free_blocks = staticmethod(_core._pool_n_free_blocks)
        free_all_blocks = staticmethod(_core._pool_free_all_blocks)
        set_limit = staticmethod(_core._pool_set_limit)
        get_limit = staticmethod(_core._pool_get_limit)

    def __init__(self):
        self._pool = self._Current


class PinnedMemoryPool:
    """The pool of page-locked host memory that staged transfers use."""

    def malloc(self, size):
        """A PinnedMemoryPointer of ``size`` bytes (a writable buffer)."""
        return _core._pinned_malloc(size)

    def n_free_blocks(self):
        return _core._pinned_n_free_blocks()

    def free_all_blocks(self):
        _core._pinned_free_all_blocks()


def alloc_pinned_memory(size):
    """``size`` bytes of page-locked host memory from the pinned pool (or the
    allocator given to set_pinned_memory_allocator), as a buffer:
    ``numpy.frombuffer(kiln.cuda.alloc_pinned_memory(n), numpy.uint8)``.
    Copies into it with ``kiln.asnumpy(a, out=..., blocking=False)`` are truly
    asynchronous."""
    return (_pinned_allocator[0] or _core._pinned_malloc)(size)


def set_pinned_memory_allocator(allocator=None):
    """Route alloc_pinned_memory through ``allocator(size)`` (None: the pinned
    pool). kiln's own staging buffers always come from the pinned pool."""
    if allocator is not None and not callable(allocator):
        raise TypeError("allocator must be callable or None")
    _pinned_allocator[0] = allocator
