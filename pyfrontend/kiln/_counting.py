"""Searching sorted sequences and counting into bins.

    kiln.searchsorted(a, v, side="right", sorter=None)   # a binary search per element of v
    kiln.digitize(x, bins, right=False)                   # increasing or decreasing bins
    kiln.bincount(x, weights=None, minlength=0)           # device atomics
    kiln.histogram(a, bins=10, range=None, density=None, weights=None)   # bins may be 'auto', 'fd', ...
    kiln.histogram_bin_edges(a, bins="stone", range=(0, 10))
    kiln.histogram2d(x, y, bins=10, range=None, density=None, weights=None)

Every search is kiln::search::position (stdlib_kernels/kiln/search.h) in
NumPy's sort order (Note [Sort order]: NaNs last), run by the elementwise
engine, one thread per searched value. Counts are atomic adds into the bins
(Note [Atomic bin sums] in arraycore/counting.h); the counting kernels are
generated in C++ (arraycore/counting.h), and this module finds the edges'
scalars in NumPy's scalar types (Note [Histogram edges] there).

Note [Bin estimators]
A string `bins` names one of NumPy's estimators of the bin width h (the
formulas of numpy.histogram_bin_edges' Notes), computed from the values
within `range` (all values without one): n, ptp = max - min, and per
estimator the standard deviation, the IQR (percentiles 75 and 25,
linear), the skewness. Those statistics are device reductions; their few
scalars come to the host and h is evaluated there in NumPy's scalar types
and operation order (a float32 std makes a float32 'scott' width, as in
NumPy), so the number of bins ceil((last - first) / h) is NumPy's unless a
statistic's last bits differ from NumPy's and the quotient lies within
them of an integer. h == 0 (no spread, or n too small) gives one bin;
integer data never gets h < 1. 'auto' is never narrower than half the
'sqrt' width, as in NumPy 2.4 (numpy/numpy#28426), which its docs do not
say. 'stone' counts the values into 1 ... K uniform bins (K = max(100,
sqrt(n)); one histogram launch per candidate, NumPy's bin placement) and
reads all the candidate counts back at once (K (K + 1) / 2 integers): the
host scores each candidate with NumPy's float64 arithmetic on the exact
counts, so ties break as in NumPy; an optimum at K warns as NumPy does.
Differences: float16 statistics accumulate in float32 (kiln's mean and
std), so a float16 'doane' or 'scott' count can differ from NumPy's; a
bin count too large to allocate raises kiln's OutOfMemoryError where
NumPy raises ValueError.
"""
import operator
import types
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln._core import ndarray
from kiln._indexing import compress
from kiln._reductions import mean, std
from kiln._statistics_order import percentile
from kiln._ufunc_methods import _operand

_ufn = _core._ufuncs


def _value_operand(v):
    """A kiln array for a value argument: Python scalars take NumPy's default
    dtypes (searchsorted compares in their common type with a, as NumPy)."""
    if isinstance(v, (bool, int, float, complex)):
        return _creation.asarray(numpy.asarray(v))
    return _operand(v)


def _one_dimensional(a):
    if a.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if a.ndim > 1:
        raise ValueError("object too deep for desired array")


def _host(a):
    """A small kiln array (bin edges, flags, extremes) read back: one sync."""
    return a.get()


def _extremes(a):
    """(min, max) of a non-empty kiln array as NumPy scalars, NaN if any is NaN."""
    both = _manipulation.stack([_ufn["minimum"].reduce(a, axis=None), _ufn["maximum"].reduce(a, axis=None)])
    lo, hi = _host(both)
    return lo, hi


# --- searchsorted, digitize ---------------------------------------------------

def _positions(a, v, right, sorter=None):
    """searchsorted of every element of the kiln array v in the 1-d kiln
    array a (sorted, or sorted through `sorter`): int64, v's shape."""
    return _core._searchsorted(a, v, "right" if right else "left", sorter)


def searchsorted(a, v, side="left", sorter=None):
    """Positions where the elements of v would be inserted into the sorted
    1-d array a to keep it sorted (side='left': before equal elements,
    'right': after them), as numpy.searchsorted; NaNs sort last. sorter:
    indices that sort a (its argsort). Comparisons run in the common dtype
    of a and v. Returns an int64 array of v's shape (0-d for a scalar v).
    (arraycore/sort_apply.h: searchsorted_apply.)"""
    return _core._searchsorted(_operand(a), _value_operand(v), side, None if sorter is None else _operand(sorter))


