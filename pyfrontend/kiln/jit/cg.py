"""Cooperative groups in kernels: ``cg.this_thread_block().sync()`` and
``cg.this_grid().sync()`` (see docs/jit.md for the grid barrier's needs)."""
from kiln.jit._builtins import rows

globals().update(rows("kiln.jit.cg."))
