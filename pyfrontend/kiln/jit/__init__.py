"""kiln.jit: Python functions transpiled to CUDA C++ kernels (CuPy's cupyx.jit).

    from kiln import jit

    @jit.rawkernel()
    def add(x, y, out, n):
        i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        if i < n:
            out[i] = x[i] + y[i]

    add((blocks,), (threads,), (x, y, out, n))     # or add[blocks, threads](x, y, out, n)

See docs/jit.md for the language, the builtins and how types are inferred.
"""
from kiln._core import _JitKernel
from kiln.jit import cg, cub, thrust  # noqa: F401
from kiln.jit._builtins import (  # noqa: F401
    threadIdx, blockIdx, blockDim, gridDim, warpsize, laneid, grid, gridsize, syncthreads, syncwarp,
    threadfence, threadfence_block, threadfence_system,
    shared_memory, local_memory, range, atomic_add, atomic_sub, atomic_exch, atomic_min, atomic_max,
    atomic_inc, atomic_dec, atomic_cas, atomic_and, atomic_or, atomic_xor, shfl_sync, shfl_up_sync,
    shfl_down_sync, shfl_xor_sync, all_sync, any_sync, ballot_sync)
from kiln.jit._source import SourceUnavailableError  # noqa: F401


def rawkernel(func=None, *, mode="cuda", device=False, options=(), source=None):
    """Decorator: compile a Python function to a kernel (or, with device=True,
    a device function kernels call).

    ``options`` go to the compiler (e.g. ``('-use_fast_math', '-lineinfo')``).
    ``source`` is the function's text (or a larger text holding it) for
    functions whose source Python did not keep, such as those made by exec().
    The kernel is transpiled per argument signature at its first launch:
    ``kernel(grid, block, args, shared_mem=0, stream=None)`` or
    ``kernel[grid, block](*args)``.
    """
    if mode != "cuda":
        raise ValueError("kiln.jit.rawkernel: mode must be 'cuda' (it runs on every backend), got %r" % (mode,))
    if isinstance(options, str):
        options = (options,)

    def wrap(f):
        k = _JitKernel(f, bool(device), [str(o) for o in options], source)
        k.__doc__ = f.__doc__
        k.__name__ = f.__name__
        k.__qualname__ = getattr(f, "__qualname__", f.__name__)
        k.__module__ = getattr(f, "__module__", None)
        return k

    if func is not None:
        return wrap(func)
    return wrap


__all__ = ["rawkernel", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpsize", "laneid", "grid", "gridsize",
           "syncthreads", "syncwarp", "shared_memory", "local_memory", "range", "cg", "cub", "thrust"]