def _bins_operand(bins):
    return bins if isinstance(bins, ndarray) else _creation.asarray(bins)


def digitize(x, bins, right=False):
    """The index of the bin of each element of x, as numpy.digitize: bins is
    1-d and monotonically increasing or decreasing; with right=False x
    falls in bin i when bins[i-1] <= x < bins[i] (increasing bins). bins
    may be a host sequence (uploaded). int64, x's shape; checking the
    direction of bins costs one sync."""
    x = _value_operand(x)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    bins = _bins_operand(bins)
    _one_dimensional(bins)
    direction = _core._bins_direction(bins)
    if direction == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    if direction > 0:
        return _positions(bins, x, not right)
    flipped = _manipulation.flip(bins)
    return _ufn["subtract"](bins.size, _positions(flipped, x, not right))


# --- bincount ------------------------------------------------------------------

def _check_real_weights(weights):
    """NumPy's bincount (and so histogram2d) casts weights to float64 safely."""
    if weights.dtype.kind == "c":
        raise TypeError("Cannot cast array data from %r to dtype('float64') according to the rule 'safe'"
                        % weights.dtype)


def _check_index_dtype(x):
    if x.dtype.kind not in "biu":
        raise TypeError("Cannot cast array data from %r to dtype('int64') according to the rule 'safe'" % x.dtype)


def _sum_dtype(weights):
    """The dtype of the bin sums (Note [Atomic bin sums]): int64 counts or
    integer weight sums, float64 or complex128 sums of float or complex
    weights."""
    kind = "" if weights is None else weights.dtype.kind
    return numpy.dtype({"f": numpy.float64, "c": numpy.complex128}.get(kind, numpy.int64))


def bincount(x, weights=None, minlength=0):
    """Occurrences of each value of the non-negative integer 1-d array x
    (sums of `weights` at those positions when given: float64), as
    numpy.bincount; length max(x) + 1, at least minlength. Device atomics
    (Note [Atomic bin sums]): counts are exact; float weight sums may differ
    from NumPy's, and from run to run, in their last bits."""
    x = _operand(x)
    _one_dimensional(x)
    _check_index_dtype(x)
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    weights = None if weights is None else _operand(weights)
    if not x.size:   # NumPy's result for no values, weights (even complex, or too many) or not
        return _creation.zeros((minlength,), numpy.int64)
    lo, hi = _extremes(x)
    if lo < 0:   # NumPy's order of checks: values, then weights' dtype, then their length
        raise ValueError("'list' argument must have no negative elements")
    if weights is not None:
        _check_real_weights(weights)
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError("The weights and list don't have the same length.")
    counts = _core._bin_counts(x, weights, max(int(hi) + 1, minlength))
    return counts


# --- histogram -----------------------------------------------------------------

_UNSIGNED = {numpy.dtype(s): numpy.dtype(u) for s, u in [(numpy.int8, numpy.uint8), (numpy.int16, numpy.uint16),
                                                       (numpy.int32, numpy.uint32), (numpy.int64, numpy.uint64)]}


def _unsigned_difference(hi, lo):
    """hi - lo for NumPy scalars or Python numbers with hi >= lo, in their
    result type, signed integers as the unsigned type of their width (so an
    int8 range of 255 is not negative), as NumPy's histogram computes it."""
    dt = numpy.result_type(hi, lo)
    if dt in _UNSIGNED:
        return numpy.subtract(numpy.asarray(hi, dt), numpy.asarray(lo, dt), casting="unsafe", dtype=_UNSIGNED[dt])
    return numpy.subtract(hi, lo, dtype=dt)


def _outer_edges(a, value_range, dtype=None, extremes=None):
    """first and last edge as NumPy's histogram finds them (Python or NumPy
    scalars): `value_range`, else the extremes of a (as `dtype` when given;
    `extremes` when already read), widened by 0.5 either side when they
    are equal; ValueError when not finite or reversed."""
    if value_range is not None:
        first, last = value_range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (numpy.isfinite(first) and numpy.isfinite(last)):
            raise ValueError("supplied range of [%s, %s] is not finite" % (first, last))
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = _extremes(a) if extremes is None else extremes
        if dtype is not None:
            first, last = (numpy.asarray(v).astype(dtype)[()] for v in (first, last))
        if not (numpy.isfinite(first) and numpy.isfinite(last)):
            raise ValueError("autodetected range of [%s, %s] is not finite" % (first, last))
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _linspace(first, last, num, dtype):
    """NumPy's linspace(first, last, num) (num >= 2) cast to dtype, bit for bit
    (Note [Histogram edges])."""
    dt = numpy.result_type(first, last)
    if dt.kind not in "fc":
        dt = numpy.dtype(numpy.float64)
    start, stop = numpy.asarray(first).astype(dt)[()], numpy.asarray(last).astype(dt)[()]
    delta = numpy.subtract(stop, start, dtype=dt)
    step = delta / (num - 1)
    return _core._linspace_edges(start, stop, delta, step, num, dtype)


