"""kiln.random's choice, permutation, shuffle and permuted, for Generator
(any axis) and the legacy RandomState (axis 0, as NumPy's legacy API). A
random order is the argsort of 64-bit Philox keys, so it is the same on
every backend (ties have probability about n^2 / 2^65).

    rng = kiln.random.default_rng(0)
    x = kiln.arange(12).reshape(3, 4)
    rng.permutation(x, axis=1)        # the columns in one random order
    rng.permuted(x, axis=1)           # each row in its own random order
    rng.choice(x, 2, axis=1, replace=False)
"""
import collections.abc
import math
import numbers
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._core import ndarray
from kiln._counting import searchsorted
from kiln._indexing import take, take_along_axis
from kiln._manipulation import _axis
from kiln._manipulation import concatenate
from kiln._scans import cumsum
from kiln._sets import unique
from kiln._sorting import argsort
from kiln._sorting import sort
from kiln.random._shapes import shape_of

AxisError = numpy.exceptions.AxisError


def _words(sampler, shape):
    """Random 64-bit keys of `shape` (uint64 Philox words)."""
    return _core._random_words(sampler._bit_generator, shape, numpy.uint64)


def order(sampler, n):
    """A random permutation of range(n) (int64, empty for n <= 0, as
    NumPy's arange): argsort of n random keys."""
    if n <= 0:
        return _creation.empty((0,), dtype=numpy.int64)
    return argsort(_words(sampler, (n,)))


def distinct(sampler, n, count):
    """`count` distinct values of range(n) in a random order, for n >= 2 *
    count (Note [Choice without replacement])."""
    # draws expected until `count` distinct: sum over i < count of n / (n - i)
    expected = -n * math.log1p(-count / n)
    drawn = None
    while True:
        batch = sampler._integers(0, n, (int(1.1 * expected) + 16,), numpy.int64, False)
        drawn = batch if drawn is None else concatenate((drawn, batch))
        first = unique(drawn, return_index=True)[1]
        if first.shape[0] >= count:
            return drawn[sort(first)[:count]]


# Note [Choice without replacement]
# A random order of range(n) (argsort of n keys) gives any sample without
# replacement, but costs O(n) memory and a sort of n keys whatever the
# sample's size: choice(2**24, 10, replace=False) sorted 16M keys (half an
# hour on the host backend), choice(2**40, 10, replace=False) could not run.
# When n >= 2 * count, choice takes instead the first `count` distinct
# values of uniform draws of range(n), in the order they were drawn: every
# ordered sample of distinct values is equally likely (the draws are
# exchangeable), and about -n log(1 - count / n) <= 1.39 count draws are
# needed, so the work is that of sorting O(count) values. unique's first
# indices find the first occurrences; a short batch draws more.


def _array(x):
    return x if isinstance(x, ndarray) else _creation.asarray(x)


def permutation(sampler, x, axis=0, legacy=False):
    """range(x) permuted for an int x, else a copy of x with its slices
    along `axis` in a random order."""
    if isinstance(x, numbers.Integral):
        return order(sampler, operator.index(x))
    a = _array(x)
    if a.ndim == 0 and legacy:
        raise IndexError("x must be an integer or at least 1-dimensional")
    axis = _axis(axis, a.ndim)
    return take(a, order(sampler, a.shape[axis]), axis=axis)


def shuffle(sampler, x, axis=0):
    """Reorders x's slices along `axis` in place: a kiln array, a NumPy
    array or a mutable sequence (axis 0 only), as NumPy's shuffle takes."""
    if isinstance(x, (ndarray, numpy.ndarray)):
        if x.ndim == 0:
            raise TypeError("shuffle needs an array of at least 1 dimension")
        axis = _axis(axis, x.ndim)
        n = x.shape[axis]
        if n < 2:
            return
        if isinstance(x, ndarray):
            copyto(x, take(x, order(sampler, n), axis=axis))
        else:
            x[...] = numpy.take(x, order(sampler, n).get(), axis=axis)
        return
    if not isinstance(x, collections.abc.MutableSequence):
        raise TypeError("'%s' object does not support item assignment" % type(x).__name__)
    if operator.index(axis) != 0:
        raise NotImplementedError("Axis argument is only supported on ndarray objects")
    items = list(x)
    x[:] = [items[i] for i in order(sampler, len(items)).get().tolist()]


