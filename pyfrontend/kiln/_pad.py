"""numpy.pad over kiln arrays: constant, edge, reflect, symmetric, wrap and
empty modes, each a bounded number of copies per axis (Note [Bounded
launches] in _manipulation.py); linear_ramp (kiln.linspace) and the
statistics modes (maximum, mean, median, minimum: one reduction per side and
axis); reflect_type='odd' chunk by chunk as NumPy; a callable mode called on
each 1-d view, as NumPy calls it."""
import numpy

from kiln import _core
from kiln._creation import linspace
from kiln._manipulation import _asarray, _index, flip
from kiln._statistics_order import median

_STATISTICS = {"maximum": lambda x, axis: x.max(axis=axis, keepdims=True),
               "minimum": lambda x, axis: x.min(axis=axis, keepdims=True),
               "mean": lambda x, axis: x.mean(axis=axis, keepdims=True),
               "median": lambda x, axis: median(x, axis=axis, keepdims=True)}
_PAD_KWARGS = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
               **{mode: {"stat_length"} for mode in _STATISTICS}}


def _as_pairs(x, ndim, as_index):
    """(before, after) for each axis from any of numpy.pad's spellings."""
    x = numpy.asarray(x)
    if as_index:
        if x.dtype.kind not in "iu":
            raise TypeError("`pad_width` must be of integral type.")
        if x.size and x.min() < 0:
            raise ValueError("index can't contain negative values")
    if x.ndim < 3 and x.size == 1:
        return [(x.reshape(-1)[0].item(),) * 2] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        return [tuple(x.reshape(-1).tolist())] * ndim
    return [tuple(p) for p in numpy.broadcast_to(x, (ndim, 2)).tolist()]


def _fill_periodic(padded, axis, lo, hi, period, origin):
    """padded[lo:hi] along axis = period[(i - origin) mod P] for each i: at
    most three copies (a head, whole periods through a 2-d view of the
    destination, a tail), P = period.shape[axis]."""
    p = period.shape[axis]
    i = lo
    while i < hi:
        phase = (i - origin) % p
        if phase or hi - i < p:   # a partial period
            w = min(p - phase, hi - i)
            padded[_index(axis, padded.ndim, slice(i, i + w))] = period[_index(axis, period.ndim,
                                                                                slice(phase, phase + w))]
            i += w
            continue
        m = (hi - i) // p         # whole periods
        dst = padded[_index(axis, padded.ndim, slice(i, i + m * p))]
        dst = dst.reshape(dst.shape[:axis] + (m, p) + dst.shape[axis + 1:], copy=False)   # a split: a view
        src = _core.broadcast_to(_core.expand_dims(period, axis), period.shape[:axis] + (m,) + period.shape[axis:])
        dst[...] = src
        i += m * p


def _pad_computed(roi, core, axis, ends, mode, end_values, lengths):
    """Fill roi's two pads along ``axis`` from ``core`` (the filled extent):
    numpy.pad's statistic of the ``lengths`` values nearest each side
    (integer results rounded half to even, as NumPy), or its linear ramp
    from ``end_values`` to the edge."""
    n = core.shape[axis]
    for side, ((lo, hi), end) in enumerate(zip(ends, end_values)):
        if hi == lo:
            continue
        if mode == "linear_ramp":
            edge = core[_index(axis, core.ndim, -side)]
            fill = linspace(end, edge, hi - lo, endpoint=False, dtype=roi.dtype, axis=axis)
            fill = flip(fill, axis) if side else fill
        else:
            length = n if lengths[side] is None else min(lengths[side], n)
            if length == 0 and mode in ("maximum", "minimum"):
                raise ValueError("stat_length of 0 yields no value for padding")
            fill = _STATISTICS[mode](core[_index(axis, core.ndim, slice(n - length, n) if side else
                                                 slice(0, length))], axis)
            if roi.dtype.kind in "iub" and fill.dtype.kind == "f":
                fill = fill.round()
        roi[_index(axis, roi.ndim, slice(lo, hi))] = fill


def _pad_odd(roi, axis, before, n, symmetric):
    """reflect_type='odd' along axis: as numpy.pad, chunk by chunk outwards,
    each chunk twice the current edge minus the mirror of the values next to
    it; a chunk is at most the filled extent cut to whole periods of the
    original (n for 'symmetric', n - 1 for 'reflect', whose mirror leaves
    the edge out), the left side first."""
    at = lambda s: _index(axis, roi.ndim, s)   # noqa: E731
    lo, hi, end = before, before + n, roi.shape[axis]
    period, skip = (n, 0) if symmetric else (n - 1, 1)
    while lo > 0 or hi < end:
        limit = (hi - lo) // period * period if symmetric else (hi - lo - 1) // period * period
        if lo > 0:
            w = min(limit, lo)
            roi[at(slice(lo - w, lo))] = 2 * roi[at(slice(lo, lo + 1))] - flip(roi[at(slice(lo + skip, lo + skip + w))],
                                                                             axis)
            lo -= w
        if hi < end:
            w = min(limit, end - hi)
            roi[at(slice(hi, hi + w))] = 2 * roi[at(slice(hi - 1, hi))] - flip(roi[at(slice(hi - skip - w, hi - skip))],
                                                                             axis)
            hi += w