def _comparison_dtype(a_dtype, first, last):
    """The dtype NumPy compares a's values with first and last in: Python ints
    count as int64 (NumPy compares out-of-range Python ints exactly)."""
    def strong(v):
        return numpy.asarray(v) if type(v) is int else v
    return numpy.result_type(a_dtype, strong(first), strong(last))


def _uniform_counts(a, weights, first, last, nbins, edges):
    """Counts (or weight sums) of a's values over nbins uniform bins from first
    to last (Note [Histogram edges]): the scalars in NumPy's dtypes for them,
    the kernel in C++ (arraycore/counting.h)."""
    cmp_dt = _comparison_dtype(a.dtype, first, last)
    sub_dt = numpy.result_type(edges.dtype, first)
    denom = _unsigned_difference(last, first)
    div_dt = numpy.result_type(sub_dt, denom)

    def scalar(v, dt):
        return numpy.asarray(v).astype(dt)[()]

    return _core._uniform_bin_counts(a, weights, scalar(first, cmp_dt), scalar(last, cmp_dt), scalar(first, sub_dt),
                                     scalar(denom, div_dt), nbins, edges)


def _any(condition):
    return bool(_host(_ufn["logical_or"].reduce(condition, axis=None)))


def _check_bin_edges(edges, message):
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if edges.size > 1 and _any(_ufn["greater"](edges[:-1], edges[1:])):
        raise ValueError(message)


def _is_scalar(bins):
    return bins.ndim == 0 if isinstance(bins, ndarray) else numpy.ndim(bins) == 0


def _bin_count(bins, name="`bins`"):
    try:
        n = operator.index(bins)
    except TypeError:
        raise TypeError("%s must be an integer, a string, or an array" % name) from None
    if n < 1:
        raise ValueError("%s must be positive, when an integer" % name)
    return n


# --- bin estimators (Note [Bin estimators]) -----------------------------------

def _read_scalars(values):
    """Float 0-d kiln arrays read back in one transfer (one sync), as NumPy
    scalars of their own dtypes (float64 carries every float exactly)."""
    if not values:
        return []
    carried = _host(_manipulation.stack([v.astype(numpy.float64, copy=False) for v in values]))
    return [numpy.asarray(c).astype(v.dtype)[()] for c, v in zip(carried, values)]


def _statistics(x, names):
    """The statistics in `names` ('std', 'iqr', 'skew') of the non-empty kiln
    array x as NumPy scalars in NumPy's dtypes, read back together."""
    wanted = {}
    if "std" in names or "skew" in names:
        wanted["std"] = std(x)
    if "iqr" in names:
        quartiles = percentile(x, [75, 25])
        wanted["p75"], wanted["p25"] = quartiles[0], quartiles[1]
    if "skew" in names:   # mean of the cubed standardised values (unused when std is 0)
        deviation = _ufn["true_divide"](_ufn["subtract"](x, mean(x)), wanted["std"])
        wanted["skew"] = mean(_ufn["power"](deviation, 3))
    found = dict(zip(wanted, _read_scalars(list(wanted.values()))))
    if "iqr" in names:
        found["iqr"] = numpy.subtract(found.pop("p75"), found.pop("p25"))
    return found


def _sturges_width(s):
    return s.ptp / (numpy.log2(s.n) + 1.0)


def _rice_width(s):
    return s.ptp / (2.0 * s.n ** (1.0 / 3))


def _sqrt_width(s):
    return s.ptp / numpy.sqrt(s.n)


def _scott_width(s):
    return (24.0 * numpy.pi ** 0.5 / s.n) ** (1.0 / 3.0) * s.std


def _fd_width(s):
    return 2.0 * s.iqr * s.n ** (-1.0 / 3.0)


