"""kiln.random.RandomState and the module-level functions (NumPy's legacy
API, as cupy.random has it): one global RandomState behind
kiln.random.seed, rand, randn, ...

    kiln.random.seed(0)
    x = kiln.random.randn(3, dtype=kiln.float32)   # dtype=, as CuPy (NumPy's randn has none)
    rs = kiln.random.RandomState(1234)
    k = rs.randint(0, 6, size=10)
"""
import os

import numpy

from kiln.random import _permutations
from kiln.random._generator import _Sampler
from kiln.random._philox import Philox


class RandomState(_Sampler):
    """NumPy's legacy ``numpy.random.RandomState`` over kiln's Philox bit
    generator. ``seed`` as ``kiln.random.Philox`` takes it (an int, an array
    of ints hashed to one key, None for fresh entropy).

    Differs from NumPy: results are kiln arrays (0-d for ``size=None``),
    floating-point methods take ``dtype`` (float32 or float64), and the
    numbers are Philox4x32's, the same on every kiln backend."""

    _legacy = True

    def __init__(self, seed=None):
        _Sampler.__init__(self, Philox(seed))

    def __repr__(self):
        return "RandomState(Philox)"

    def seed(self, seed=None):
        """Re-keys the generator from ``seed`` and resets its counter."""
        self._bit_generator = Philox(seed)

    def get_state(self, legacy=True):
        """The Philox state dict (``legacy`` is accepted, as NumPy's: there
        is no MT19937 tuple to give)."""
        return self._bit_generator.state

    def set_state(self, state):
        self._bit_generator.state = state

    def rand(self, *size, dtype=numpy.float64):
        """Uniform samples of [0, 1) of shape ``size`` (given as arguments)."""
        return self._draw("random", size if size else None, dtype)

    def randn(self, *size, dtype=numpy.float64):
        """Standard normal samples of shape ``size`` (given as arguments)."""
        return self._draw("standard_normal", size if size else None, dtype)

    def random_sample(self, size=None, dtype=numpy.float64):
        """Uniform samples of [0, 1)."""
        return self._draw("random", size, dtype)

    random = ranf = sample = random_sample

    def randint(self, low, high=None, size=None, dtype=numpy.int64):
        """Uniform integers of [low, high) (of [0, low) without ``high``),
        without modulo bias."""
        return self._integers(low, high, size, dtype, False)

    def random_integers(self, low, high=None, size=None):
        """Uniform integers of [low, high] (of [1, low] without ``high``);
        deprecated in NumPy in favour of randint."""
        if high is None:
            low, high = 1, low
        return self._integers(low, high, size, numpy.int64, True)

    def choice(self, a, size=None, replace=True, p=None):
        """Samples of ``a`` (an int n, or a 1-d array) with or without
        replacement, with probabilities ``p``."""
        return _permutations.choice(self, a, size, replace, p, legacy=True)

    def permutation(self, x):
        """A random permutation of ``range(x)`` for an int ``x``, else a
        shuffled copy of ``x`` along its first axis."""
        return _permutations.permutation(self, x, legacy=True)

    def shuffle(self, x):
        """Reorders ``x`` (a kiln or NumPy array, or a mutable sequence)
        along its first axis in place."""
        _permutations.shuffle(self, x)

    def tomaxint(self, size=None):
        """Uniform integers of [0, 2^63 - 1]."""
        return self._integers(0, (1 << 63) - 1, size, numpy.int64, True)


_random_state = None


def get_random_state():
    """The RandomState behind the module-level functions (made on first
    use, and after reset_states: keyed from the environment variable
    KILN_SEED when it is set, as CuPy's from CUPY_SEED, else from fresh
    entropy)."""
    global _random_state
    if _random_state is None:
        seed = os.environ.get("KILN_SEED")
        _random_state = RandomState(int(seed) if seed else None)
    return _random_state


def set_random_state(rs):
    """Makes ``rs`` the RandomState behind the module-level functions."""
    global _random_state
    if not isinstance(rs, RandomState):
        raise TypeError("set_random_state takes a kiln.random.RandomState")
    _random_state = rs


def reset_states():
    """Forgets the global RandomState: the next module-level call makes a
    fresh one (cupy.random.reset_states)."""
    global _random_state
    _random_state = None


def seed(seed=None):
    """Re-keys the global RandomState (``seed`` as RandomState takes it)."""
    get_random_state().seed(seed)


def _forward(name):
    method = getattr(RandomState, name)

    def function(*args, **kwargs):
        return getattr(get_random_state(), name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


MODULE_FUNCTIONS = (
    "rand", "randn", "random_sample", "random", "ranf", "sample", "randint", "random_integers",
    "uniform", "normal", "standard_normal", "choice", "permutation", "shuffle", "exponential",
    "standard_exponential", "gamma", "standard_gamma", "beta", "lognormal", "poisson", "binomial",
    "chisquare", "standard_t", "laplace", "logistic", "gumbel", "geometric", "rayleigh", "weibull",
    "pareto", "standard_cauchy", "triangular", "tomaxint", "power", "f", "noncentral_chisquare", "wald",
    "dirichlet", "negative_binomial", "multinomial", "vonmises", "zipf", "logseries", "hypergeometric", "bytes",
    "multivariate_normal", "noncentral_f", "get_state", "set_state")

functions = {name: _forward(name) for name in MODULE_FUNCTIONS}
