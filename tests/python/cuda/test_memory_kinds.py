"""Allocators beside the default pool: managed memory, the driver's
stream-ordered pool, using_allocator, the pinned allocator."""
import numpy
import pytest

import kiln
from kiln.cuda import memory

CUDA = kiln.get_backend() == "cuda"


@pytest.mark.parametrize("allocator", [memory.malloc_managed, memory.malloc_async,
                                       memory.MemoryAsyncPool().malloc], ids=["managed", "async", "async_pool"])
def test_arrays_on_other_allocators(allocator):
    pool = kiln.get_default_memory_pool()
    used = pool.used_bytes()
    calls = []

    def counting(n):
        calls.append(n)
        return allocator(n)

    with kiln.cuda.using_allocator(counting):
        assert kiln.cuda.get_allocator() is counting
        a = kiln.arange(1000, dtype=kiln.float64)
        b = (a * 2).reshape(10, 100).sum(axis=1)
        if CUDA:
            assert pool.used_bytes() == used     # nothing came from the pool
    assert kiln.cuda.get_allocator() is None and calls
    numpy.testing.assert_array_equal(b.get(), (numpy.arange(1000.0) * 2).reshape(10, 100).sum(axis=1))
    s = kiln.cuda.Stream()
    with s, kiln.cuda.using_allocator(allocator):
        c = kiln.ones(100) + 1
    del s
    assert float(c.sum()) == 200.0


@pytest.mark.parametrize("source", [None, "managed", "counting"])
def test_memory_pool_instances(source):
    """kiln.cuda.MemoryPool(allocator) (Note [Pool segment sources]): a pool of
    its own, its segments from the device or the allocator (managed memory:
    CuPy's MemoryPool(malloc_managed) idiom), reused, freed back, and the
    default pool untouched while arrays are made from it."""
    segments = []

    def counting(n):
        segments.append(n)
        return memory.malloc_managed(n)

    allocator = {None: None, "managed": memory.malloc_managed, "counting": counting}[source]
    pool = kiln.cuda.MemoryPool(allocator)
    assert pool is not kiln.get_default_memory_pool() and pool.used_bytes() == pool.total_bytes() == 0
    default = kiln.get_default_memory_pool()
    default_used = default.used_bytes()
    with kiln.cuda.using_allocator(pool.malloc):
        a = kiln.arange(1000, dtype=kiln.float64)
        b = (a * 2).reshape(10, 100).sum(axis=1)
        assert pool.used_bytes() >= 8000 + 80 and pool.total_bytes() >= pool.used_bytes()
        if CUDA:
            assert default.used_bytes() == default_used   # nothing came from the default pool
        if CUDA and source == "managed":
            assert kiln.cuda.runtime.pointerGetMemoryType(a.data.ptr) == kiln.cuda.runtime.memoryTypeManaged
    numpy.testing.assert_array_equal(b.get(), (numpy.arange(1000.0) * 2).reshape(10, 100).sum(axis=1))
    if source == "counting":
        assert segments and all(n >= 2 << 20 for n in segments)   # whole segments, not each array
    del a, b
    kiln.cuda.get_current_stream().synchronize()
    assert pool.used_bytes() == 0 and pool.free_bytes() == pool.total_bytes() > 0
    pool.free_all_blocks()
    assert pool.total_bytes() == 0
    pool.set_limit(size=4096)
    assert pool.get_limit() == 4096
    with pytest.raises(kiln.cuda.memory.OutOfMemoryError):
        pool.malloc(8192)
    with pytest.raises(TypeError, match="allocator must be callable"):
        kiln.cuda.MemoryPool(42)
    bad = kiln.cuda.MemoryPool(lambda n: 5)
    with pytest.raises(TypeError, match="must return an object with a .ptr"):
        bad.malloc(10)


def test_using_allocator_nests_and_forbids_set_allocator():
    def a1(n):
        return memory.malloc_managed(n)

    def a2(n):
        return memory.malloc_async(n)

    with kiln.cuda.using_allocator(a1):
        with kiln.cuda.using_allocator(a2):
            assert kiln.cuda.get_allocator() is a2
        assert kiln.cuda.get_allocator() is a1
        with pytest.raises(ValueError, match="using_allocator"):
            kiln.cuda.set_allocator(a2)
    assert kiln.cuda.get_allocator() is None


def test_managed_memory_is_managed_on_cuda():
    p = memory.malloc_managed(256)
    assert p.ptr != 0 and p.mem.size == 256
    if CUDA:
        assert kiln.cuda.runtime.pointerGetMemoryType(p.ptr) == kiln.cuda.runtime.memoryTypeManaged


def test_set_pinned_memory_allocator():
    calls = []

    def fake(n):
        calls.append(n)
        return bytearray(n)

    kiln.cuda.set_pinned_memory_allocator(fake)
    try:
        buf = kiln.cuda.alloc_pinned_memory(64)
        assert calls == [64] and len(buf) == 64
    finally:
        kiln.cuda.set_pinned_memory_allocator(None)
    assert isinstance(kiln.cuda.alloc_pinned_memory(8), kiln.cuda.PinnedMemoryPointer)
    with pytest.raises(TypeError):
        kiln.cuda.set_pinned_memory_allocator(5)
