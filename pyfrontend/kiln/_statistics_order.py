"""Order statistics: median, percentile, quantile and their NaN-skipping
versions, on sorted rows.

    kiln.median(a, axis=0)
    kiln.quantile(a, [0.1, 0.9], axis=(0, 2), method='nearest', keepdims=True)

Note [Order statistics]
The reduced axes are moved last and merged, each (m, n) row sorted by the
sort engine (NaNs last), and one kernel thread per (quantile, row) reads its
row: for the nan* versions the row's count of non-NaN values (binary search
for the first NaN) replaces n; otherwise a NaN at the row's end makes the
result NaN. Methods follow NumPy's definitions on that count c: the virtual
index v = (c - 1) q ('midpoint': the mean of its floor and ceiling),
'lower'/'higher'/'nearest' take element floor(v)/ceil(v)/rint(v) (ties to
even, as numpy.around) in the input's dtype; 'linear' and 'midpoint'
interpolate between elements floor(v) and floor(v) + 1 (clipped to the row)
with NumPy's _lerp, each operation rounded to the result dtype (float16's
too, as NumPy's float16 arithmetic rounds). The other eight methods of
Hyndman and Fan are NumPy's too (_hyndman_fan_code): virtual index
c q - 1, or c q + alpha + q (1 - alpha - beta) - 1, rounded in q's dtype
op by op, out-of-row indices handled as NumPy's (both ends on the bound,
gamma from the index NumPy sets). median is NumPy's mean of the
one or two middle elements: their sum and the division by 2 in the mean's
accumulator (float32 for float16, float64 for integers), then cast. An
all-NaN row of the nan* versions gives NaN and NumPy's RuntimeWarning (the
sorted rows' first elements tell: one device-to-host synchronisation); an
empty median, NumPy's "Mean of empty slice".

Note [Weighted quantiles]
weights= (method='inverted_cdf' only, as NumPy) takes the sort's
permutation with the sorted rows. One thread per row adds the row's weights
in sorted order in float64, one after another as NumPy's cumsum does (a
parallel scan would round differently; the cost is a serial pass per row),
over the c non-NaN elements for the nan* versions (a NaN's weight is
ignored with it), else over all n. A row whose total is zero, NaN or
infinite is NumPy's ValueError (one device-to-host synchronisation, and one
more for the check of negative weights). Then one thread per (quantile,
row) binary-searches the first sorted element whose normalised cumulative
weight (cumulative / total in float64, cast to q's dtype as NumPy compares
it) is at least q and above zero, so leading zero weights are skipped at
q = 0. Weights are a's shape or 1-d along one reduced axis; a 1-d row is
read by the sorted element's position along that axis (row stride 0).
"""
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._manipulation import _asarray, _axis_tuple
from kiln._reductions import nanmean
from kiln._sets import _launch
from kiln._sorting import _sort_axis
from kiln._ufunc_methods import _ctype, _rows

_METHODS = {"linear": 0, "midpoint": 1, "lower": 2, "higher": 3, "nearest": 4, "inverted_cdf": 5,
            "averaged_inverted_cdf": 6, "closest_observation": 7, "interpolated_inverted_cdf": 8, "hazen": 9,
            "weibull": 10, "median_unbiased": 11, "normal_unbiased": 12}
# The methods that take an element (the result in a's dtype); the others interpolate.
_TAKING = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
# (alpha, beta) of the continuous methods of Hyndman and Fan (NumPy's table).
_ALPHA_BETA = {8: (0.0, 1.0), 9: (0.5, 0.5), 10: (0.0, 0.0), 11: (1 / 3, 1 / 3), 12: (3 / 8, 3 / 8)}
_NUMPY_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
                  "hazen", "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher",
                  "midpoint", "nearest")



def _wide(dtype):
    """The C type arithmetic on dtype's values runs in (float for float16)."""
    return "float" if dtype == numpy.float16 else _ctype(dtype)


