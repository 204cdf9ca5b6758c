"""Page-locked host memory by CuPy's module name (cupy.cuda.pinned_memory);
kiln.cuda.memory holds the implementations."""
from kiln.cuda.memory import (PinnedMemoryPool, PinnedMemoryPointer, alloc_pinned_memory,
                              set_pinned_memory_allocator)

__all__ = ["PinnedMemoryPool", "PinnedMemoryPointer", "alloc_pinned_memory", "set_pinned_memory_allocator"]
