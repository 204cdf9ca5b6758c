"""Devices, streams, events, memory and compilation: kiln.cuda (cupy.cuda's place)."""
from kiln import _core
from kiln.cuda import compiler, memory, runtime
from kiln.cuda.device import Device
from kiln.cuda.stream import Stream, ExternalStream, Event, get_current_stream, get_elapsed_time
from kiln.cuda.memory import (MemoryPointer, Memory, UnownedMemory, alloc, set_allocator,
                              get_allocator, OutOfMemoryError, alloc_pinned_memory, MemoryPool, PinnedMemoryPool)

LaunchError = _core.LaunchError  # a kernel failed while running (a CUDADriverError)

__all__ = ["Device", "Stream", "ExternalStream", "Event", "get_current_stream", "get_elapsed_time",
           "MemoryPointer", "Memory", "UnownedMemory", "alloc", "set_allocator",
           "get_allocator", "OutOfMemoryError", "alloc_pinned_memory", "MemoryPool", "PinnedMemoryPool",
           "LaunchError", "compiler", "memory",
           "runtime"]