def _pad_with_function(a, widths, function, kwargs):
    """numpy.pad's callable mode: a zero-padded copy, then function(vector,
    (before, after), axis, kwargs) on each 1-d view along each axis in turn
    (function writes the pads in place)."""
    padded = _core.zeros(tuple(n + b + e for n, (b, e) in zip(a.shape, widths)), a.dtype)
    if a.size:
        padded[tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, widths))] = a
    for axis in range(padded.ndim):
        view = _core.moveaxis(padded, axis, -1)
        for index in numpy.ndindex(view.shape[:-1]):
            function(view[index], widths[axis], axis, kwargs)
    return padded


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded on each side of each axis: numpy.pad with modes
    'constant' (``constant_values``), 'edge', 'reflect', 'symmetric', 'wrap',
    'empty', 'linear_ramp' (``end_values``) and 'maximum', 'minimum',
    'mean', 'median' (``stat_length``). ``pad_width`` takes every numpy.pad
    spelling: n, (n,), (before, after), ((before, after),) or one pair per
    axis.

    A bounded number of launches per axis, whatever the pad width (wide
    reflect/wrap pads tile whole periods through one 2-d view; reflect_type
    'odd' goes chunk by chunk, as NumPy). A callable ``mode`` is called as
    NumPy calls it, on each 1-d view of a zero-padded copy."""
    a = _asarray(array)
    if callable(mode):
        return _pad_with_function(a, _as_pairs(pad_width, a.ndim, as_index=True), mode, kwargs)
    if mode not in _PAD_KWARGS:
        raise ValueError("mode '%s' is not supported" % (mode,))
    unsupported = set(kwargs) - _PAD_KWARGS[mode]
    if unsupported:
        raise ValueError("unsupported keyword arguments for mode '%s': %s" % (mode, unsupported))
    odd = kwargs.get("reflect_type", "even") == "odd"
    if kwargs.get("reflect_type", "even") not in ("even", "odd"):
        raise ValueError("reflect_type must be 'even' or 'odd' (got %r)" % (kwargs["reflect_type"],))
    widths = _as_pairs(pad_width, a.ndim, as_index=True)
    shape = tuple(n + b + e for n, (b, e) in zip(a.shape, widths))
    padded = _core.empty(shape, a.dtype)
    inner = tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, widths))
    if a.size:
        padded[inner] = a
    if mode == "empty":
        return padded
    if a.size == 0 and mode != "constant":
        for axis, (n, pair) in enumerate(zip(a.shape, widths)):
            if n == 0 and any(pair):
                raise ValueError("can't extend empty axis %d using modes other than 'constant' or 'empty'"
                                 % axis)
        return padded   # the result is empty too
    values = _as_pairs(kwargs.get({"constant": "constant_values", "linear_ramp": "end_values"}.get(mode, ""), 0),
                       a.ndim, as_index=False)
    lengths = kwargs.get("stat_length")
    lengths = [(None, None)] * a.ndim if lengths is None else _as_pairs(lengths, a.ndim, as_index=True)
    for axis, (n, (before, after)) in enumerate(zip(a.shape, widths)):
        if not (before or after):
            continue
        # This axis' pads span the already padded earlier axes and the
        # original extent of the later ones (their pads are filled later).
        roi = padded[(slice(None),) * axis + (slice(None),) + inner[axis + 1:]]
        if roi.size == 0:
            continue
        ends = [(0, before), (before + n, before + n + after)]
        if mode == "constant":
            for (lo, hi), v in zip(ends, values[axis]):
                if hi > lo:
                    roi[_index(axis, roi.ndim, slice(lo, hi))] = v
            continue
        core = roi[_index(axis, roi.ndim, slice(before, before + n))]
        if mode in _STATISTICS or mode == "linear_ramp":
            _pad_computed(roi, core, axis, ends, mode, values[axis], lengths and lengths[axis])
            continue
        if mode == "edge" or (mode == "reflect" and n == 1):
            for (lo, hi), e in zip(ends, (0, n - 1)):
                if hi > lo:
                    roi[_index(axis, roi.ndim, slice(lo, hi))] = core[_index(axis, core.ndim, slice(e, e + 1))]
            continue
        if odd and mode != "wrap":
            _pad_odd(roi, axis, before, n, mode == "symmetric")
            continue
        fits = n - 1 if mode == "reflect" else n
        if mode != "wrap" and before <= fits and after <= fits:
            # One mirrored copy per side (reflect skips the edge element, symmetric repeats it).
            skip = 1 if mode == "reflect" else 0
            for (lo, hi), (s0, s1) in zip(ends, ((skip, skip + before), (n - skip - after, n - skip))):
                if hi > lo:
                    roi[_index(axis, roi.ndim, slice(lo, hi))] = flip(core[_index(axis, core.ndim,
                                                                                   slice(s0, s1))], axis)
            continue
        if mode == "wrap":
            period = core
        elif mode == "reflect":   # orig[0], ..., orig[n-1], orig[n-2], ..., orig[1]
            period = _core.empty(core.shape[:axis] + (2 * n - 2,) + core.shape[axis + 1:], a.dtype)
            period[_index(axis, period.ndim, slice(0, n))] = core
            if n > 2:
                period[_index(axis, period.ndim, slice(n, None))] = flip(
                    core[_index(axis, core.ndim, slice(1, n - 1))], axis)
        else:                      # symmetric: orig, then orig reversed
            period = _core.empty(core.shape[:axis] + (2 * n,) + core.shape[axis + 1:], a.dtype)
            period[_index(axis, period.ndim, slice(0, n))] = core
            period[_index(axis, period.ndim, slice(n, None))] = flip(core, axis)
        for lo, hi in ends:
            if hi > lo:
                _fill_periodic(roi, axis, lo, hi, period, before)
    return padded

