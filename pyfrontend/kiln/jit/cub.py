"""CUB's warp and block collectives in kernels (cupyx.jit.cub):
``WarpReduce[dtype]``, ``BlockReduce[dtype, block_threads]`` (each with a
``.TempStorage`` for ``shared_memory``; methods ``Sum(value)`` and
``Reduce(value, op)``, the aggregate valid in the first thread) and the
operators ``Sum()``, ``Max()``, ``Min()``. See docs/jit.md."""
from kiln.jit._builtins import rows

globals().update(rows("kiln.jit.cub."))