def _rd(dtype, expr):
    """expr (computed in _wide(dtype)) rounded to dtype, as NumPy's
    arithmetic in dtype rounds each operation."""
    return "kiln::numpy_cast<%s>((%s)(%s))" % (_ctype(dtype), _wide(dtype), expr)


def _sorted_rows(a, axis, with_index=False):
    """(sorted (m, n) rows, kept shape, reduced axes, the int64 (m, n)
    permutation or None) for axis None/int/tuple."""
    axes = tuple(range(a.ndim)) if axis is None else _axis_tuple(axis, a.ndim, "axis")
    kept = [d for d in range(a.ndim) if d not in axes]
    perm = kept + list(axes)
    n = 1
    for d in axes:
        n *= a.shape[d]
    kept_shape = tuple(a.shape[d] for d in kept)
    m = 1
    for s in kept_shape:
        m *= s
    rows = _rows(a, perm, m, n, a.dtype) if m * n else _creation.empty((m, n), a.dtype)
    out = _creation.empty((m, n), a.dtype)
    index = _creation.empty((m, n), numpy.int64) if with_index else None
    _sort_axis(rows, 1, keys_out=out, index_out=index)
    return out, kept_shape, axes, index


def _warn_all_nan(rows):
    """NumPy's RuntimeWarning when a sorted row (NaNs last) holds only NaNs:
    a look at the rows' first elements, which synchronises."""
    if rows.dtype.kind == "f" and rows.size and bool(_core._ufuncs["isnan"](rows[:, 0]).any()):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)


def _finish(result, q_shape, kept_shape, axes, ndim, keepdims, out):
    if keepdims:
        full = []
        it = iter(kept_shape)
        for d in range(ndim):
            full.append(1 if d in axes else next(it))
        shape = tuple(q_shape) + tuple(full)
    else:
        shape = tuple(q_shape) + tuple(kept_shape)
    result = result.reshape(shape)
    if out is not None:
        copyto(out, result, casting="unsafe")
        return out
    return result


def _nan_test(dtype, x):
    if dtype.kind != "f":
        return "false"
    return "((float)%s != (float)%s)" % (x, x) if dtype.itemsize == 2 else "(%s != %s)" % (x, x)


def _row_count_code(dtype, skip_nan):
    """Device statements setting c, the values of row `row` (n of them) the
    statistic uses, and has_nan, whether a NaN makes it NaN."""
    code = "long long c = n;\nbool has_nan = false;\n"
    if dtype.kind != "f":
        return code
    if skip_nan:
        return code + ("{ long long lo = 0, hi = n;\n"
                       "  while (lo < hi) { const long long mid = lo + (hi - lo) / 2;\n"
                       "    if (%s) hi = mid; else lo = mid + 1; }\n  c = lo; }\n" % _nan_test(dtype, "row[mid]"))
    return code + "has_nan = n > 0 && %s;\n" % _nan_test(dtype, "row[n - 1]")


def _difference(dtype):
    """b - a in dtype, as NumPy's _lerp subtracts the two elements: wrapping
    for integers (unsigned arithmetic, so no signed overflow in C++)."""
    if dtype.kind == "i" and dtype.itemsize >= 4:
        u = "unsigned long long" if dtype.itemsize == 8 else "unsigned"
        return "kiln::numpy_cast<%s>((%s)b - (%s)a)" % (_ctype(dtype), u, u)
    return _rd(dtype, "(%s)b - (%s)a" % (_wide(dtype), _wide(dtype)))


