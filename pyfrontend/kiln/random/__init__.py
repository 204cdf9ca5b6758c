"""kiln.random: NumPy's random API on kiln arrays (docs/random.md).

Both of NumPy's APIs, over one counter-based generator (Philox4x32-10) that
runs in kiln's own kernels, so a seed gives the same numbers on the host and
the GPU backends:

    rng = kiln.random.default_rng(42)             # the new API
    x = rng.normal(size=(2, 3), dtype=kiln.float32)
    kiln.random.seed(0)                           # the legacy one
    y = kiln.random.randn(3, dtype=kiln.float32)
"""
from kiln.random._philox import BitGenerator, Philox
from kiln.random._generator import Generator, default_rng
from kiln.random._legacy import RandomState, get_random_state, set_random_state, reset_states, seed
from kiln.random import _legacy

Philox4x3210 = Philox   # CuPy's name for the same generator

globals().update(_legacy.functions)

__all__ = ["BitGenerator", "Philox", "Philox4x3210", "Generator", "default_rng", "RandomState", "get_random_state",
           "set_random_state", "reset_states", "seed"] + list(_legacy.MODULE_FUNCTIONS)
