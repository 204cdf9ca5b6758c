"""Devices, streams, events, memory and compilation: kiln.cuda (cupy.cuda's place)."""
from kiln import _core
from kiln.cuda import compiler, driver, memory, pinned_memory, runtime
from kiln._core import compile_with_cache  # deprecated, as in CuPy: RawModule
from kiln.cuda import device, texture
from kiln.cuda.device import Device, get_cublas_handle
from kiln.cuda.stream import Stream, ExternalStream, Event, get_current_stream, get_elapsed_time
from kiln.cuda.memory import (MemoryPointer, Memory, UnownedMemory, alloc, set_allocator,
                              get_allocator, OutOfMemoryError, alloc_pinned_memory, MemoryPool, PinnedMemoryPool,
                              malloc_managed, malloc_async, MemoryAsyncPool, using_allocator,
                              PinnedMemoryPointer, set_pinned_memory_allocator)

LaunchError = _core.LaunchError  # a kernel failed while running (a CUDADriverError)
Graph = _core.Graph  # Stream.end_capture's result: launch(stream=None), upload(stream=None)
StreamCaptureError = _core.StreamCaptureError  # work a capture cannot record (docs/cuda_graphs.md)

__all__ = ["Device", "Stream", "ExternalStream", "Event", "get_current_stream", "get_elapsed_time",
           "MemoryPointer", "Memory", "UnownedMemory", "alloc", "set_allocator",
           "get_allocator", "OutOfMemoryError", "alloc_pinned_memory", "MemoryPool", "PinnedMemoryPool",
           "LaunchError", "compiler", "compile_with_cache", "driver", "memory", "Graph", "StreamCaptureError", "malloc_managed", "malloc_async",
           "MemoryAsyncPool", "using_allocator", "PinnedMemoryPointer", "set_pinned_memory_allocator",
           "device", "get_cublas_handle",
           "runtime", "pinned_memory", "cufft", "texture"]
