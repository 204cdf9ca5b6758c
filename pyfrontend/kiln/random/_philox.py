"""kiln.random.Philox: the bit generator behind Generator and RandomState.

    bg = kiln.random.Philox(1234)           # key from the seed, counter 0
    bg.random_raw(8)                        # 8 uint32 words: blocks 0 and 1
    bg.state                                # {'bit_generator': 'Philox4x32', 'state': {...}}

The state is a 64-bit key and a 128-bit counter (Note [Random counters] in
stdlib_kernels/kiln/philox.h). The words come from kiln's own kernels, so a
seed gives the same words on every backend.
"""
import numbers
import operator
import secrets

import numpy

from kiln import _core

_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1
_SPAWN_TAG = 0x5350415750484C58   # keeps spawned keys apart from those of sequence seeds (_fold's first word)


def _mix64(h):
    """A 64-bit finaliser (multiply-xorshift): every input bit reaches every
    output bit."""
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9 & _MASK64
    h = (h ^ (h >> 27)) * 0x94D049BB133111EB & _MASK64
    return h ^ (h >> 31)


def _fold(words):
    """One 64-bit key from a sequence of 64-bit words."""
    h = 0x6A09E667F3BCC909
    for w in words:
        h = _mix64((h ^ w) + 0x9E3779B97F4A7C15 & _MASK64)
    return h


def key_from_seed(seed):
    """The 64-bit Philox key of a seed: None draws one from the operating
    system; an int in [0, 2^64) is the key itself; a larger int, or a
    sequence or array of non-negative ints, is hashed down to one (as CuPy
    does with array seeds). Negative seeds raise ValueError, as NumPy."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, (bool, numpy.bool_)):
        seed = int(seed)
    if isinstance(seed, numbers.Integral):
        seed = int(seed)
        if seed < 0:
            raise ValueError("Seed must be non-negative, got %d" % seed)
        if seed <= _MASK64:
            return seed
        words = []
        while seed:
            words.append(seed & _MASK64)
            seed >>= 64
        return _fold(words)
    if isinstance(seed, (float, numpy.floating)):
        raise TypeError("Seed must be an integer or a sequence of integers, got float %r" % (seed,))
    if hasattr(seed, "get") and not isinstance(seed, (numpy.ndarray, list, tuple)):
        seed = seed.get()   # a kiln array
    values = numpy.asarray(seed)
    if values.dtype.kind not in "iub" and values.size:
        raise TypeError("Seed must be an integer or a sequence of integers, got dtype %s" % values.dtype)
    words = []
    for v in values.ravel().tolist():
        v = int(v)
        if v < 0:
            raise ValueError("Seed values must be non-negative, got %d" % v)
        while True:
            words.append(v & _MASK64)
            v >>= 64
            if not v:
                break
    return _fold([len(words)] + words)


class BitGenerator:
    """The base of kiln's bit generators (CuPy's cupy.random.BitGenerator);
    Philox is the one there is (docs/random.md says why)."""


class Philox(BitGenerator):
    """Philox4x32-10 (Salmon et al., SC'11): a 64-bit key and a 128-bit
    counter; each counter value gives 4 words of 32 bits.

    ``Philox(seed)`` takes its key from ``seed`` (see ``key_from_seed``);
    ``Philox(key=k, counter=c)`` sets both outright (``key`` < 2^64, its
    low 32 bits the first key word; ``counter`` < 2^128, its low 32 bits
    the first counter word), which is how the published known-answer
    vectors are checked.

    Differs from NumPy's ``Philox`` (Philox4x64): 32-bit words, so
    ``random_raw`` returns uint32, and ``key``/``counter`` are ints.
    """

    def __init__(self, seed=None, *, key=None, counter=None):
        if key is not None:
            if seed is not None:
                raise ValueError("seed and key cannot both be given")
            key = int(key)
            if not 0 <= key <= _MASK64:
                raise ValueError("key must be in [0, 2**64)")
            self._key = key
        else:
            self._key = key_from_seed(seed)
        counter = 0 if counter is None else int(counter)
        if not 0 <= counter <= _MASK128:
            raise ValueError("counter must be in [0, 2**128)")
        self._counter = counter
        self._spawned = 0

    def __repr__(self):
        return "Philox(key=%#x, counter=%#x)" % (self._key, self._counter)

    @property
    def state(self):
        return {"bit_generator": "Philox4x32", "state": {"key": self._key, "counter": self._counter}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox4x32":
            raise ValueError("state must be a dict from a Philox4x32 bit generator's .state")
        self._key = int(value["state"]["key"]) & _MASK64
        self._counter = int(value["state"]["counter"]) & _MASK128

    def advance(self, delta):
        """Moves the counter on by ``delta`` blocks (of 4 words)."""
        self._counter = (self._counter + int(delta)) & _MASK128
        return self

    def jumped(self, jumps=1):
        """A copy whose counter is ``jumps`` * 2^64 blocks ahead: a stream
        that no realistic use of this one reaches."""
        return Philox(key=self._key, counter=(self._counter + (int(jumps) << 64)) & _MASK128)

    def spawn(self, n_children):
        """``n_children`` new Philox generators, counters at 0, each keyed
        by a hash of this one's key and how many it spawned before: the
        same seed spawns the same children, a second call new ones. (NumPy
        spawns through a SeedSequence; a Philox key is all kiln needs.)"""
        n_children = operator.index(n_children)
        if n_children < 0:
            raise ValueError("n_children must be non-negative")
        first, self._spawned = self._spawned, self._spawned + n_children
        return [Philox(key=_fold([_SPAWN_TAG, self._key, first + i])) for i in range(n_children)]

    def random_raw(self, size=None):
        """``size`` words of 32 bits (a 0-d array for None), in counter order:
        block c gives words 4c .. 4c + 3."""
        return _core._random_words(self, () if size is None else size, numpy.uint32)

    def _take(self, units):
        """The kernel's (key0, key1, ctr_lo, ctr_hi) for a call of `units`
        units, and the counter moved past them (Note [Random counters])."""
        c = self._counter
        self._counter = (c + units) & _MASK128
        return (self._key & _MASK32, self._key >> 32, c & _MASK64, c >> 64)
