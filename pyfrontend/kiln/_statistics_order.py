"""Order statistics: median, percentile, quantile and their NaN-skipping
versions, on sorted rows.

    kiln.median(a, axis=0)
    kiln.quantile(a, [0.1, 0.9], axis=(0, 2), method='nearest', keepdims=True)

Each is one C++ call (arraycore/order_statistics.h, bound in
pyfrontend/order_statistics_binding.cpp): axes, q, methods, weights, the
sort, the kernels, result dtypes, NumPy's errors and warnings are there
(Note [Order statistics], Note [Weighted quantiles]).
"""
from kiln import _core


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None):
    """q-th quantiles (q in [0, 1]) along axis, by any of NumPy's thirteen
    methods (Note [Order statistics]); weights (a's shape, or 1-d along one
    reduced axis) with method='inverted_cdf' only (Note [Weighted
    quantiles]). Unlike NumPy 2.4, whose nanquantile and nanpercentile raise
    IndexError for 1-d weights with a of more than one dimension, the nan*
    versions take 1-d weights as they take a-shaped ones."""
    return _core._quantile(a, q, axis, out, _method(method, interpolation), keepdims, weights, False, False,
                           bool(overwrite_input))


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None):
    """q-th percentiles (q in [0, 100]) along axis (as quantile)."""
    return _core._quantile(a, q, axis, out, _method(method, interpolation), keepdims, weights, False, True,
                           bool(overwrite_input))


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
    """quantile ignoring NaNs (NaN and a RuntimeWarning where a row has no
    other value)."""
    return _core._quantile(a, q, axis, out, _method(method, interpolation), keepdims, weights, True, False,
                           bool(overwrite_input))


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None, interpolation=None):
    """percentile ignoring NaNs."""
    return _core._quantile(a, q, axis, out, _method(method, interpolation), keepdims, weights, True, True,
                           bool(overwrite_input))


def _method(method, interpolation):
    """method=, or the deprecated interpolation= that NumPy still takes in its place."""
    if interpolation is not None:
        if method != "linear":
            raise TypeError("You shall not pass both `method` and `interpolation`!\n"
                            "(`interpolation` is Deprecated in favor of `method`)")
        return interpolation
    return method


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along axis (None: all; ints and tuples), NaN where a NaN is
    in the row; an empty input gives NaN and NumPy's RuntimeWarning."""
    return _core._quantile(a, None, axis, out, "linear", keepdims, None, False, False, bool(overwrite_input))


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median ignoring NaNs (NaN and a RuntimeWarning for an all-NaN row)."""
    return _core._quantile(a, None, axis, out, "linear", keepdims, None, True, False, bool(overwrite_input))