def _hyndman_fan_code(qdt, r):
    """Switch cases of the methods of Hyndman and Fan beyond NumPy's classic
    five, as NumPy defines them on the count c (each operation rounded to
    q's dtype, as NumPy computes its virtual index): inverted_cdf and
    closest_observation take element n q - 1 (- 0.5) rounded their way;
    averaged_inverted_cdf interpolates at n q - 1 with gamma 1/2 or 1; the
    continuous ones at n q + alpha + q (1 - alpha - beta) - 1."""
    wq = _wide(qdt)
    cq = "(%s)kiln::numpy_cast<%s>((double)c)" % (wq, _ctype(qdt))
    nq = _rd(qdt, "%s * (%s)q[qi]" % (cq, wq))
    code = ("  case 5: case 7: {\n"
            "    %s x = %s;\n" % (wq, _rd(qdt, "(%s)%s - 1" % (wq, nq))) +
            "    if (method == 7) x = %s;\n" % _rd(qdt, "x - (%s)0.5" % wq) +
            "    const %s p = floor(x);\n" % wq +
            "    long long j = (long long)p + ((x - p == 0 && (method == 5 || fmod(p, (%s)2) != 0)) ? 0 : 1);\n" % wq +
            "    j = j < 0 ? 0 : (j > c - 1 ? c - 1 : j);\n"
            "    o[i] = kiln::numpy_cast<%s>(row[j]);\n    return;\n  }\n" % r +
            "  case 6: v = %s; break;\n" % _rd(qdt, "(%s)%s - 1" % (wq, nq)))
    for m, (alpha, beta) in sorted(_ALPHA_BETA.items()):
        a_ = "(%s)kiln::numpy_cast<%s>(%s)" % (wq, _ctype(qdt), float(alpha).hex())
        k_ = "(%s)kiln::numpy_cast<%s>(%s)" % (wq, _ctype(qdt), float(1 - alpha - beta).hex())
        inner = _rd(qdt, "%s + (%s)%s" % (a_, wq, _rd(qdt, "(%s)q[qi] * %s" % (wq, k_))))
        code += "  case %d: v = %s; break;\n" % (m, _rd(qdt, "(%s)%s - 1" % (wq, _rd(qdt, "(%s)%s + (%s)%s" % (wq, nq, wq, inner)))))
    return code