def permuted(sampler, x, axis=None, out=None):
    """x with each slice along `axis` in its own random order (the whole
    flattened array for axis=None): argsort of one key per element."""
    a = _array(x)
    if axis is None:
        if a.ndim == 0:
            raise TypeError("permuted needs an array of at least 1 dimension")
        keys = _words(sampler, (a.size,))
        result = a.reshape(-1)[argsort(keys)].reshape(a.shape)
    else:
        axis = _axis(axis, a.ndim)
        keys = _words(sampler, a.shape)
        result = take_along_axis(a, argsort(keys, axis=axis), axis=axis)
    if out is None:
        return result
    if not isinstance(out, ndarray):
        raise TypeError("out must be a kiln.ndarray, got %s" % type(out).__name__)
    if out.shape != a.shape:
        raise ValueError("out must have the same shape as x")
    if not numpy.can_cast(a.dtype, out.dtype, "safe"):
        raise TypeError("Cannot cast array data from %r to %r according to the rule 'safe'" % (a.dtype, out.dtype))
    copyto(out, result)
    return out


def _probabilities(p, n):
    """p as a float64 kiln array, checked as NumPy checks it, and on the host."""
    p = (p if isinstance(p, ndarray) else _creation.asarray(numpy.asarray(p, dtype=numpy.float64)))
    p = p.astype(numpy.float64)
    if p.ndim != 1:
        raise ValueError("p must be 1-dimensional")
    if p.shape[0] != n:
        raise ValueError("a and p must have same size")
    host_p = p.get()
    if (host_p < 0).any() or not numpy.isfinite(host_p).all():
        raise ValueError("probabilities are not non-negative")
    if abs(float(host_p.sum()) - 1.0) > numpy.sqrt(numpy.finfo(numpy.float64).eps):
        raise ValueError("probabilities do not sum to 1")
    return p, host_p


def choice(sampler, a, size, replace, p, axis=0, legacy=False):
    """Samples of `a` (an int n: of range(n)) along `axis`, with or
    without replacement, with probabilities p: result shape a.shape[:axis]
    + size + a.shape[axis + 1:]. The legacy API takes 1-d `a` only."""
    pool = None
    if isinstance(a, numbers.Integral):
        n = operator.index(a)
    else:
        pool = _array(a)
        if pool.ndim == 0:
            if pool.dtype.kind not in "biu":
                raise ValueError("a must be 1-dimensional or an integer" if legacy else
                                 "a must be a sequence or an integer, not a 0-d %s array" % pool.dtype)
            n, pool = int(pool.get()), None
        elif legacy and pool.ndim != 1:
            raise ValueError("a must be 1-dimensional")
        else:
            axis = _axis(axis, pool.ndim)
            n = pool.shape[axis]
    shape = shape_of(size)
    count = 1 if shape is None else int(numpy.prod(shape, dtype=numpy.int64))
    if n <= 0 and count:
        raise ValueError("a must be a positive integer unless no samples are taken" if pool is None else
                         "a cannot be empty unless no samples are taken")
    if not replace and count > n:
        raise ValueError("Cannot take a larger sample than population when replace is False")
    n = max(n, 0)   # a negative int n with replacement: no samples, as NumPy's
    if p is not None:
        p, host_p = _probabilities(p, n)
        if not replace and int((host_p > 0).sum()) < count:
            raise ValueError("Fewer non-zero entries in p than size")
    if count == 0:
        idx = _creation.empty((0,), dtype=numpy.int64)
    elif replace and p is None:
        idx = sampler._integers(0, n, (count,), numpy.int64, False)
    elif replace:
        cdf = cumsum(p)
        cdf /= cdf[-1]
        u = sampler._draw("random", (count,), numpy.float64)
        idx = _core._ufuncs["minimum"](searchsorted(cdf, u, side="right"), n - 1)
    elif p is None:
        idx = distinct(sampler, n, count) if n >= 2 * count else order(sampler, n)[:count]
    else:
        # Efraimidis-Spirakis: the count smallest E_i / p_i, E_i exponential.
        keys = sampler._draw("standard_exponential", (n,), numpy.float64) / p
        idx = argsort(keys)[:count]
    shape = () if shape is None else shape
    if pool is None:
        return idx.reshape(shape)
    return take(pool, idx, axis=axis).reshape(pool.shape[:axis] + shape + pool.shape[axis + 1:])
