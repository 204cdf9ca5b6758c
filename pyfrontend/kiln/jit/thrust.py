"""Thrust's algorithms in kernels (cupyx.jit.thrust): ``sort``, ``sort_by_key``,
``reduce``, ``count``, ``find``, ``fill``, ``sequence``, ``copy``, the scans,
searches and set operations, each called with a policy first (``seq`` or
``device``: in a kernel both run in the calling thread) and iterators from
``array.begin()``/``array.end()``; ``make_constant_iterator`` and
``make_counting_iterator``. See docs/jit.md."""
from kiln.jit._builtins import rows

globals().update(rows("kiln.jit.thrust."))
