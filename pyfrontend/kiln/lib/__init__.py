"""numpy.lib's public submodules that kiln has: stride_tricks."""
from kiln.lib import stride_tricks  # noqa: F401