def _auto_width(s):
    """The smaller of the 'fd' and 'sturges' widths ('sturges' where 'fd' is
    0), but never below half the 'sqrt' width: NumPy 2.4 caps 'auto' at
    2 sqrt(n) bins over the values' span (Note [Bin estimators])."""
    fd, sturges = _fd_width(s), _sturges_width(s)
    return max(min(fd, sturges) if fd else sturges, _sqrt_width(s) / 2)


def _doane_width(s):
    if s.n <= 2 or not s.std > 0.0:
        return 0.0
    skew_deviation = numpy.sqrt(6.0 * (s.n - 2) / ((s.n + 1.0) * (s.n + 3)))
    return s.ptp / (1.0 + numpy.log2(s.n) + numpy.log2(1.0 + numpy.absolute(s.skew) / skew_deviation))


def _stone_width(s):
    """ptp / k for the k in 1 ... K minimising the leave-one-out estimate
    (2 - (n + 1) sum p_j^2) / h of the integrated squared error, p_j the
    fractions of the values in k uniform bins over (first, last), h = ptp / k.
    One sync reads every candidate's counts (and its 'too many bins' flag)."""
    if s.n <= 1 or s.ptp == 0:
        return 0
    top = max(100, int(numpy.sqrt(s.n)))
    bin_dt = _edges_dtype(s.first, s.last, s.x.dtype)
    parts = []
    for k in range(1, top + 1):
        edges = _linspace(s.first, s.last, k + 1, bin_dt)
        squeezed = _ufn["logical_or"].reduce(_ufn["greater_equal"](edges[:-1], edges[1:]), axis=None)
        parts += [squeezed.astype(numpy.int64).reshape((1,)),
                  _uniform_counts(s.x, None, s.first, s.last, k, edges)]
    read = _host(_manipulation.concatenate(parts))
    best, best_score, at = None, None, 0
    for k in range(1, top + 1):
        if read[at]:
            raise ValueError("Too many bins for data range. Cannot create %d finite-sized bins." % k)
        p = read[at + 1:at + 1 + k] / s.n
        at += k + 1
        score = (2 - (s.n + 1) * p.dot(p)) / (s.ptp / k)
        if best is None or score < best_score:
            best, best_score = k, score
    if best == top:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning, stacklevel=5)
    return s.ptp / best


# name -> (statistics beyond n and ptp, width from the statistics)
_ESTIMATORS = {
    "auto": (("iqr",), _auto_width),
    "fd": (("iqr",), _fd_width),
    "doane": (("std", "skew"), _doane_width),
    "scott": (("std",), _scott_width),
    "stone": ((), _stone_width),
    "rice": ((), _rice_width),
    "sturges": ((), _sturges_width),
    "sqrt": ((), _sqrt_width),
}


def _in_range(a, first, last):
    """a's values within [first, last], compared as _uniform_counts compares
    them (one sync: the count of kept values)."""
    cmp_dt = _comparison_dtype(a.dtype, first, last)
    lo, hi = (numpy.asarray(v).astype(cmp_dt)[()] for v in (first, last))
    keep = _ufn["logical_and"](_ufn["greater_equal"](a, lo), _ufn["less_equal"](a, hi))
    return compress(keep, a)


def _estimated_bins(a, name, value_range, weights):
    """(nbins, first, last) for the estimator `name` (Note [Bin estimators])."""
    if name not in _ESTIMATORS:
        raise ValueError("%r is not a valid estimator for `bins`" % (name,))
    if weights is not None:
        raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
    extremes = _extremes(a) if value_range is None and a.size else None
    first, last = _outer_edges(a, value_range, extremes=extremes)
    x = a if value_range is None else _in_range(a, first, last)
    if x.size == 0:
        return 1, first, last
    lo, hi = extremes if value_range is None else _extremes(x)
    needs, width_of = _ESTIMATORS[name]
    sample = types.SimpleNamespace(x=x, n=int(x.size), ptp=_unsigned_difference(hi, lo), first=first, last=last,
                                   **_statistics(x, needs))
    width = width_of(sample)
    if not width:   # no spread, or too few values
        return 1, first, last
    if a.dtype.kind in "iu" and width < 1:
        width = 1
    return int(numpy.ceil(_unsigned_difference(last, first) / width)), first, last


def _edges_dtype(first, last, a_dtype):
    dt = numpy.result_type(first, last, a_dtype)
    return numpy.result_type(dt, float) if dt.kind in "iub" else dt