def _weight_rows(weights, a, axis):
    """weights as float64 on the device with the stride between rows of the
    (m, n) rows _sorted_rows makes (n: a's shape; 0: 1-d along the one
    reduced axis), after NumPy's checks of shape and sign."""
    w = _asarray(weights)
    full = tuple(w.shape) == tuple(a.shape)
    axes = tuple(range(a.ndim)) if axis is None else _axis_tuple(axis, a.ndim, "axis")
    if not full:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1 or len(axes) != 1 or w.shape[0] != a.shape[axes[0]]:
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
    if w.size and bool((w < 0).any()):
        raise ValueError("Weights must be non-negative.")
    if not full:
        return w.astype(numpy.float64, order="C", copy=False), 0
    n = 1
    for d in axes:
        n *= a.shape[d]
    if not a.size:
        return w.astype(numpy.float64), n
    perm = [d for d in range(a.ndim) if d not in axes] + list(axes)
    return _rows(w, perm, a.size // n, n, numpy.float64), n


def _weighted(rows, index, w, w_stride, qd, qdt, skip_nan, result):
    """Note [Weighted quantiles]: the cumulative weights of each sorted row,
    NumPy's ValueError for a row without a usable total, then the search."""
    m, n = rows.shape
    sdt = rows.dtype
    t, qc, wq = _ctype(sdt), _ctype(qdt), _wide(qdt)
    cum = _creation.empty((m, n), numpy.float64)
    bad = _creation.empty((m,), numpy.int32)
    _launch(("order_weight_sums", sdt.name, bool(skip_nan)),
            [("s", t, "", "raw"), ("p", "long long", "", "raw"), ("w", "double", "", "raw"),
             ("ws", "long long", "", "in"), ("n", "long long", "", "in"), ("cw", "double", "", "raw"),
             ("bad", "int", "", "raw")],
            "const %s* row = &s[i * n];\n" % t + _row_count_code(sdt, skip_nan) +
            "const long long* perm = &p[i * n];\nconst double* wr = &w[i * ws];\n"
            "double acc = 0;\n"
            "for (long long j = 0; j < c; ++j) { acc += wr[perm[j]]; cw[i * n + j] = acc; }\n"
            "bad[i] = c > 0 && !(acc > 0 && acc - acc == 0.0);   // zero, NaN or infinite",
            [rows, index, w, numpy.int64(w_stride), numpy.int64(n), cum, bad], m)
    if m and bool(bad.any()):
        raise ValueError("Weights included NaN, inf or were all zero.")
    r = _ctype(result.dtype)
    nan = _rd(result.dtype, "0.0 / 0.0") if result.dtype.kind == "f" else "(%s)0" % r
    _launch(("order_weighted_quantile", sdt.name, qdt.name, bool(skip_nan)),
            [("s", t, "", "raw"), ("cw", "double", "", "raw"), ("n", "long long", "", "in"),
             ("m", "long long", "", "in"), ("q", qc, "", "raw"), ("o", r, "", "raw")],
            "const long long qi = i / m, rr = i - qi * m;\n"
            "const %s* row = &s[rr * n];\n" % t + _row_count_code(sdt, skip_nan) +
            "if (has_nan || c == 0) { o[i] = %s; return; }\n" % nan +
            "const double* cr = &cw[rr * n];\nconst double total = cr[c - 1];\n"
            "const %s qv = (%s)q[qi];\n" % (wq, wq) +
            "long long lo = 0, hi = c - 1;   // cr[c - 1] / total is 1\n"
            "while (lo < hi) {\n"
            "  const long long mid = lo + (hi - lo) / 2;\n"
            "  const %s p = (%s)kiln::numpy_cast<%s>(cr[mid] / total);\n" % (wq, wq, qc) +
            "  if (p >= qv && p > 0) hi = mid; else lo = mid + 1;\n}\n"
            "o[i] = kiln::numpy_cast<%s>(row[lo]);" % r,
            [rows, cum, numpy.int64(n), numpy.int64(m), qd, result], result.shape[0])


def _quantile(a, q, axis, out, method, keepdims, skip_nan, what, weights=None):
    a = _asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    qa = numpy.asarray(q.get() if hasattr(q, "get") else q)
    weak_q = type(q) in (int, float)   # Python scalars promote weakly (NEP 50), as in NumPy
    scale = 100 if what == "percentile" else 1
    qdt = qa.dtype if qa.dtype.kind == "f" and not weak_q else numpy.dtype(numpy.float64)
    qs = (qa / scale if scale != 1 else qa).astype(qdt)
    if qs.size and not (numpy.all(qs >= 0) and numpy.all(qs <= 1)):
        raise ValueError("Percentiles must be in the range [0, 100]" if what == "percentile"
                         else "Quantiles must be in the range [0, 1]")
    if weights is not None and method != "inverted_cdf":
        raise ValueError("Only method 'inverted_cdf' supports weights. Got: %s." % (method,))
    if method not in _METHODS:
        raise ValueError("%r is not a valid method. Use one of: %s" % (method, _NUMPY_METHODS))
    if weights is not None:
        w, w_stride = _weight_rows(weights, a, axis)
    elif skip_nan and a.size == 0:
        # NumPy's nan-functions answer an empty array with nanmean's result (NaN
        # per kept position and "Mean of empty slice"), whatever q's shape.
        return nanmean(a, axis=axis, out=out, keepdims=keepdims)
    sdt = a.dtype
    if method == "linear" and qa.dtype.kind in "iu" and what == "quantile":
        method = "lower"   # integer virtual indices: NumPy takes the elements, in a's dtype
    if method in _TAKING:
        rdt = sdt
    else:
        if sdt == numpy.bool_:
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                            "the `^` operator, or the logical_xor function instead.")
        rdt = numpy.result_type(sdt, 0.5 if weak_q else qdt)
    rows, kept_shape, axes, index = _sorted_rows(a, axis, with_index=weights is not None)
    m, n = rows.shape
    if n == 0 and m:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    if skip_nan:
        _warn_all_nan(rows)
    qd = _creation.asarray(qs.reshape(-1))
    result = _creation.empty((qd.shape[0] * m,), rdt)
    if weights is not None:
        _weighted(rows, index, w, w_stride, qd, qdt, skip_nan, result)
        return _finish(result, qa.shape, kept_shape, axes, a.ndim, keepdims, out)
    t, r, qc = _ctype(sdt), _ctype(rdt), _ctype(qdt)
    nan = _rd(rdt, "0.0 / 0.0") if rdt.kind == "f" else "(%s)0" % r
    wq = _wide(qdt)
    if weak_q:   # NumPy's gamma is then a Python float: 1 - t in double, t converted where used
        tc, one_minus = "kiln::numpy_cast<%s>((double)g)" % r, "kiln::numpy_cast<%s>(1.0 - (double)g)" % r
    else:
        tc, one_minus = "kiln::numpy_cast<%s>(g)" % r, "kiln::numpy_cast<%s>(%s)" % (r, _rd(qdt, "1 - (%s)g" % wq))
    wr = _wide(rdt)
    code = ("const long long qi = i / m, rr = i - qi * m;\n"
            "const %s* row = &s[rr * n];\n" % t + _row_count_code(sdt, skip_nan) +
            "if (has_nan || c == 0) { o[i] = %s; return; }\n" % nan +
            "%s v = %s;\n" % (qc, _rd(qdt, "(%s)(c - 1) * (%s)q[qi]" % (wq, wq))) +
            "switch (method) {\n"
            "  case 2: o[i] = kiln::numpy_cast<%s>(row[(long long)floor((%s)v)]); return;\n" % (r, wq) +
            "  case 3: o[i] = kiln::numpy_cast<%s>(row[(long long)ceil((%s)v)]); return;\n" % (r, wq) +
            "  case 4: o[i] = kiln::numpy_cast<%s>(row[(long long)rint((%s)v)]); return;\n" % (r, wq) +
            "  case 1: v = %s; break;\n" % _rd(qdt, "0.5 * (floor((%s)v) + ceil((%s)v))" % (wq, wq)) +
            _hyndman_fan_code(qdt, r) +
            "  default: break;\n}\n"
            "%s g = %s;\n" % (qc, _rd(qdt, "(%s)v - floor((%s)v)" % (wq, wq))) +
            "long long j0 = (long long)floor((%s)v), j1 = j0 + 1;\n" % wq +
            "if (method >= 6) {   // NumPy's bounds: both indices at the end, gamma from the index it set\n"
            "  const %s at = (%s)v >= (%s)(c - 1) ? (%s)-1 : ((%s)v < 0 ? (%s)0 : floor((%s)v));\n"
            % (wq, wq, wq, wq, wq, wq, wq) +
            "  if ((%s)v >= (%s)(c - 1)) j0 = j1 = c - 1; else if ((%s)v < 0) j0 = j1 = 0;\n" % (wq, wq, wq) +
            "  g = %s;\n" % _rd(qdt, "(%s)v - at" % wq) +
            "  if (method == 6) g = (%s)g == 0 ? kiln::numpy_cast<%s>(0.5) : kiln::numpy_cast<%s>(1.0);\n"
            % (wq, qc, qc) +
            "}\n"
            "j0 = j0 < 0 ? 0 : (j0 > c - 1 ? c - 1 : j0);\n"
            "j1 = j1 < 0 ? 0 : (j1 > c - 1 ? c - 1 : j1);\n"
            "const %s a = row[j0], b = row[j1];\n" % t +
            "const %s d = kiln::numpy_cast<%s>(%s);\n" % (r, r, _difference(sdt)) +
            "const %s ac = kiln::numpy_cast<%s>(a), bc = kiln::numpy_cast<%s>(b);\n" % (r, r, r) +
            "o[i] = (double)g >= 0.5 ? %s : %s;"
            % (_rd(rdt, "(%s)bc - (%s)%s" % (wr, wr, _rd(rdt, "(%s)d * (%s)%s" % (wr, wr, one_minus)))),
               _rd(rdt, "(%s)ac + (%s)%s" % (wr, wr, _rd(rdt, "(%s)d * (%s)%s" % (wr, wr, tc))))))
    _launch(("order_quantile", sdt.name, rdt.name, qdt.name, bool(skip_nan), weak_q),
            [("s", t, "", "raw"), ("n", "long long", "", "in"), ("m", "long long", "", "in"),
             ("q", qc, "", "raw"), ("method", "int", "", "in"), ("o", r, "", "raw")],
            code, [rows, numpy.int64(n), numpy.int64(m), qd, numpy.int32(_METHODS[method]), result],
            result.shape[0])
    return _finish(result, qa.shape, kept_shape, axes, a.ndim, keepdims, out)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None):
    """q-th quantiles (q in [0, 1]) along axis, by any of NumPy's thirteen
    methods (Note [Order statistics]); weights (a's shape, or 1-d along one
    reduced axis) with method='inverted_cdf' only (Note [Weighted
    quantiles]). Unlike NumPy 2.4, whose nanquantile and nanpercentile raise
    IndexError for 1-d weights with a of more than one dimension, the nan*
    versions take 1-d weights as they take a-shaped ones."""
    return _quantile(a, q, axis, out, _method(method, interpolation), keepdims, False, "quantile",
                     weights)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None):
    """q-th percentiles (q in [0, 100]) along axis (as quantile)."""
    return _quantile(a, q, axis, out, _method(method, interpolation), keepdims, False, "percentile",
                     weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
    """quantile ignoring NaNs (NaN and a RuntimeWarning where a row has no
    other value)."""
    return _quantile(a, q, axis, out, _method(method, interpolation), keepdims, True, "quantile",
                     weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None, interpolation=None):
    """percentile ignoring NaNs."""
    return _quantile(a, q, axis, out, _method(method, interpolation), keepdims, True, "percentile",
                     weights)


def _method(method, interpolation):
    if interpolation is not None:
        if method != "linear":
            raise TypeError("You shall not pass both `method` and `interpolation`!\n"
                            "(`interpolation` is Deprecated in favor of `method`)")
        return interpolation
    return method


def _median(a, axis, out, keepdims, skip_nan):
    a = _asarray(a)
    rdt = numpy.dtype(numpy.float64) if a.dtype.kind in "biu" else a.dtype
    acc = {"e": "float"}.get(rdt.char, _ctype(rdt))
    rows, kept_shape, axes, _ = _sorted_rows(a, axis)
    m, n = rows.shape
    if n == 0 and m:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
    elif skip_nan:
        _warn_all_nan(rows)
    result = _creation.empty((m,), rdt)
    t, r = _ctype(a.dtype), _ctype(rdt)
    nan = "kiln::numpy_cast<%s>((%s)(0.0 / 0.0))" % (r, "double" if rdt.kind == "f" else acc)
    if rdt.kind == "c":
        nan = "%s(0.0 / 0.0, 0.0)" % r
    code = ("const %s* row = &s[i * n];\n" % t + _row_count_code(a.dtype, skip_nan) +
            "if (has_nan || c == 0) { o[i] = %s; return; }\n" % nan +
            "const %s x = kiln::numpy_cast<%s>(row[(c - 1) / 2]), y = kiln::numpy_cast<%s>(row[c / 2]);\n"
            % (acc, acc, acc) +
            "o[i] = kiln::numpy_cast<%s>((c %% 2) ? x : (%s)((%s)(x + y) / (%s)2));" % (r, acc, acc, acc))
    _launch(("order_median", a.dtype.name, bool(skip_nan)),
            [("s", t, "", "raw"), ("n", "long long", "", "in"), ("o", r, "", "raw")],
            code, [rows, numpy.int64(n), result], m)
    return _finish(result, (), kept_shape, axes, a.ndim, keepdims, out)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along axis (None: all; ints and tuples), NaN where a NaN is
    in the row; an empty input gives NaN and NumPy's RuntimeWarning."""
    return _median(a, axis, out, keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median ignoring NaNs (NaN and a RuntimeWarning for an all-NaN row)."""
    return _median(a, axis, out, keepdims, True)
