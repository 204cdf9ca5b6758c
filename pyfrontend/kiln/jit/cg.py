"""Cooperative groups in kernels: ``cg.this_thread_block().sync()`` and
``cg.this_grid().sync()`` (see docs/jit.md for the grid barrier's needs)."""
from kiln.jit._builtins import Builtin

this_thread_block = Builtin("kiln.jit.cg.this_thread_block", "this_thread_block(): the block as a group")
this_grid = Builtin("kiln.jit.cg.this_grid", "this_grid(): the grid as a group")