def _bin_edges(a, bins, value_range, weights):
    """(edges, nbins, first, last) as NumPy's histogram finds them for the
    flattened a; nbins is None for edges given as an array."""
    if isinstance(bins, str):
        nbins, first, last = _estimated_bins(a, bins, value_range, weights)
    elif _is_scalar(bins):
        nbins = _bin_count(bins)
        first, last = _outer_edges(a, value_range)
    else:
        edges = _bins_operand(bins)
        _check_bin_edges(edges, "`bins` must increase monotonically, when an array")
        return edges, None, None, None
    edges = _linspace(first, last, nbins + 1, _edges_dtype(first, last, a.dtype))
    if _any(_ufn["greater_equal"](edges[:-1], edges[1:])):
        raise ValueError("Too many bins for data range. Cannot create %d finite-sized bins." % nbins)
    return edges, nbins, first, last


def _histogram_operands(a, weights):
    """a and weights (or None) flattened and checked as NumPy's histogram does."""
    a = _operand(a)
    if a.dtype.kind in "bc":
        raise TypeError("histogram: %s values are not supported" % a.dtype)
    if weights is not None:
        weights = _operand(weights)
        if tuple(weights.shape) != tuple(a.shape):
            raise ValueError("weights should have the same shape as a.")
        weights = _manipulation.ravel(weights)
    return _manipulation.ravel(a), weights


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002  (NumPy's name)
    """The bin edges histogram(a, bins, range, weights) uses, as
    numpy.histogram_bin_edges: bins an int (uniform edges over `range`,
    else over a's extremes, widened by 0.5 either side when equal), an
    increasing sequence of edges (returned as a kiln array), or the name of
    one of NumPy's estimators of the bin width: 'auto', 'fd', 'doane',
    'scott', 'stone', 'rice', 'sturges', 'sqrt' (Note [Bin estimators]),
    which see only the values within `range` and accept no weights.

    Synchronises: reading a's extremes (when range is None), checking that
    the edges increase, and for an estimator: compacting the values within
    range (when range is given) and reading their extremes, reading the
    estimator's statistics ('auto', 'fd', 'doane', 'scott'; one transfer)
    or the candidate counts ('stone'; one transfer)."""
    a, weights = _histogram_operands(a, weights)
    return _bin_edges(a, bins, range, weights)[0]


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002  (NumPy's name)
    """Counts of a's values (flattened) in bins, and the bin edges, as
    numpy.histogram: bins an int (uniform bins over `range`, else over a's
    extremes), increasing edges (a kiln array or a host sequence, uploaded)
    or the name of a bin-width estimator ('auto', 'fd', 'doane', 'scott',
    'stone', 'rice', 'sturges', 'sqrt': Note [Bin estimators]; no weights);
    the last bin is closed.
    With weights, sums of weights instead (their dtype, complex too); with
    density, the normalised density (float64; complex128 for complex
    weights). Float and complex weight sums are atomic: Note
    [Atomic bin sums].

    Synchronises as histogram_bin_edges does (reading a's extremes, the
    edge check, an estimator's scalars); counting itself does not."""
    a, weights = _histogram_operands(a, weights)
    edges, nbins, first, last = _bin_edges(a, bins, range, weights)
    if nbins is not None:
        n = _uniform_counts(a, weights, first, last, nbins, edges) if a.size else \
            _creation.zeros((nbins,), _sum_dtype(weights))
    elif a.size and edges.size > 1:
        n = _core._edge_bin_counts(a, weights, edges)
    else:
        n = _creation.zeros((max(edges.size - 1, 0),), _sum_dtype(weights))
    if weights is not None:
        n = n.astype(weights.dtype, copy=False)
    if density:
        widths = _ufn["subtract"](edges[1:], edges[:-1]).astype(numpy.float64, copy=False)
        return n / widths / _ufn["add"].reduce(n, axis=None), edges
    return n, edges


def _axis_edges(values, b, r, k, sample_dt):
    """Axis k's edges as numpy.histogramdd finds them: b bins over the range r
    (else the values' extremes) by NumPy's linspace, or the increasing edges b."""
    if _is_scalar(b):
        if b < 1:
            raise ValueError("`bins[%d]` must be positive, when an integer" % k)
        lo, hi = _outer_edges(values, r, sample_dt)
        try:
            n = operator.index(b)
        except TypeError:
            raise TypeError("`bins[%d]` must be an integer, when a scalar" % k) from None
        dt = numpy.result_type(lo, hi)
        return _linspace(lo, hi, n + 1, dt if dt.kind in "fc" else numpy.float64)
    e = _bins_operand(b)
    if e.ndim != 1:
        raise ValueError("`bins[%d]` must be a scalar or 1d array" % k)
    if e.size > 1 and _any(_ufn["greater"](e[:-1], e[1:])):
        raise ValueError("`bins[%d]` must be monotonically increasing, when an array" % k)
    return e


def _density(hist, edges):
    """hist divided by each bin's volume and by the total count, as NumPy's histogramdd does."""
    total = _ufn["add"].reduce(hist, axis=None)
    for k, e in enumerate(edges):
        shape = [1] * hist.ndim
        shape[k] = hist.shape[k]
        hist = hist / _ufn["subtract"](e[1:], e[:-1]).reshape(tuple(shape))
    return hist / total


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002  (NumPy's name)
    """The D-dimensional histogram of the N points in the rows of the (N, D)
    sample (or of D 1-d arrays of coordinates), as numpy.histogramdd: (float64
    counts of shape (nbins_0, ...), the D edge arrays). bins: an int or edges
    for every axis, or one of those per axis; range: one (min, max) per axis.
    A value on an axis's last edge falls in its last bin; values outside and
    NaNs are dropped. Float weight sums: Note [Atomic bin sums]."""
    if not (isinstance(sample, ndarray) and sample.ndim == 2):
        sample = _manipulation.atleast_2d(sample if isinstance(sample, ndarray) else _manipulation.stack(sample)).T
    if sample.ndim != 2:
        raise ValueError("too many values to unpack (expected 2)")
    n, d = sample.shape
    if sample.dtype.kind == "c":
        raise TypeError("histogramdd: complex values are not supported by kiln")
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = [bins] * d
    if range is None:
        range = (None,) * d
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    if weights is not None:
        weights = _operand(weights)
        if n:
            _check_real_weights(weights)
        if weights.ndim != 1 or weights.size != n:
            raise ValueError("The weights and list don't have the same length.")
    edges = [_axis_edges(sample[:, k], b, r, k, sample.dtype) for k, (b, r) in enumerate(zip(bins, range))]
    hist = _core._histogramdd_counts(sample, weights, edges)
    return (_density(hist, edges) if density else hist), edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002  (NumPy's name)
    """The 2-d histogram of the points (x[k], y[k]), as numpy.histogram2d:
    (counts as float64 of shape (nx, ny), x edges, y edges). bins: an int or
    edges for both axes, or a pair of those; range: [[xmin, xmax], [ymin,
    ymax]]. A value on an axis's last edge falls in the last bin; values
    outside and NaNs are dropped. Float weight sums: Note [Atomic bin sums];
    complex weights raise TypeError, as NumPy's (unless x is empty)."""
    x, y = _operand(x), _operand(y)
    if x.ndim != 1 or y.ndim != 1 or x.size != y.size:
        raise ValueError("x and y must have the same length.")
    sample_dt = numpy.result_type(x.dtype, y.dtype)
    if sample_dt.kind == "c":
        raise TypeError("histogram2d: complex values are not supported by kiln")
    try:
        count = len(bins)
    except TypeError:
        bins = [bins, bins]
    else:
        if count == 1:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
        if count != 2:
            bins = [bins, bins]
    if range is None:
        range = (None, None)
    elif len(range) != 2:
        raise ValueError("range argument must have one entry per dimension")
    if weights is not None:
        weights = _operand(weights)
        if x.size:   # NumPy's bincount of no values checks no weights: float64 zeros
            _check_real_weights(weights)
        if weights.ndim != 1 or weights.size != x.size:
            raise ValueError("The weights and list don't have the same length.")
    edges = [_axis_edges(values, b, r, k, sample_dt) for k, (values, b, r) in enumerate(zip((x, y), bins, range))]
    ex, ey = edges
    hist = _core._histogram2d_counts(x, y, weights, ex, ey)
    if density:
        hist = _density(hist, edges)
    return hist, ex, ey


def _searchsorted_method(self, v, side="left", sorter=None):
    return searchsorted(self, v, side, sorter)


_searchsorted_method.__name__ = "searchsorted"
_searchsorted_method.__doc__ = searchsorted.__doc__
ndarray.searchsorted = _searchsorted_method
